"""Cut checker-place crops out of labelled renders, for training and measuring the place network.

    python scripts/board_net/extract.py OUT.npz FOLDER [FOLDER ...]

Each FOLDER holds camera set-ups as ``renders/dev`` does (``NAME_00_start.jpg`` to calibrate
from, then ``NAME_*.jpg`` with a ``.json`` label each) or one game (``*_000.jpg`` first). Every
set-up is calibrated from its start frame's labelled corners, as ``pibg calibrate --corners``
would, and every frame is seen through that calibration (never through its own label), so the
crops are misplaced as a fixed camera's jitter misplaces them. A place is "a checker" when a
labelled checker's centre falls within ``NEAR`` of a checker's width of it on the top-down view,
and "stacked" (``stack``) when one of a second layer's does.
Frames with a hand are left out. The crops are ``SIDE`` pixels covering ``SPAN`` checker widths,
more than the network reads, so training can shift and scale them.
"""

from __future__ import annotations

import glob
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pibg.exc import CalibrationError
from pibg.vision.pipeline import Vision
from pibg.vision.place_net import SIDE, SPAN, crops

NEAR = 0.45


def setups(folder: Path) -> list[tuple[str, list[str]]]:
    """(start frame, other frames) for each set-up in ``folder``."""
    out = []
    for start in sorted(glob.glob(str(folder / "*_00_start.jpg"))):
        name = Path(start).name.split("_")[0]
        rest = [f for f in sorted(glob.glob(str(folder / f"{name}_*.jpg"))) if f != start]
        out.append((start, rest))
    for start in sorted(glob.glob(str(folder / "*_000.jpg"))):
        rest = [f for f in sorted(glob.glob(str(Path(start).parent / "*.jpg"))) if f != start]
        out.append((start, rest))
    return out


def to_top(vision: Vision, pts: np.ndarray) -> np.ndarray:
    """Frame pixels -> the top-down view, through the lens model where the set-up has one."""
    if not len(pts):
        return np.zeros((0, 2))
    if vision._maps is None:
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), vision._h).reshape(-1, 2)
    m = np.asarray(vision._maps[0], np.float32)  # fixed-point maps: whole pixels suffice here
    mx, my = (m[..., 0], m[..., 1]) if m.ndim == 3 else (m, np.asarray(vision._maps[1]))
    out = []
    for x, y in pts:
        i = int(np.argmin((mx - x) ** 2 + (my - y) ** 2))
        out.append((i % mx.shape[1], i // mx.shape[1]))
    return np.asarray(out, np.float64)


def main() -> int:
    out, folders = sys.argv[1], [Path(f) for f in sys.argv[2:]]
    xs, ys, stacks, boards, frames = [], [], [], [], []
    for folder in folders:
        for start, rest in setups(folder):
            board = Path(start).name.split("_")[0]
            label = json.loads(Path(start[:-4] + ".json").read_text())["gt"]["board_corners"]
            try:
                vision = Vision.from_start_frame(cv2.imread(start), np.asarray(label, float))
            except CalibrationError as exc:
                print(f"{board}: left out, {exc}", file=sys.stderr)
                continue
            lay = vision.layout
            places = np.concatenate([vision._slots.reshape(-1, 2),
                                     vision._bar_slots.reshape(-1, 2)])
            n = 0
            for f in [start, *rest]:
                lab = json.loads(Path(f[:-4] + ".json").read_text())
                if lab["spec"].get("hand"):
                    continue
                canon = vision.canonical(cv2.imread(f))
                on = [c for c in lab["gt"]["checkers"] if not c.get("on_edge")]
                centres = np.asarray([c["center"] for c in on], np.float64).reshape(-1, 1, 2)
                upper = np.asarray([c.get("layer", 0) >= 1 for c in on], bool)
                top = to_top(vision, centres.reshape(-1, 2))
                d = np.hypot(places[:, None, 0] - top[None, :, 0],
                             places[:, None, 1] - top[None, :, 1])
                close = d < NEAR * lay.checker_px
                near = close.any(1) if len(top) else np.zeros(len(places), bool)
                stacked = (close & upper[None]).any(1) if len(top) else near
                xs.append(crops(canon, places, lay.checker_px))
                ys.append(near.astype(np.uint8))
                stacks.append(stacked.astype(np.uint8))
                boards += [board] * len(places)
                frames += [Path(f).stem] * len(places)
                n += 1
            print(f"{board}: {n} frames, {len(places)} places each", file=sys.stderr)
    np.savez_compressed(out, x=np.concatenate(xs), y=np.concatenate(ys),
                        stack=np.concatenate(stacks),
                        board=np.asarray(boards), frame=np.asarray(frames))
    print(f"{out}: {sum(len(y) for y in ys)} crops ({SIDE} px, {SPAN} checkers)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
