"""A simple doubling-cube detector on the canonical view.

The cube lies on the bar: in the middle when nobody owns it, at the end on its owner's side
once doubled and taken. The calibration frame (starting position) shows it in the middle, so
its face colour there is learnt against the empty bar beside it. A frame is read by asking at
which of the three places something stands out from the bar round it the way the cube did
(a ratio, so the light may change), and is narrower than the bar (a checker is not).

A centred cube is reported as 1 (it shows its 64 face, and nobody has doubled yet); an owned
one as 2 with low confidence, and :func:`read_cube_face` reads its number where the pipeline
has the camera frame (``Vision._number_at``) with a small network trained on drawn cubes
(``pibg/data/cube_net.onnx``, ``scripts/cube_net/train.py``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from pibg.observation import CubeRead, Owner
from pibg.vision.geometry import Array, Layout, VisionConfig
from pibg.vision.onnx import forward, load_onnx, probabilities, standardised

#: The cube's three places: the middle of the bar, and its ends on each owner's side.
OWNERS: tuple[Owner, Owner, Owner] = ("center", "white", "black")


def sample_box(img: Array, x: float, y: float, r: int) -> Array:
    """Mean colour of the (2r+1)-pixel box round (x, y), kept inside the image."""
    h, w = img.shape[:2]
    xi = int(min(max(round(x), r), w - r - 1))
    yi = int(min(max(round(y), r), h - r - 1))
    return np.asarray(img[yi - r:yi + r + 1, xi - r:xi + r + 1].reshape(-1, 3).mean(0),
                      np.float32)


def _face_boxes(layout: Layout, img: Array, x: float, ys: Array) -> Array:
    """The upper quartile of each channel over a box a little smaller than a cube's face,
    round (x, y) for each y: the face's colour, its printed number hardly counting.
    Returns (len(ys), 3) BGR."""
    r = max(2, round(0.18 * layout.u))
    h, w = img.shape[:2]
    xi = int(min(max(round(x), r), w - r - 1))
    yi = np.clip(np.round(np.asarray(ys, np.float64)).astype(int), r, h - r - 1)
    boxes = np.stack([img[y - r:y + r + 1, xi - r:xi + r + 1].reshape(-1, 3) for y in yi])
    q = int(0.75 * (boxes.shape[1] - 1))
    return np.asarray(np.partition(boxes, q, axis=1)[:, q], np.float32)


def face_colour(layout: Layout, img: Array, x: float, y: float) -> Array:
    """The colour (BGR) of a cube's face round (x, y) (see :func:`_face_boxes`)."""
    return np.asarray(_face_boxes(layout, img, x, np.array([y]))[0], np.float32)


def _box_means(ii: Array, xs: Array, ys: Array, r: int) -> Array:
    """Mean colour of (2r+1)-pixel boxes round (xs, ys) from an integral image (N, 3)."""
    h, w = ii.shape[0] - 1, ii.shape[1] - 1
    xi = np.clip(np.round(xs).astype(int), r, w - r - 1)
    yi = np.clip(np.round(ys).astype(int), r, h - r - 1)
    x0, x1, y0, y1 = xi - r, xi + r + 1, yi - r, yi + r + 1
    s = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
    return np.asarray(s / float((2 * r + 1) ** 2), np.float32)


def place_scores(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
                 bar_centre: Array | None = None, integral: Array | None = None
                 ) -> list[float]:
    """The log-odds of :func:`locate` for the three places."""
    return [s for s, _ in locate(cfg, layout, img, cube_bg, bar_centre, integral)]


def locate(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
           bar_centre: Array | None = None, integral: Array | None = None,
           checkers: Array | None = None) -> list[tuple[float, tuple[float, float]]]:
    """Log-odds that the cube lies at each place (middle, White's end, Black's end) of the
    canonical image (BGR; ``integral`` its ``cv2.integral`` when the caller has it), and
    where along the bar it fits best there (canonical x, y).

    The cube is told by its contrast with the bar right beside it in the same frame (a square
    narrower than the bar, unlike a checker that fills the bar's width), as a log ratio per
    channel, so a change of light since calibration, which scales the bar and the cube alike
    even where it is not uniform, does not move it. The contrast expected is learnt at
    calibration: ``cube_bg[0]`` (the cube's face colour, BGR, :func:`face_colour`) against
    ``bar_centre`` (the empty bar next to the middle). Each of the three places is searched a
    little along the bar: the cube is pushed, not placed on a mark.

    ``checkers``, (N, 2) canonical centres of checkers known to stand on the bar, are not
    compared with: along the bar, only the sides clear of them count (a centred cube with a
    light checker against it is no checker, and the checker is known).
    """
    u = layout.u
    ii = cv2.integral(img) if integral is None else integral
    places = layout.cube_places()
    bar = np.asarray(bar_centre if bar_centre is not None else cube_bg[1], np.float32)
    want = np.log((np.asarray(cube_bg[0], np.float32) + 4.0) / (bar + 4.0))
    sigma = cfg.cube_contrast_sigma
    r_side = max(1, round(0.08 * u))
    side = 0.4 * u
    top = layout.origin[1] + 0.1 * u
    bottom = layout.origin[1] + (layout.profile.height - 0.1) * u
    dys = np.arange(-0.625, 0.626, 0.125) * u

    def llr(inner: Array, around: Array) -> Array:
        c = np.log((inner + 4.0) / (around + 4.0))
        return np.asarray(((c / sigma) ** 2).sum(-1) - (((c - want) / sigma) ** 2).sum(-1))

    # Beside the cube on the bar: left and right, and along the bar towards the middle (both
    # ways in the middle). A checker is as wide as the bar and round, so one of these lies on
    # it wherever the sample sits on it.
    along = {"center": (-1.0, 1.0), "white": (-1.0,), "black": (1.0,)}
    scores: list[tuple[float, tuple[float, float]]] = []
    for owner in OWNERS:
        x, y = places[owner]
        ys = np.clip(y + dys, top, bottom)
        xs = np.full_like(ys, x)
        inner = _face_boxes(layout, img, x, ys)
        beside = (_box_means(ii, xs - side, ys, r_side) + _box_means(ii, xs + side, ys, r_side)) / 2
        worst = llr(inner, beside)
        for sgn in along[owner]:
            end = ys + sgn * 0.45 * u
            ok = llr(inner, _box_means(ii, xs, end, r_side))
            if checkers is not None and len(checkers):
                d = np.hypot(checkers[None, :, 0] - x, checkers[None, :, 1] - end[:, None])
                ok = np.where(d.min(1) < 0.5 * layout.checker_px, np.inf, ok)
            worst = np.minimum(worst, ok)
        j = int(np.argmax(worst))
        scores.append((float(worst[j]), (float(x), float(ys[j]))))
    return scores


