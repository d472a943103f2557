"""A simple doubling-cube detector on the canonical view.

The cube lies on the bar: in the middle when nobody owns it, at the end on its owner's side
once doubled and taken. The calibration frame (starting position) shows it in the middle, so
its face colour there is learnt against the empty bar beside it. A frame is read by asking at
which of the three places something stands out from the bar round it the way the cube did
(a ratio, so the light may change), and is narrower than the bar (a checker is not).

The face value is not read from the digits yet: a centred cube is reported as 1 (its 64 face
up), an owned one as 2 with low confidence.
"""

from __future__ import annotations

import cv2
import numpy as np

from pibg.observation import CubeRead, Owner
from pibg.vision.geometry import Array, Layout, VisionConfig

_OWNERS: tuple[Owner, Owner, Owner] = ("center", "white", "black")


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
           bar_centre: Array | None = None, integral: Array | None = None
           ) -> list[tuple[float, tuple[float, float]]]:
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
    for owner in _OWNERS:
        x, y = places[owner]
        ys = np.clip(y + dys, top, bottom)
        xs = np.full_like(ys, x)
        inner = _face_boxes(layout, img, x, ys)
        beside = (_box_means(ii, xs - side, ys, r_side) + _box_means(ii, xs + side, ys, r_side)) / 2
        worst = llr(inner, beside)
        for sgn in along[owner]:
            worst = np.minimum(worst, llr(inner, _box_means(ii, xs, ys + sgn * 0.45 * u, r_side)))
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
                 bar_centre: Array | None = None, integral: Array | None = None
                 ) -> tuple[CubeRead | None, tuple[float, float]]:
    """:func:`find_cube`, and where the cube was seen (canonical x, y)."""
    found = locate(cfg, layout, img, cube_bg, bar_centre, integral)
    scores = [sc for sc, _ in found]
    i = int(np.argmax(scores))
    at = found[i][1]
    if scores[i] < -cfg.cube_absent:
        return None, at
    owner = _OWNERS[i]
    s = np.asarray(scores)
    others = np.delete(s, i)
    margin = float(s[i] - max(others.max(), 0.0))
    conf = float(1.0 - np.exp(-max(margin, 0.0) / 10.0))
    if owner == "center":
        return CubeRead(1, owner, conf), at
    return CubeRead(2, owner, conf * 0.3), at


def read_cube_face(patch: Array) -> tuple[int | None, float]:
    """The number on the cube's top face in ``patch`` (BGR, the cube roughly centred and
    filling about half of it): 2, 4, 8, 16, 32 or 64, or None if unreadable.

    Dark digits on a light face (or light on dark) are told apart by their count, their holes
    and their shape, which do not change when the cube is turned: 2 (one thin glyph, no hole),
    4 (one compact glyph), 8 (two holes), 32 (two glyphs, no hole), 16 (a thin 1 and a 6),
    64 (a 6 and a 4, open or closed).
    """
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    big = cv2.resize(grey, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    h, w = big.shape
    # The face: the bright blob under the centre.
    _, face = cv2.threshold(big, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    _n, lab, _stats, _ = cv2.connectedComponentsWithStats(face)
    centre = lab[h // 2 - h // 8:h // 2 + h // 8, w // 2 - w // 8:w // 2 + w // 8]
    ids, counts = np.unique(centre[centre > 0], return_counts=True)
    if len(ids) == 0:
        return None, 0.0
    fid = int(ids[np.argmax(counts)])
    face_mask = (lab == fid).astype(np.uint8) * 255
    face_mask = cv2.morphologyEx(face_mask, cv2.MORPH_CLOSE, np.ones((25, 25), np.uint8))
    face_mask = cv2.erode(face_mask, np.ones((7, 7), np.uint8))
    inside = big[face_mask > 0]
    if inside.size < 200:
        return None, 0.0
    thr = float(np.percentile(inside, 92)) * 0.7
    ink0 = ((big < thr) & (face_mask > 0)).astype(np.uint8) * 255
    ink = cv2.morphologyEx(ink0, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, hier = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return None, 0.0
    area_face = float((face_mask > 0).sum())
    fy, fx = np.nonzero(face_mask)
    cx, cy = float(fx.mean()), float(fy.mean())
    side = float(np.sqrt(area_face))
    glyphs: list[tuple[int, float, float]] = []  # (holes, solidity, aspect)
    for i, c in enumerate(contours):
        if hier[0][i][3] != -1:
            continue
        a = cv2.contourArea(c)
        if a < area_face * 0.012:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        if np.hypot(x + bw / 2 - cx, y + bh / 2 - cy) > 0.33 * side or max(bw, bh) > 0.8 * side:
            continue
        holes = 0
        child = hier[0][i][2]
        while child != -1:
            if cv2.contourArea(contours[child]) > area_face * 0.0015:
                holes += 1
            child = hier[0][child][0]
        hull = float(cv2.contourArea(cv2.convexHull(c)))
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        glyphs.append((holes, a / max(hull, 1.0), min(rw, rh) / max(rw, rh, 1.0)))
    if not glyphs or len(glyphs) > 2:
        return None, 0.0
    holes = min(sum(g[0] for g in glyphs), 2)
    value: int | None
    if len(glyphs) == 1:
        # 2 is a thin stroke with deep bays; a 4 (open or closed, its bay blurred shut) is
        # compact; 8 has two holes.
        h, solid, _ = glyphs[0]
        value = {0: 4 if solid > 0.65 else 2, 1: 4, 2: 8}[holes]
    elif holes == 1:
        # 16 or 64 (a 4 printed open has no hole): the glyph without one is a thin 1 or a 4.
        plain = [g for g in glyphs if g[0] == 0]
        value = 16 if plain and plain[0][2] < 0.5 else 64
    else:
        value = {0: 32, 2: 64}[holes]
    return value, 0.8
