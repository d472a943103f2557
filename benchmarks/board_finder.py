"""How close the automatic board finder's corners come to the labelled ones, per start frame.

    python benchmarks/board_finder.py [--random-dir DIR] [--shared ../shared]

Every ``*_00_start.jpg`` of ``renders/dev``, ``renders/unseen`` and, with ``--random-dir``,
the frames rendered from ``benchmarks/random_boards/spec.json`` goes through
:func:`pibg.vision.calibrate.locate_board` (as ``pibg calibrate`` without ``--corners`` or
markers). Prints each corner's distance in pixels from ``gt.board_corners`` (TL, TR, BR, BL),
the seconds taken, or why no board was found.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from pibg.exc import BoardNotFoundError
from pibg.vision.calibrate import locate_board
from pibg.vision.geometry import VisionConfig


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, default=None,
                    help="the frames rendered from benchmarks/random_boards/spec.json")
    args = ap.parse_args()
    folders = [args.shared / "renders" / "dev", args.shared / "renders" / "unseen"]
    if args.random_dir is not None:
        folders.append(args.random_dir)
    starts = [p for f in folders if f.is_dir() for p in sorted(f.glob("*_00_start.jpg"))]
    if not starts:
        print(f"no start frames under {args.shared / 'renders'} (not in a user's clone)")
        return 0
    print("| start frame | corner error px (TL, TR, BR, BL) | worst | seconds |")
    print("|---|---|---|---|")
    worst = 0.0
    for p in starts:
        label = np.asarray(json.loads(p.with_suffix(".json").read_text())["gt"]["board_corners"])
        t0 = time.perf_counter()
        try:
            corners, _ = locate_board(VisionConfig(), cv2.imread(str(p)))
        except BoardNotFoundError as exc:
            print(f"| {p.stem} | not found: {exc} | | {time.perf_counter() - t0:.1f} |")
            worst = float("inf")
            continue
        err = np.linalg.norm(corners - label, axis=1)
        worst = max(worst, float(err.max()))
        print(f"| {p.stem} | {', '.join(f'{e:.1f}' for e in err)} | {err.max():.1f} | "
              f"{time.perf_counter() - t0:.1f} |")
    print(f"\nworst corner: {worst:.1f} px")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
