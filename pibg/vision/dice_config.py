"""Settings and shared types of the dice stage: pip layouts, :class:`DiceConfig`, fits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: A BGR (or grey) image as OpenCV gives it; uint8 expected, any dtype accepted.
Image: TypeAlias = npt.NDArray[Any]
FloatArray: TypeAlias = npt.NDArray[np.float64]
Mask: TypeAlias = npt.NDArray[Any]

#: Canonical pip positions, in units of the pip grid step (corner pips at (+-1, +-1)).
LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 0.0), (1.0, 1.0)),
}


@dataclass(frozen=True, slots=True)
class DiceConfig:
    """Every threshold of the dice stage (sizes are fractions of the die's edge)."""

    #: Crops are rescaled so that their longer side has this many pixels.
    work_px: int = 72
    #: Colour-distance levels (Lab units, 0-255 scale) at which the face is cut from its pips.
    levels: tuple[float, ...] = (7.0, 10.0, 14.0, 19.0, 25.0, 32.0, 40.0, 50.0, 62.0, 76.0)
    #: With the die's edge known (find_dice), these levels are read first; when they and the
    #: spot detector all give one value, each at most ``quick_cost``, the rest are skipped.
    quick_levels: tuple[float, ...] = (25.0,)
    quick_cost: float = 0.3
    #: Blur (sigma, in working pixels) before measuring colour distance.
    blur_sigma: float = 0.8
    #: Weight of lightness against the two colour axes in the distance map.
    lightness_weight: float = 1.0
    #: Region of the crop (fraction of its size, about the centre) that samples the face colour.
    face_sample: float = 0.25
    #: Colours this close (Lab units) to the median near the centre refine the face colour.
    face_radius: float = 40.0
    #: Pip area as a fraction of the crop's area: least, largest (pips 2-6), largest (a 1).
    pip_area_min: float = 0.003
    pip_area_max: float = 0.06
    one_area_max: float = 0.2
    #: Largest share of a hole's pixels on the rim of the face (else it is background).
    hole_border_max: float = 0.3
    use_levels: bool = True
    use_blobs: bool = True
    blob_votes: int = 2
    #: Blob detector: Gaussian scales (working px), least response and core-ring contrast.
    blob_sigmas: tuple[float, ...] = (2.5, 3.5, 4.5)
    blob_min_response: float = 4.0
    blob_min_contrast: float = 10.0
    #: Blob detector: most response peaks examined (the strongest).
    blob_peaks: int = 18
    #: With the die's edge known, a crop is read only if a spot lies this near its centre
    #: (fraction of the edge).
    spot_near: float = 0.5
    #: Nothing read at a candidate: read again centred on the roundest spot (at least this
    #: round) lying between ``retry_min`` and ``spot_near`` die edges from the centre.
    retry_roundness: float = 0.6
    retry_min: float = 0.12
    #: Least roundness of a pip (area / area of its enclosing circle).
    pip_roundness: float = 0.45
    #: Largest area ratio between the pips of one face.
    pip_size_ratio: float = 2.2
    #: Pip grid step (centre to corner pip, along an edge) as a fraction of the crop's side.
    step_min: float = 0.09
    step_max: float = 0.28
    #: The same when the die's edge is known (find_dice), as a fraction of that edge.
    known_step_min: float = 0.22
    known_step_max: float = 0.4
    known_pip_area_max: float = 0.13
    #: ... and the least area of a one's pip (a one's pip is large; specks are not ones).
    known_one_area_min: float = 0.015
    #: Pip radius as a fraction of the grid step.
    pip_step_min: float = 0.15
    pip_step_max: float = 0.8
    #: Largest distance of a lone pip / of the pips' centroid from the crop centre (fraction).
    one_offset_max: float = 0.22
    centre_offset_max: float = 0.22
    #: Largest mean distance of pips from their layout positions (fraction of the grid step).
    residual_max: float = 0.3
    #: Column half-distances tried for a six (in units of its row step; 1 = square grid).
    six_spreads: tuple[float, ...] = (0.7, 0.85, 1.0, 1.2)
    #: Vote bonus per pip for a value whose best fit costs at most ``bonus_cost_max``.
    pip_bonus: float = 0.0
    #: Each fit's vote is (1 - cost) to this power: a poor fit found at many levels must not
    #: outvote a close one found at few.
    vote_power: float = 2.0
    #: A larger value whose pips hold the winner's, fitting at most this well, wins instead.
    superset_cost: float = 0.35
    bonus_cost_max: float = 0.25
    #: Weight, in a fit's cost, of the spread of pip sizes (std / mean of their radii).
    size_spread_weight: float = 0.3
    #: Weight, in a fit's cost, of its centre's offset from the crop centre.
    offset_weight: float = 0.5
    #: Angle step (degrees) of the rotation search.
    angle_step: float = 3.0
    #: Most hole candidates considered at one level.
    max_candidates: int = 7
    #: Cost added for every pip-sized hole left unexplained inside the face ...
    unexplained_cost: float = 0.6
    #: ... if it is at least this round (area / area of its enclosing circle) ...
    unexplained_roundness: float = 0.5
    #: ... and closer than this to the fitted centre (in grid steps; for a one, crop sides).
    unexplained_radius: float = 2.0
    one_unexplained_radius: float = 0.42
    one_alone_radius: float = 0.65
    #: ... when the die's edge is known (fraction of that edge).
    known_unexplained_radius: float = 0.75
    #: find_dice: the grid reader (see ``_grid_read``): votes it casts, least contrast (Lab
    #: units) between the cells it reads as pips and the others, its search: angles (step,
    #: degrees), grid steps (fractions of the die's edge), centre offsets (fraction of the
    #: edge, 1 working px apart), and the blur (fraction of the grid step) of the map sampled.
    grid_votes: int = 2
    grid_min_contrast: float = 12.0
    grid_angle_step: float = 5.0
    grid_steps: tuple[float, ...] = (0.2, 0.23, 0.26, 0.29, 0.32, 0.35)
    grid_search: float = 0.15
    #: ... a read of 1-3 pips needs a pip reader's fit of that value costing at most this.
    grid_alone_cost: float = 0.5
    #: ... and a read of 4-6 pips by the grid alone must fit it at most this (cost).
    grid_only_fit: float = 0.2
    #: ... and the least grid step (fraction of the edge) at which a lone pip reads as a one.
    grid_one_step: float = 0.29
    grid_blur: float = 0.15
    #: read_die: a face read as two to five pips is read again on the 3 x 3 grid its pips
    #: give (the map blurred by this share of the grid step): a larger value whose pattern
    #: holds the pips found, and whose every pip cell is brighter than each of its plain
    #: cells, is the face when it sets them apart better than the read value's pattern does
    #: and lights its pips at least this share of the found pips' level above its plain
    #: cells (see ``_completed``).
    complete_blur: float = 0.3
    complete_contrast: float = 0.3
    #: find_dice: die size range accepted (fraction of ``die_px``) for a flat die's top face.
    flat_size_min: float = 0.7
    flat_size_max: float = 1.5
    #: find_dice: candidate size range (fraction of ``die_px``) of any die-like blob.
    blob_size_min: float = 0.6
    blob_size_max: float = 1.8
    #: find_dice: largest side ratio of a flat die's top face and of its fitted pip grid.
    flat_aspect_max: float = 1.16
    #: find_dice: least confidence for a blob to be reported as a die.
    min_confidence: float = 0.35
    #: find_dice: crop half-width around a candidate (multiples of ``die_px``).
    crop_half: float = 1.0
    #: find_dice: least roundness of a lone pip (a one): the cube's digits are not round.
    one_roundness: float = 0.6
    #: find_dice: most clutter (see ``_clutter``) on the face of a read with few pips.
    clutter_max: float = 0.22
    #: find_dice: a reading with this many pips or more is a die on its pips' evidence alone.
    pips_enough: int = 4
    #: find_dice: ... and so is a reading of two or three pips that fits this well (cost) in
    #: this many of the levels' and spots' fits.
    pips_fit_cost: float = 0.2
    pips_fit_votes: int = 3
    #: find_dice: largest side ratio of the affine map carrying the layout onto the pips.
    pip_aspect_max: float = 1.10
    #: find_dice: share of the whole faces seen (over the levels) that must look flat.
    flat_share: float = 0.34
    #: find_dice: spots this far from a read face's centre (fraction of ``die_px``), and of
    #: about its pips' size (within this area ratio), are pips of a second face; this many
    #: of them make the die cocked.
    extra_dist_min: float = 0.6
    extra_dist_max: float = 1.3
    extra_area_ratio: float = 2.2
    extra_pips_cocked: int = 2
    #: find_dice: a pip beside the face within this angle (cosine: 60 degrees) of the
    #: direction to the point below the camera is the flat die's own near side.
    side_cos: float = 0.5
    #: find_dice: a flat die's near side is seen aslant: its pips no rounder than this.
    side_roundness: float = 0.7
    extra_roundness: float = 0.5
    #: find_dice: ... unless four or more pips of the read face sit on a grid stretched at
    #: most this much (see ``_square_pips``).
    side_face_aspect: float = 1.06
    #: find_dice: a face region whose shorter side is at least this (fraction of ``die_px``)
    #: holds more than the top face (see ``_is_flat``) ...
    merged_face_short: float = 1.0
    #: ... and then the top face's own outline (:mod:`pibg.vision.dice_face`) must be this
    #: square at most (its longer half extent over its shorter); its orientations are tried
    #: this many degrees apart for a one (whose lone pip gives none).
    top_face_aspect_max: float = 1.17
    face_angle_step: float = 6.0
    #: find_dice: a die's face region, seen at some level, lies in this range (of ``die_px``).
    die_size_min: float = 0.65
    die_size_max: float = 1.45
    die_aspect_max: float = 1.35
    #: find_dice: least fill of its least rectangle by a face's hull (a die's face is square,
    #: a checker's round), for any die and for a flat one.
    die_fill_min: float = 0.8
    #: ... or, failing that, its top face's outline (see :mod:`pibg.vision.dice_face`): half
    #: extents within these shares of the expected edge.
    outline_half_min: float = 0.38
    outline_half_max: float = 0.65
    flat_fill_min: float = 0.7
    #: find_dice: pip scale (fraction of ``die_px``, at least ``pip_sigma_min`` px) of the spot
    #: detector that finds candidates, the least spot response (determinant of the Hessian,
    #: scale-normalised, grey levels squared) and the side of the window that sums spots
    #: (fraction of ``die_px``).
    pip_sigma: float = 0.08
    pip_sigma_min: float = 0.9
    spot_min_response: float = 20.0
    window: float = 0.8
    #: find_dice: a candidate moves to the centroid of the spots within this distance
    #: (fraction of ``die_px``).
    shift_radius: float = 0.85
    #: find_dice: least candidate score (the window's mean spot response, times
    #: ``score_scale``: about the same for a die of any size), and least share of the best
    #: candidate's score (a white two's two small pips sum to about 11, a one's larger pip
    #: to twice that).
    min_score: float = 11.0
    min_score_share: float = 0.15
    score_scale: float = 16.0
    #: find_dice: most candidates read per image and die size.
    max_dice_candidates: int = 5
    #: find_dice: a die's centre lies at least this far inside the image (fraction of
    #: ``die_px``): the view is cut at the playing surface's edge.
    edge_margin: float = 0.45
    #: find_dice: a read whose pips centre this far from the crop's centre (fraction of
    #: ``die_px``) is read again, centred.
    recentre: float = 0.2
    #: ... and a read of fewer pips there replaces the first only when surer by this much.
    recentre_conf: float = 0.1
    #: find_dice: two detections closer than this (fraction of ``die_px``) are one die.
    merge_dist: float = 0.6
    #: Whole-face matching (:mod:`pibg.vision.dice_match`): the face is rescaled to this
    #: edge (px); layouts are drawn with their corner pips this far from the centre along
    #: each axis and as Gaussian spots of this sigma (fractions of the edge), at angles this
    #: many degrees apart and at these sizes (of the expected edge); the correlation is
    #: taken over a disc of this radius (of the edge), with its centre anywhere within
    #: ``match_search`` of the patch's; the band-pass keeps sizes between these sigmas.
    match_edge_px: float = 24.0
    match_spread: float = 0.27
    match_pip_sigma: float = 0.06
    match_angle_step: float = 5.0
    match_scales: tuple[float, ...] = (0.92, 1.0, 1.08)
    match_disc: float = 0.5
    match_search: float = 0.3
    match_band: tuple[float, float] = (0.03, 0.2)
    #: find_dice: a face whose pips were not found one by one is a die when matched whole
    #: this well, this far ahead of every other value, with spots this round.
    rescue_score: float = 0.72
    rescue_margin: float = 0.05
    rescue_spot: float = 0.25
    #: A face read as a one is matched whole too, its centre searched for this far (die
    #: edges: a corner pip lies 0.38 from the centre); another value matched as closely,
    #: with every spot this round (a side's pip, seen aslant, is not), is the face.
    one_search: float = 0.5
    one_spot: float = 0.5
    #: A die whose centre lies at least this far (die edges) inside the surface mask has
    #: nothing to lean on (no checker, rail or bar: a die leaning on a checker mostly lies
    #: within half an edge of the mask's border, a few up to 0.8): when the pips call it
    #: cocked but the whole-face match reads the same value at least ``clear_score``, it lies
    #: flat (four pips or more, stretched ``clear_aspect_max`` at most); and a face matched
    #: whole there needs no square outline.
    clear_room: float = 0.75
    clear_score: float = 0.6
    clear_aspect_max: float = 1.3
    #: ... a one, two or three (no grid to show a lean) must lie this far inside: its
    #: outline is all that calls it cocked, and a flat die far from the point below the
    #: camera shows a side joined to its top face (a die leaning on a checker's edge lies
    #: within 0.8 of an edge of the mask's border).
    clear_room_few: float = 1.0
    #: Nearer the mask's border than ``clear_room`` a die may lean on what is beside it (a
    #: checker's edge under one side tilts it 20 to 30 degrees, and its pips' grid stretches
    #: by 1.06 to 1.15): four pips or more must then be square within this.
    lean_aspect_max: float = 1.07
    #: ... and a face of one to three pips (no grid to stretch) must be this square, its
    #: median over the levels whose face region is one top face (a die leaning 25 degrees
    #: on a checker's edge shows a face foreshortened to 0.9; the faces of flat dice beside
    #: checkers on the renders measure 1.0 to 1.1, a side in view).
    lean_face_aspect_max: float = 1.10
    #: ... unless its long side lies along the way to what it may lean on (|cosine| at least
    #: this): a lean shortens the face that way; a flat die by the frame, far from the point
    #: below the camera, shows its side joined to its top face lengthening it (render
    #: dev2_06's two, by the frame: 1.14 at cosine 0.99).
    lean_long_cos: float = 0.8
    #: ... and a die in the clear, or one stretched past those two bounds with no checker
    #: near, has no other die's centre within this many edges (one leaning on the other
    #: touches it; flat dice touching show square faces and grids).
    clear_room_die: float = 1.5
    #: A die this many edges or more inside the mask (every checker counted, the frame, the
    #: bar at least that far) has nothing to lean on: it lies flat, whatever its outline or
    #: its pips' grid show (a flat die far from the point below the camera shows a side
    #: joined to its top face; a pip lost in glare skews its grid). A die leaning on a
    #: checker's edge lies near the mask's border: the 60 cocked dice of the render sets
    #: within 1.08 edges of the smallest die looked for (``benchmarks/dice_net_at_truth.py``,
    #: its last column). One leaning on the other die is told by ``clear_room_die``. 0: not
    #: applied.
    open_room: float = 1.5
    #: A die within this many edges of the mask's border, read flat, with a pip beside its
    #: face towards that border (its distance falling at least ``lean_side_cos`` times as
    #: fast as the pip lies from the centre) leans on what is there (see ``_side_towards``).
    lean_reach: float = 1.0
    lean_side_cos: float = 0.6
    #: A die of one to three pips within ``lean_reach`` of what it may lean on whose face is
    #: shortened towards that (median side ratio over the levels at least ``lean_short``,
    #: its long side across the way to it: cosine at most ``lean_across``) leans on it: a
    #: lean of 20 degrees shortens the face by 0.94 along the tilt, and only along it (a
    #: flat die's side in view lengthens it towards the point below the camera instead).
    lean_short: float = 1.06
    lean_across: float = 0.25
    #: A die beside the other (within ``clear_room_die``) showing a pip beside its face
    #: towards that die (cosine at least ``other_side_cos``), at most ``other_side_reach``
    #: edges from its centre and at least ``other_side_clear`` from the other's (no pip of
    #: that die's face: those lie within 0.45; pibg.sim's leans show theirs 0.59 to 0.82
    #: from it, a flat touching throw's board marks between the dice 0.61), and not on the
    #: side facing the point below the camera (``side_cos``: a flat die's own side), leans
    #: on it.
    other_side_cos: float = 0.85
    other_side_reach: float = 0.95
    other_side_clear: float = 0.62
    #: find_dice: when one die is found, the spots within this many edges of it are taken
    #: away and the rest searched again (a die touching it has no window of its own).
    touching_radius: float = 0.75
    #: ... and a die found so counts only if it lies flat, at least this far from the first
    #: (two flat dice's centres lie an edge apart or more; a side's centre is nearer).
    touching_min: float = 0.95
    #: read_die: below this confidence the face is matched whole too, its edge taken as each
    #: of these shares of the crop's side (a die fills half the crop or more), and the best
    #: match stands when it scores at least ``whole_face_score``.
    whole_face_below: float = 0.6
    whole_face_edges: tuple[float, ...] = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85)
    whole_face_score: float = 0.4
    #: read_die: the value read stands unless the die-face network
    #: (:mod:`pibg.vision.dice_net`) finds another more than this many times likelier (0:
    #: the network is not asked).
    net_keep: float = 2.0
    #: ... reading the crop at this many quarter turns (1 to 4) and averaging.
    net_turns: int = 4
    #: find_dice: the die-face network reads a square of this many die edges either side of
    #: the die's centre (1.3 edges across: it was trained on dice filling 0.4 to 0.9 of it).
    net_crop: float = 0.65
    #: find_dice: a die's value read by its pips stands unless the network finds another
    #: more than this many times likelier (0: not asked).
    net_keep_find: float = 3.0
    #: find_dice: a flat die read as a one, two or three is read again by the network on its
    #: face (centred on it as a rescue reads it, ``_rescue_read``, and where it is less sure
    #: there, at the surest place of the 3 x 3 grid ``rescue_shift`` edges round it); where
    #: it reads more pips than were found, at least this likely, its value stands (1: not
    #: asked). Pips are lost, not made up: in glare, on a dark face, a corner pip read alone
    #: as a one; the network read a wrong value this likely at one die of 1,197 on the render
    #: sets (``benchmarks/dice_net_at_truth.py``), yet centred on one pip of a two it reads a
    #: one.
    net_more_pips: float = 0.8
    #: find_dice: a die read flat within ``lean_reach`` edges of what it may lean on is not
    #: flat where the die-face network, trained to call a leaning die "no flat die face",
    #: gives that at least this likelihood (1: never asked). Its pips and outline can pass
    #: for a flat face: a dark one leaning on a checker, its top pip and a side's pip matched
    #: whole as a two (render rnk1_06). Of the dice read flat that near on the render sets
    #: (``renders/dev``, the game, rnu0, the fourteenth to nineteenth random sets), the
    #: network said so this likely of that one, of a flat four read as a two and of a die
    #: read where there is none; of no flat die read right. pibg.sim's tournament dice
    #: leaning on a checker in play read as a roll: 15 of 150 (23 without), the flat ones
    #: read right as before (``benchmarks/leaning_in_play.py``).
    net_lean_veto: float = 0.7
    #: find_dice: a die read flat anywhere is no die where the network calls no flat die face
    #: at least this likely (1: never). Over the flat reads of ``renders/dev``, the game and
    #: two random sets' set-ups (rnk1, rpc0-4), 250 in all, three were that sure: two dice
    #: where there was none and a one read as a two; of the dice read right, the surest no
    #: die face was 0.93.
    net_no_die: float = 0.95
    #: find_dice: a candidate in the clear that nothing else reads is a flat die when the
    #: network gives one value at least this likelihood (1: never).
    net_rescue: float = 0.6
    #: ... where the network is surest of a face near the candidate: on a square grid this
    #: many die edges apart (0: not) ...
    rescue_shift: float = 0.35
    #: ... this many steps out each way (1: the eight neighbours) ...
    rescue_reach: int = 2
    #: ... then on a 3 x 3 grid this many edges apart round the best of those (0: not).
    rescue_fine: float = 0.12
    #: ... and, while two flat dice are not found, the network reads this many more places
    #: (0: none, as shipped: on a frame with no dice the rescue's search at three places
    #: took the dice stage from 5 to 124 ms, benchmarks/vision_speed.py's synthetic frame;
    #: docs/benchmarks.md has what they found): the strongest of pips whatever their
    #: contrast, the spot map's response over the brightness's spread round it plus
    #: ``faint_floor`` grey levels (a dark die's dim pips on a dark board, which the spot
    #: map's least response leaves out); a die is read there when the network gives one value
    #: at least ``faint_sure`` (nothing else vouches for it: a round stain reads as a one at
    #: 0.6).
    faint_candidates: int = 0
    faint_floor: float = 8.0
    faint_sure: float = 0.8
    #: ... and, while two flat dice are still not found, the places where the dice-finding
    #: network (:mod:`pibg.vision.dice_spot`) finds a flat die's centre at least this likely
    #: (1: never), likeliest first, read as any rescue's are (a die by its shape and
    #: shadow: a dark die's dim pips that the spot map misses, a die whose spots sat too far
    #: off its face for the rescue's search). Only a die lying in the open (``open_room``)
    #: is taken: the network names leaning dice as flat ones, and every die seen leaning
    #: leans on a checker (a die found so beside one made 3 more of pibg.sim's tournament
    #: dice leaning in play read as rolls, benchmarks/leaning_in_play.py). A one read there
    #: must be ``spot_one`` likely: the network finds round blotches too (a stain, a point's
    #: tip), and the die-face network reads one as a one at 0.66.
    spot_sure: float = 0.3
    spot_one: float = 0.8
    #: ... A face whose outline (the region standing apart from the board at the crop's
    #: centre) is longer than this many times its width is taken only when the network gives
    #: its value at least ``net_rescue_open`` and the face is a one, two or three or runs on
    #: across ``rescue_open`` of the crop (a die leaning in the open shows a face
    #: foreshortened: pibg.sim's stand-in, to 0.6, where a four reads as a six; a flat die
    #: off the camera's axis shows a side with its face, and its face may run on into a point
    #: of its colour). A region running on across ``rescue_open`` of the crop both ways is
    #: measured again against the board round the crop (dark pips).
    rescue_aspect_max: float = 1.25
    rescue_open: float = 0.95
    net_rescue_open: float = 0.9
    #: ... and reads the crop centred on the face there when that face's sides are within
    #: these many die edges ((0, 0): never), averaging its reads at a 3 x 3 grid this many
    #: edges apart (0: one read).
    rescue_centre: tuple[float, float] = (0.6, 1.2)
    rescue_jitter: float = 0.06


DEFAULT_CONFIG = DiceConfig()


@dataclass(frozen=True, slots=True)
class _Fit:
    """One explanation of a set of holes as a die face."""

    value: int
    cost: float
    centre: tuple[float, float]
    step: float
    angle: float
    aspect: float = 1.0
    pips: tuple[tuple[float, float], ...] = field(default=())
    #: Median pip area (working pixels).
    pip_area: float = 0.0
    #: Pip-like spots beside the face (find_dice only; see ``_extra_pips``), and where they
    #: lie (working pixels) and how round they are.
    extra_pips: int = 0
    extra_at: tuple[tuple[float, float, float], ...] = field(default=())
    #: The face region at this fit's level: (long side, short side, how much of its least
    #: rectangle its convex hull fills: about 0.95 for a square, 0.79 for a disc, and the
    #: long side's direction in degrees).
    face: tuple[float, float, float, float] | None = None
    #: Which reader made it: "pips" (candidates fitted to a layout) or "grid" (the 3 x 3
    #: cells of a face read as on or off; its grid is square by construction, so it says
    #: nothing of the face's shape).
    kind: str = "pips"

