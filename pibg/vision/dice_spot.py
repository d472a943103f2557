"""Where dice lie on the top-down view, found by a small fully convolutional network trained
on drawn boards only: the places the dice stage reads when its pip finders leave a throw's
die unread.

The network (``pibg/data/dice_spot_net.onnx``, about 12,000 weights) reads the whole view and
gives, every 4 view pixels, the likelihood that a flat die's centre lies there (and, in a
second channel, a leaning die's: not used, it tells the renders' leaning dice poorly). It was
trained by ``scripts/dice_find_net/train.py`` on boards drawn by
``scripts/dice_find_net/boards.py``: pibg.sim's boards and boards of random colours,
recoloured at random, with dice of random looks drawn on them. No render or photo was
trained on. It finds a die by its shape, shading and shadow, not by its pips' contrast, so it
finds the dark dice with dim pips that the spot map misses. It is a finder, not a reader: a
place it names is read by the die-face network (:mod:`pibg.vision.dice_net`) and judged as
any rescue's (:func:`pibg.vision.dice_find._net_rescue`).

>>> from pibg.vision.dice_read import draw_die
>>> view = np.full((224, 320, 3), (40, 110, 60), np.uint8)
>>> view[100:124, 150:174] = draw_die(5, size=16, angle=0.0, background=(40, 110, 60))
>>> [(round(x), round(y)) for x, y, _ in spots(view, 0.3)]  # the die's centre: (162, 112)
[(162, 114)]
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from pibg.exc import VisionError
from pibg.vision.dice_config import FloatArray, Image
from pibg.vision.onnx import load_onnx

MODEL = Path(str(resources.files("pibg") / "data" / "dice_spot_net.onnx"))
WHAT = "dice-finding model"

#: View pixels between the network's outputs.
STRIDE = 4
#: The view's sides are cut to a multiple of this (the network halves them twice, and the
#: dilated layers want room).
_CUT = 16


def spot_map(view: Image, model: Path = MODEL) -> FloatArray:
    """The likelihood of a flat die's centre every ``STRIDE`` pixels of ``view`` (BGR):
    ``(h // 16 * 4, w // 16 * 4)``, cell (i, j) the pixel (4 j + 1.5, 4 i + 1.5)."""
    h, w = view.shape[0] // _CUT * _CUT, view.shape[1] // _CUT * _CUT
    if h < _CUT or w < _CUT:
        return np.zeros((h // STRIDE, w // STRIDE), np.float64)
    if view.ndim == 2:
        view = cv2.cvtColor(view, cv2.COLOR_GRAY2BGR)
    x = view[:h, :w].astype(np.float32) / 255.0
    x = (x - x.mean()) / (x.std() + 0.02)  # the light's level and contrast drop out
    net = load_onnx(str(model), WHAT, "scripts/dice_find_net/train.py")
    try:
        net.setInput(np.ascontiguousarray(x.transpose(2, 0, 1)[None]))
        out = np.asarray(net.forward(), np.float64)
    except cv2.error:
        out = np.zeros(0)
    if out.shape != (1, 2, h // STRIDE, w // STRIDE):
        raise VisionError(f"{WHAT} {model} does not map a whole view to its dice: it is "
                          "another network; reinstall pibg")
    return np.asarray(1.0 / (1.0 + np.exp(-out[0, 0])), np.float64)


def spots(view: Image, at: float, model: Path = MODEL) -> list[tuple[float, float, float]]:
    """The places of ``view`` where the network finds a flat die's centre at least ``at``
    likely and likelier than at the 8 places round it: ``(x, y, likelihood)``, likeliest
    first."""
    return peaks(spot_map(view, model), at)


def peaks(heat: FloatArray, at: float) -> list[tuple[float, float, float]]:
    """The local maxima of a map like :func:`spot_map`'s at ``at`` or more, as view pixels
    ``(x, y, likelihood)``, likeliest first."""
    heat = np.asarray(heat, np.float32)
    if heat.size == 0:
        return []
    top = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= top) & (heat >= at))
    found = [((float(x) + 0.5) * STRIDE - 0.5, (float(y) + 0.5) * STRIDE - 0.5,
              float(heat[y, x])) for y, x in zip(ys, xs, strict=True)]
    return sorted(found, key=lambda s: -s[2])
