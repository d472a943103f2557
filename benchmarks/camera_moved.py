"""A camera knocked after calibration: each render set-up's frames read as it moved a little.

    python benchmarks/camera_moved.py [DIR ...]      # default ../shared/renders/{dev,unseen}

Each camera set-up (``SETUP_00_start.jpg`` and its frames, as in ``renders/dev``) is
calibrated from its start frame as a user would (``leave_one_out.calibrate_as_user``), then
its clean frames (no hand) are read with the whole camera frame shifted, turned or scaled
(what a knocked camera does), each move by a fresh reader. Prints, per move, how many frames
were read right (every point), refused (with the reason's start) and read wrong: a move the
reader follows reads as the unmoved frames do; one it cannot follow (farther than half a
point, or where the board's bar cannot tell a point over) is refused, and none is read wrong
for it.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leave_one_out import calibrate_as_user

from pibg.vision.geometry import VisionConfig
from pibg.vision.pipeline import Vision

SHARED = Path(__file__).resolve().parents[2] / "shared"

#: The moves: image pixels shifted (x, y), degrees turned and scale about the frame's centre.
MOVES: dict[str, tuple[float, float, float, float]] = {
    "none": (0, 0, 0, 1.0),
    "shifted 8 px": (8, 4, 0, 1.0),
    "shifted 20 px": (20, 10, 0, 1.0),
    "shifted 35 px": (-35, 15, 0, 1.0),
    "shifted 60 px": (-60, 0, 0, 1.0),
    "turned 2 degrees": (0, 0, 2, 1.0),
    "turned 4 degrees": (0, 0, 4, 1.0),
    "5 % nearer": (0, 0, 0, 1.05),
}


def _move(frame: np.ndarray, dx: float, dy: float, turn: float, scale: float) -> np.ndarray:
    h, w = frame.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, scale)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(frame, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path,
                    default=[SHARED / "renders/dev", SHARED / "renders/unseen"])
    args = ap.parse_args()
    frames: list[tuple[object, str, list[int]]] = []
    for folder in args.dirs:
        for start in sorted(glob.glob(str(folder / "*_00_start.jpg"))):
            setup = os.path.basename(start)[:-len("_00_start.jpg")]
            cal = calibrate_as_user(start, VisionConfig()).vision.calibration
            for f in sorted(glob.glob(str(folder / f"{setup}_[0-9][0-9].jpg"))):
                label = json.loads(Path(f[:-4] + ".json").read_text())
                if not label["gt"].get("hand"):
                    frames.append((cal, f, label["spec"]["points"]))
    if not frames:
        print(f"no render frames in {', '.join(map(str, args.dirs))}: skipped")
        return 0
    print(f"{len(frames)} clean frames of {len({id(c) for c, _, _ in frames})} set-ups\n")
    print("| move | read right | refused | read wrong | refused because |")
    print("|---|---|---|---|---|")
    for name, move in MOVES.items():
        right = wrong = 0
        why: Counter[str] = Counter()
        readers: dict[int, Vision] = {}
        for cal, f, truth in frames:
            vision = readers.setdefault(id(cal), Vision(cal))  # type: ignore[arg-type]
            obs = vision.observe(_move(cv2.imread(f), *move))
            if not obs.readable:
                why[(obs.reason or "")[:48]] += 1
            elif list(obs.signed_points()) == truth:
                right += 1
            else:
                wrong += 1
        refused = sum(why.values())
        reasons = "; ".join(f"{n} {r}..." for r, n in why.most_common(2))
        print(f"| {name} | {right} | {refused} | {wrong} | {reasons} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
