"""How far the dice stage's finding falls short of its reading: for every labelled die on
rendered set-ups read as a user meets them (calibrated from the start frame with the corners
the board finder finds, as ``leave_one_out.py`` does), what the stage reads, and what the
die-face network pibg ships reads on a crop centred on the die's true centre (its likeliest
value, at the likeliest of the die sizes the stage looks for).

    python benchmarks/dice_net_at_truth.py [--random-dir DIR ...] [--shared ../shared]

Columns, by set: flat dice (labelled, not cocked, not hidden, no hand in the frame); read
right by the stage (value, flat, within half a point); the network's likeliest value right
at the true centre, at any likelihood and at ``--sure`` (0.8) or more, and wrong at that
likelihood; then the cocked dice and how many of them the network reads as a value at
``--sure`` or more (it was trained to call a leaning die "no die face", so this says
whether it can tell flat from cocked on these renders); last, the most room any cocked die
has round its true centre, in edges of the smallest die the stage looks for (the distance
to the nearest thing the stage's mask leaves out: the checkers counted in that frame, the
frame, the bar): a die with more room than ``DiceConfig.open_room`` is taken to lie flat.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_misses import dice_frames, net_best, places

from pibg.vision import dice_find

COLUMNS = ("flat dice", "read right", "net right", "net right, sure", "net wrong, sure",
           "cocked dice", "cocked, net sure")


def _watch_runs(stage: Any) -> list[Any]:
    """The checkers counted on the points (``DiceStage.read``'s ``run``) each time ``stage``
    reads dice from now on (the stage's own ``read``, watched, not changed)."""
    runs: list[Any] = []
    read = type(stage).read

    def watched(canon: Any, frame: Any, run: Any, *args: Any, **kwargs: Any) -> Any:
        runs.append(run)
        return read(stage, canon, frame, run, *args, **kwargs)

    stage.read = watched
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    ap.add_argument("--sure", type=float, default=0.8)
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no renders under {args.shared}: give --shared", file=sys.stderr)
        return 2
    table: dict[str, Counter[str]] = {}
    most: dict[str, float] = {}  # the most room round a cocked die, in die edges
    for group, vision, path, gt, dice in dice_frames(args.shared, args.random_dir, cocked=True):
        tally = table.setdefault(group, Counter())
        image = cv2.imread(str(path))
        stage = vision._dice_stage
        runs = _watch_runs(stage)
        obs = vision.observe(image)
        crop, sizes = stage.frame_crop(image), stage.die_sizes()
        reach, where, view = places(vision, gt, dice)
        for d, (px, py), (vx, vy) in zip(dice, where, view, strict=True):
            best = net_best(crop, sizes, vx, vy)
            sure = best[0] >= args.sure
            if d["cocked"]:
                tally["cocked dice"] += 1
                tally["cocked, net sure"] += sure
                if runs:  # the checkers counted, as the stage had them
                    room = dice_find._room(stage.mask(runs[-1]))(vx, vy) / min(sizes)
                    most[group] = max(most.get(group, 0.0), room)
                continue
            hits = [r for r in obs.dice if math.hypot(r.x - px, r.y - py) < reach]
            tally["flat dice"] += 1
            tally["read right"] += bool(obs.readable and hits and hits[0].flat
                                        and hits[0].value == d["value"])
            right = best[1] == d["value"]
            tally["net right"] += right
            tally["net right, sure"] += right and sure
            tally["net wrong, sure"] += (not right) and sure
    print("| set | " + " | ".join(COLUMNS) + " | cocked, most room |")
    print("|---|" + "---|" * (len(COLUMNS) + 1))
    total: Counter[str] = Counter()
    for group, t in table.items():
        total.update(t)
        print(f"| {group} | " + " | ".join(str(t[c]) for c in COLUMNS)
              + f" | {most.get(group, 0.0):.2f} |")
    print("| all | " + " | ".join(str(total[c]) for c in COLUMNS)
          + f" | {max(most.values(), default=0.0):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
