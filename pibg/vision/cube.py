"""A simple doubling-cube detector on the canonical view.

The cube lies on the bar: in the middle when nobody owns it, at the end on its owner's side
once doubled and taken. The calibration frame (starting position) shows it in the middle, so
its colour there is learnt, and the empty bar's colour at both ends. A frame is read by asking
which of the three places looks most like the cube and least like the empty bar.

The face value is not read from the digits yet: a centred cube is reported as 1 (its 64 face
up), an owned one as 2 with low confidence.
"""

from __future__ import annotations

import cv2
import numpy as np

from pibg.observation import CubeRead, Owner
from pibg.vision.board import to_lab
from pibg.vision.geometry import Array, Layout, VisionConfig

_OWNERS: tuple[Owner, Owner, Owner] = ("center", "white", "black")


def sample_box(lab: Array, x: float, y: float, r: int) -> Array:
    h, w = lab.shape[:2]
    xi = int(min(max(round(x), r), w - r - 1))
    yi = int(min(max(round(y), r), h - r - 1))
    return np.asarray(lab[yi - r:yi + r + 1, xi - r:xi + r + 1].reshape(-1, 3).mean(0),
                      np.float32)


def find_cube(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array, gain: Array,
              bar_centre: Array | None = None) -> CubeRead | None:
    """Where the cube lies, from the canonical image (float BGR).

    ``cube_bg`` (3, 3): BGR at centre (the cube itself at calibration), White's end and Black's
    end of the bar (empty at calibration); ``gain`` (3,) the frame's change of light;
    ``bar_centre`` (3,) BGR of the empty bar next to the middle (where the cube was).
    """
    lab = img
    cube_bg = to_lab(cube_bg)
    places = layout.cube_places()
    r = max(2, int(layout.checker_px * cfg.sample_radius * 0.6))
    cube_colour = cube_bg[0]
    sig = np.asarray(cfg.background_sigma, np.float32)
    scores = []
    for i, owner in enumerate(_OWNERS):
        x, y = places[owner]
        # Search a little along the bar: the cube is pushed, not placed on a mark.
        best = -1e9
        for dy in (-0.5, -0.25, 0.0, 0.25, 0.5):
            f = to_lab(sample_box(lab, x, y + dy * layout.u, r) / gain)
            d_cube = float((((f - cube_colour) / sig) ** 2).sum())
            empty = cube_bg[i] if i else (to_lab(bar_centre) if bar_centre is not None
                                          else None)
            d_bar = float((((f - empty) / sig) ** 2).sum()) if empty is not None else 25.0
            best = max(best, d_bar - d_cube)
        scores.append(best)
    i = int(np.argmax(scores))
    if scores[i] <= 0:
        return None
    owner = _OWNERS[i]
    s = np.asarray(scores)
    others = np.delete(s, i)
    margin = float(s[i] - max(others.max(), 0.0))
    conf = float(1.0 - np.exp(-max(margin, 0.0) / 10.0))
    if owner == "center":
        return CubeRead(1, owner, conf)
    return CubeRead(2, owner, conf * 0.3)


def read_cube_face(patch: Array) -> tuple[int | None, float]:
    """The number on the cube's top face in ``patch`` (BGR, the cube roughly centred and
    filling about half of it): 2, 4, 8, 16, 32 or 64, or None if unreadable.

    Dark digits on a light face (or light on dark) are told apart by their count and their
    holes, which do not change when the cube is turned: 2 (one glyph, no hole), 4 (one hole),
    8 (two holes), 32 (two glyphs, no hole), 16 (one hole), 64 (two holes).
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
    glyphs: list[tuple[float, int]] = []  # (area, holes)
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
        glyphs.append((a, holes))
    if not glyphs or len(glyphs) > 2:
        return None, 0.0
    holes = sum(g[1] for g in glyphs)
    table = {(1, 0): 2, (1, 1): 4, (1, 2): 8, (2, 0): 32, (2, 1): 16, (2, 2): 64}
    value = table.get((len(glyphs), min(holes, 2)))
    return value, 0.8 if value else 0.0
