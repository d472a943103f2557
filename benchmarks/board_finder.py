"""How close the automatic board finder's corners come to the labelled ones, per start frame.

    python benchmarks/board_finder.py [--random-dir DIR ...] [--shared ../shared] [--layouts]

Every ``*_00_start.jpg`` of ``renders/dev``, ``renders/unseen`` and, with ``--random-dir``,
the frames rendered from a spec of ``benchmarks/random_boards`` goes through
:func:`pibg.vision.calibrate.locate_board` (as ``pibg calibrate`` without ``--corners`` or
markers). Prints each corner's distance in pixels from ``gt.board_corners`` (TL, TR, BR, BL),
the seconds taken, or why no board was found.

``--layouts`` prints instead every starting-position layout the finder fits to the circles
it finds that matches 20 or more of them: how many, the board profile, its worst corner's
distance from the labelled one, and the share of the points' places where the place network
sees a checker exactly where the starting position has one (the finder's last resort takes
a layout only where that share is 1, with White's home on any side).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from pibg.exc import BoardNotFoundError
from pibg.vision import calibrate as K
from pibg.vision.calibrate import locate_board
from pibg.vision.geometry import PROFILES, Layout, VisionConfig


def layouts(p: Path, label: np.ndarray, cfg: VisionConfig) -> None:
    """Every layout fitted to ``p``'s circles matching 20 or more, best first."""
    image = cv2.imread(str(p))
    rows = set()
    for band in cfg.start_radius_bands:
        for strong, votes in cfg.start_circles:
            circles = K._checker_circles(image, strong, votes, band)
            if circles is None:
                continue
            for name, prof in PROFILES.items():
                for mirrored in (False, True):
                    for complete in (False, True):
                        fit = K._fit_start_layout(circles, Layout(prof), mirrored, complete)
                        if fit is None or fit[0] < 20:
                            continue
                        err = float(np.linalg.norm(fit[1] - label, axis=1).max())
                        rows.add((fit[0], name, round(err, 1),
                                  round(K.start_seen_share(image, fit[1], Layout(prof)), 3)))
    for count, name, err, share in sorted(rows, reverse=True):
        print(f"| {p.stem} | {count} | {name} | {err:.1f} | {share:.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[],
                    help="frames rendered from a spec of benchmarks/random_boards; again for each")
    ap.add_argument("--layouts", action="store_true",
                    help="every layout fitted, with the share of places the network sees as "
                         "the starting position")
    args = ap.parse_args()
    folders = [args.shared / "renders" / "dev", args.shared / "renders" / "unseen",
               *args.random_dir]
    starts = [p for f in folders if f.is_dir() for p in sorted(f.glob("*_00_start.jpg"))]
    if not starts:
        print(f"no start frames under {args.shared / 'renders'} (not in a user's clone)")
        return 0
    if args.layouts:
        print("| start frame | circles matched | profile | worst corner px | places seen as "
              "the start |")
        print("|---|---|---|---|---|")
        for p in starts:
            label = np.asarray(json.loads(p.with_suffix(".json").read_text())["gt"]
                               ["board_corners"])
            layouts(p, label, VisionConfig())
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
