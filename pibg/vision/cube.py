"""A simple doubling-cube detector on the canonical view.

The cube lies on the bar: in the middle when nobody owns it, at the end on its owner's side
once doubled and taken. The calibration frame (starting position) shows it in the middle, so
its colour there is learnt, and the empty bar's colour at both ends. A frame is read by asking
which of the three places looks most like the cube and least like the empty bar.

The face value is not read from the digits yet: a centred cube is reported as 1 (its 64 face
up), an owned one as 2 with low confidence.
"""

from __future__ import annotations

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


def find_cube(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array, gain: Array
              ) -> CubeRead | None:
    """Where the cube lies, from the canonical image (float BGR).

    ``cube_bg`` (3, 3): BGR at centre (the cube itself at calibration), White's end and Black's
    end of the bar (empty at calibration); ``gain`` (3,) the frame's change of light.
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
            d_bar = float((((f - cube_bg[i]) / sig) ** 2).sum()) if i else 25.0
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
