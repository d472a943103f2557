"""The dice stage of pibg's vision: find dice on the playing surface and count their pips.

Pure functions on BGR images (OpenCV + numpy, nothing learned, nothing downloaded):

- :func:`read_die` reads one die from a crop around it: the value 1-6 and a confidence.
- :func:`find_dice` finds every die in a top-down view of the playing surface and reports
  each as a :class:`~pibg.observation.DieRead`, with ``flat=False`` for a cocked die.

How a die is read (:mod:`pibg.vision.dice_read`). Pips differ from the face around them in
*some* colour direction (black on white, white on black, white on translucent red, yellow on
green ...), so the crop is turned into a map of Lab colour distance from the face colour
(the median colour near the crop's centre, refined by the colours close to it). Two
detectors propose pips on that map: thresholding it at several levels gives the face as a
connected region and the pips as the round holes in it, and a Laplacian-of-Gaussian spot
detector finds pip-sized spots (which survives pips that touch or a face that breaks up, as
marbled ones do). Each set of candidates is matched against the six canonical pip layouts
under an unknown rotation and scale (a six's columns may sit closer than its corners): the
pips must be of one size, sit on the layout's grid with a spacing that fits the die, and
leave no pip-sized candidate unexplained near the face. The best explanation of each level
votes; a value's votes weigh how well it fits. The winner's share of the votes is the
confidence.

How dice are found (:mod:`pibg.vision.dice_find`). First cheaply, on the whole top-down view:
the determinant of the Hessian of the brightness at pip scale marks small round spots (pips
of any colour; edges and stripes hardly answer), summed over a die-sized window; the
window's strongest local maxima (a few, each with a good share of the best one's score) are
moved to the centroid of the spots around them, since every layout's pips are centred on
the face. Only these candidates are read, each from a small square crop: cut from the view
itself, or (``crop=``, as the pipeline does) warped straight from the camera frame, where
pips are sharper. A crop with no pip-like spot near its centre is given up at once; a read
whose pips sit off the crop's centre is read again, centred. A read of 1-3 pips must also
show a plain square face of about a die's size, or fit the die's grid at most levels (a
checker's highlight is a lone round spot on a large round face; the doubling cube's digits
are clutter on its face). Several die sizes may be given: the first at which a die is found
is the roll's (all dice of a roll are alike). Reading one die of known size tries one level
and the spot detector first and reads the other levels only when they disagree.

When the pips found one by one give up on a candidate (glare on the face, a side's pips
beside it, a point's stripe behind), the face is matched whole (:mod:`pibg.vision.dice_match`):
the six layouts drawn as spots at every angle and compared with the face by correlation.
Nothing else then says "die", so the match must be close, ahead of every other value's,
with round spots (a point's tip lines spots up along a ridge), and the top face's outline a
flat die's square. ``read_die`` matches whole too when its pips leave it unsure.

How a cocked die is told apart. A die lying flat shows its top face squarely; a die leaning
on a checker or the board's edge shows a foreshortened top face and a second face beside it.
Three signs mark it ``flat=False``: the affine map that carries the layout onto its pips is
stretched (4-6 pips), its face region at most levels is not a square of about the expected
edge, or pips of a second face show beside the read one. A face region wider than a die
both ways (the die's sides or shadow joined to it, a board of the die's colour) is judged
instead by the top face's own outline (:mod:`pibg.vision.dice_face`): along each of the
read face's axes the nearer edge outward from its pips, square for a flat die. Such a die
must never count as a roll.

>>> import numpy as np
>>> img = draw_die(5, size=48)
>>> read_die(img)[0]
5
"""

from __future__ import annotations

from pibg.vision.dice_config import LAYOUTS, DiceConfig
from pibg.vision.dice_find import find_dice
from pibg.vision.dice_read import draw_die, read_die

__all__ = ["LAYOUTS", "DiceConfig", "draw_die", "find_dice", "read_die"]