def find_cube(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array, gain: Array,
              bar_centre: Array | None = None, integral: Array | None = None
              ) -> CubeRead | None:
    """Where the cube lies (see :func:`locate`): the place most like it (a game has its
    cube somewhere), or None when even that one looks far from it (covered, or off the bar)."""
    return find_cube_at(cfg, layout, img, cube_bg, bar_centre, integral)[0]


def find_cube_at(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
                 bar_centre: Array | None = None, integral: Array | None = None,
                 checkers: Array | None = None
                 ) -> tuple[CubeRead | None, tuple[float, float]]:
    """:func:`find_cube`, and where the cube was seen (canonical x, y); ``checkers`` as for
    :func:`locate`."""
    found = locate(cfg, layout, img, cube_bg, bar_centre, integral, checkers)
    scores = [sc for sc, _ in found]
    i = int(np.argmax(scores))
    at = found[i][1]
    if scores[i] < -cfg.cube_absent:
        return None, at
    owner = OWNERS[i]
    s = np.asarray(scores)
    others = np.delete(s, i)
    margin = float(s[i] - max(others.max(), 0.0))
    conf = float(1.0 - np.exp(-max(margin, 0.0) / 10.0))
    if owner == "center":
        return CubeRead(1, owner, conf), at
    return CubeRead(2, owner, conf * 0.3), at


#: The numbers a cube shows.
CUBE_FACES: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
#: The fonts the cube-face network was trained on (``scripts/cube_net/synth.py`` draws them
#: bent and reweighted at random); the tests read faces printed in two others, and the
#: renders' cubes are printed in a third (DejaVu Sans, Blender's).
TRAINED_FONTS: tuple[int, ...] = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                                  cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)
#: The cube-face network pibg ships (``scripts/cube_net/train.py``), and its input side
#: (pixels): the patch shrunk to it.
CUBE_MODEL = Path(str(resources.files("pibg") / "data" / "cube_net.onnx"))
NET_INPUT = 64
_NET_WHAT = "cube-face model"


def read_cube_face(patch: Array, model: Path | None = None) -> tuple[int | None, float]:
    """The number on the cube's top face in ``patch`` (square, BGR or grey, the cube near its
    middle, the face a fifth to over half its width): 2, 4, 8, 16, 32 or 64 and a confidence
    in [0.5, 1] (how far the likeliest reading leads the next), or (None, 0) where the
    network finds no number to read there (no cube, a blank face, a cube off the middle).

    A top-down patch (the pipeline cuts it from the camera frame through the board's
    homography) shows the face as a square whatever the camera's slant, the side faces the
    camera sees beside it. The cube-face network (``model``, None: the one pibg ships) was
    trained on such patches drawn at random (``scripts/cube_net/synth.py``: any colours, the
    figures in :data:`TRAINED_FONTS` bent and reweighted, turned any way, side faces with
    their own figures lit up to as brightly as the top, shadows, glare, blur, noise, JPEG),
    no render or photo among them: it reads the number as a whole, where matching its ink
    digit by digit with drawn templates (which it replaced) cut a 64 blurred into one blot
    or read a side face's figure.

    :raises VisionError: the network's file is missing or broken.
    """
    p = net_probabilities(patch, CUBE_MODEL if model is None else model)
    ranked = np.argsort(p)[::-1]
    best = int(ranked[0])
    if best >= len(CUBE_FACES):
        return None, 0.0
    return CUBE_FACES[best], float(min(1.0, 0.5 + p[best] - p[int(ranked[1])]))


def net_input(batch: Array) -> Array:
    """Patches (N, s, s, 3) uint8 -> the cube-face network's input (N, 3, NET_INPUT,
    NET_INPUT) float32 (:func:`~pibg.vision.onnx.standardised`)."""
    return standardised(batch, NET_INPUT)


def net_probabilities(patch: Array, model: Path = CUBE_MODEL) -> Array:
    """The cube-face network's probabilities for ``patch`` (square, BGR or grey, the cube
    near its middle): one for each of :data:`CUBE_FACES`, then one for "no number to read";
    the mean over the patch's four quarter turns (the network was trained on cubes turned
    any way; the four readings' mean steadies it)."""
    bgr = np.asarray(patch if patch.ndim == 3 else cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR))
    x = net_input(bgr[None])
    turns = np.ascontiguousarray(np.concatenate([np.rot90(x, k, (2, 3)) for k in range(4)]))
    net = load_onnx(str(model), _NET_WHAT, "scripts/cube_net/train.py")
    scores = forward(net, turns, len(CUBE_FACES) + 1, _NET_WHAT, str(model))
    return np.asarray(probabilities(scores).mean(0))
