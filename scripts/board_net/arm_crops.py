"""Cut the checker-place crops a bare arm covers out of rendered frames, and crops of the same
frames far from it: the test fixtures ``tests/data/vision/bare_arm_under.png`` and
``bare_arm_clear.png``.

    python scripts/board_net/arm_crops.py OUT_PREFIX SETUP_DIR:NAME:FRAME [...]
    python scripts/board_net/arm_crops.py tests/data/vision/bare_arm \\
        ~/render/fifteenth:rnh0:11 ~/render/eighteenth:rnk3:08 \\
        ~/render/seventeenth:rnj1:04 ~/render/nineteenth:rnl3:01

Each set-up is calibrated from its start frame's labelled corners (as ``extract.py`` does) and
the frame seen through that calibration. The renders label where the hand is, not what it
covers, so the places are told by the skin's colour, not by any network: a place is under the
arm when nearly all of its middle (a disc half a checker across) is skin (hue 0 to 25 of
OpenCV's 180, saturation 40 to 200, value 90 or more, as the renders' bare arms are), and far
from it when no skin lies within a checker and a half of it (checkers and empty points
alike; every third one kept).

Each crop is what the network reads at the place (``place_net.tiles``), laid side by side
``ROW`` to a row:
``place_net.read`` of the image at the tiles' centres, with a checker ``INPUT / READ_SPAN``
pixels across (the scale 1), reads them as it read the frame.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pibg.vision.pipeline import Vision
from pibg.vision.place_net import INPUT, tiles

SKIN_LO, SKIN_HI = (0, 40, 90), (25, 200, 255)
UNDER, FAR = 0.9, 1.5
ROW = 10


def cut(folder: Path, name: str, frame: str) -> tuple[np.ndarray, np.ndarray]:
    start = folder / f"{name}_00_start.jpg"
    corners = json.loads(start.with_suffix(".json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(cv2.imread(str(start)), np.asarray(corners, float))
    canon = vision.canonical(cv2.imread(str(folder / f"{name}_{frame}.jpg")))
    skin = cv2.inRange(cv2.cvtColor(canon, cv2.COLOR_BGR2HSV), SKIN_LO, SKIN_HI) > 0
    px = vision.layout.checker_px
    yy, xx = np.mgrid[0:skin.shape[0], 0:skin.shape[1]]
    places = vision._slots.reshape(-1, 2)
    under, far = [], []
    for x, y in places:
        d = np.hypot(xx - x, yy - y)
        middle = skin[d < px / 4]
        under.append(middle.size > 0 and middle.mean() >= UNDER)
        far.append(not skin[d < FAR * px].any())
    cut = tiles(canon, places, px)
    return cut[np.asarray(under)], cut[np.asarray(far)][::3]


def mosaic(batch: np.ndarray) -> np.ndarray:
    """``batch`` (N, INPUT, INPUT, 3) side by side, ``ROW`` to a row, black after the last."""
    rows = -(-len(batch) // ROW)
    out = np.zeros((rows * INPUT, ROW * INPUT, 3), np.uint8)
    for i, t in enumerate(batch):
        out[(i // ROW) * INPUT:(i // ROW + 1) * INPUT, (i % ROW) * INPUT:(i % ROW + 1) * INPUT] = t
    return out


def main() -> int:
    arm, clear = [], []
    for spec in sys.argv[2:]:
        folder, name, frame = spec.split(":")
        a, c = cut(Path(folder), name, frame)
        print(f"{name}_{frame}: {len(a)} places under the arm, {len(c)} far from it kept",
              file=sys.stderr)
        arm.append(a)
        clear.append(c)
    cv2.imwrite(f"{sys.argv[1]}_under.png", mosaic(np.concatenate(arm)))
    cv2.imwrite(f"{sys.argv[1]}_clear.png", mosaic(np.concatenate(clear)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
