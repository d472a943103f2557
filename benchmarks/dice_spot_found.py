"""How well the dice-finding network (``pibg/vision/dice_spot.py``) finds the dice of
rendered set-ups read as a user meets them (calibrated from the start frame with the
corners the board finder finds, as ``leave_one_out.py`` does). It was trained on drawn boards
only: every render here is unseen by it.

    python benchmarks/dice_spot_found.py [--random-dir DIR ...] [--shared ../shared]
                                         [--model PATH]

Columns, by set: frames with labelled dice in view (no hand); flat dice, and how many the
network finds (a place it names, at the likelihood heading the column or more, within 7 view
pixels of the die's top face: half a die's edge); then the places it names at that
likelihood that are no die's, a frame (anywhere on the view: on checkers and the frame too,
which the dice stage's mask leaves out; each place is read by the die-face network before
any die is reported); last the leaning dice it finds as flat at the shipped likelihood
(``DiceConfig.spot_sure``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_misses import dice_frames, places

from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_spot import MODEL, spots

#: Likelihoods the finds are counted at; how near (view pixels) a find must lie to a die.
LEVELS = (0.2, 0.3, 0.5)
NEAR = 7.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    ap.add_argument("--model", type=Path, default=MODEL)
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no renders under {args.shared}: give --shared", file=sys.stderr)
        return 2
    table: dict[str, Counter[str]] = {}
    for group, vision, path, gt, dice in dice_frames(args.shared, args.random_dir, cocked=True):
        tally = table.setdefault(group, Counter())
        tally["frames"] += 1
        view = vision.canonical(cv2.imread(str(path)))
        found = spots(view, min(LEVELS), args.model)
        _, _, at = places(vision, gt, dice)
        for level in LEVELS:
            here = [(x, y) for x, y, p in found if p >= level]
            near_die = set()
            for d, (vx, vy) in zip(dice, at, strict=True):
                hits = {k for k, (x, y) in enumerate(here) if math.hypot(x - vx, y - vy) <= NEAR}
                near_die |= hits
                if not d["cocked"]:
                    tally[f"found at {level}"] += bool(hits)
            tally[f"no die at {level}"] += len(here) - len(near_die)
        for d, (vx, vy) in zip(dice, at, strict=True):
            tally["flat dice" if not d["cocked"] else "leaning dice"] += 1
            if d["cocked"]:
                tally["leaning found"] += any(
                    math.hypot(x - vx, y - vy) <= NEAR
                    for x, y, p in found if p >= DEFAULT_CONFIG.spot_sure)
    cols = ["frames", "flat dice", *(f"found at {v}" for v in LEVELS),
            *(f"no die at {v}" for v in LEVELS), "leaning dice", "leaning found"]
    print("| set | " + " | ".join(c if not c.startswith("no die") else c + ", a frame"
                                   for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    total: Counter[str] = Counter()
    for group, t in [*table.items(), ("all", total)]:
        if group != "all":
            total.update(t)
        cells = [f"{t[c] / max(t['frames'], 1):.2f}" if c.startswith("no die") else str(t[c])
                 for c in cols]
        print(f"| {group} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
