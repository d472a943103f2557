"""Trays: each half's pile counted from the top-down view, against the labels, per set.

    python benchmarks/tray_accuracy.py [--random-dir DIR ...] [-v]

Every clean frame of ``renders/dev``, ``renders/unseen``, the game and each ``--random-dir``
(frames rendered from a spec in ``benchmarks/random_boards``), calibrated from its set-up's
start frame as ``leave_one_out.py`` does (the board finder's corners, the labelled ones where
it finds none). Each tray half is counted alone (``board.tray_count``, the estimate the whole
board's reading then weighs against the rule of 15), rounded, and scored: empty trays read
empty, piles read to the checker, off by one, worse, and the mean signed error of the piles.
Beside it, the pile's rims counted one by one (``board.tray_slabs``, which the reading uses to
tell a pile's length that cannot be trusted, and whose count it then weighs beside the length's):
piles whose rims were counted, counted right, counted to within one, and empty trays where
rims were seen. The checkers' networks play no part (the trays are read by
their edges and brightness alone).
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from leave_one_out import calibrate_as_user, setups, shared_args

from pibg.vision import board as B
from pibg.vision.geometry import VisionConfig

Row = tuple[str, str, int, float, int]


def measure(job: tuple[str, str, list[str]]) -> list[Row]:
    """(frame, colour, label, estimate, rims counted) for both tray halves of each clean frame
    of a set-up."""
    _, start, frames = job
    cv2.setNumThreads(1)
    cfg = VisionConfig(place_model=None)
    vision = calibrate_as_user(start, cfg).vision
    if vision is None:
        return []
    base = B.tray_floor(vision.calibration.tray_bg)
    out = []
    for f in frames:
        spec = json.loads(Path(f).with_suffix(".json").read_text())["spec"]
        if spec.get("hand"):
            continue
        canon = vision.canonical(cv2.imread(f))
        _, scale = B.edge_map(cfg, canon)
        for i, colour in enumerate(("white", "black")):
            white = colour == "white"
            est = B.tray_count(cfg, vision.layout, canon, base[i], white, scale).est
            rims = B.tray_slabs(cfg, vision.layout, canon, white, scale)
            out.append((Path(f).stem, colour, int((spec.get("off") or {}).get(colour, 0)), est,
                        rims))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    shared_args(ap)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every tray read wrong")
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no data at {args.shared}: nothing to measure")
        return 0
    found = setups(args.shared, args.random_dir)
    jobs = [(name, str(start), [str(f) for f in frames]) for name, start, frames, _ in found]
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        reads = list(pool.map(measure, jobs))
    groups: dict[str, list[Row]] = {}
    for (_, _, _, group), rows in zip(found, reads, strict=True):
        groups.setdefault(group, []).extend(rows)
    print("| set | empty trays read empty | piles read to the checker | off by one | worse "
          "| mean error of the piles | piles' rims counted | counted right | within one "
          "| empty trays with rims |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for group, rows in groups.items():
        empty = [r for r in rows if r[2] == 0]
        piles = [r for r in rows if r[2] > 0]
        wrong = [round(r[3]) - r[2] for r in piles]
        mean = f"{np.mean([r[3] - r[2] for r in piles]):+.2f}" if piles else "-"
        print(f"| {group} | {sum(round(r[3]) == 0 for r in empty)} of {len(empty)} "
              f"| {wrong.count(0)} of {len(piles)} | {sum(abs(w) == 1 for w in wrong)} "
              f"| {sum(abs(w) > 1 for w in wrong)} | {mean} "
              f"| {sum(r[4] > 0 for r in piles)} | {sum(r[4] == r[2] for r in piles)} "
              f"| {sum(r[4] > 0 and abs(r[4] - r[2]) <= 1 for r in piles)} "
              f"| {sum(r[4] > 0 for r in empty)} |")
    if args.verbose:
        for rows in reads:
            for frame, colour, label, est, rims in rows:
                if round(est) != label or rims not in (0, label):
                    print(f"  {frame} {colour}: {label} read {est:.2f}, rims {rims}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
