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
whether it can tell flat from cocked on these renders).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from leave_one_out import calibrate_as_user, setups

from pibg.vision import dice_find
from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_net import NO_DIE
from pibg.vision.geometry import VisionConfig

COLUMNS = ("flat dice", "read right", "net right", "net right, sure", "net wrong, sure",
           "cocked dice", "cocked, net sure")


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
    for _name, start, frames, group in setups(args.shared, args.random_dir):
        vision = calibrate_as_user(str(start), VisionConfig()).vision
        if vision is None:
            continue
        tally = table.setdefault(group, Counter())
        for path in frames:
            lab = json.loads(path.with_suffix(".json").read_text())
            gt = lab["gt"]
            dice = [d for d in gt["dice"] if not d.get("occluded")]
            if not dice or lab["spec"].get("hand"):
                continue
            image = cv2.imread(str(path))
            obs = vision.observe(image)
            stage = vision._dice_stage
            crop, sizes = stage.frame_crop(image), stage.die_sizes()
            reach = 0.5 * float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
            where = np.asarray([d["top_center"] for d in dice], np.float64).reshape(-1, 1, 2)
            view = cv2.perspectiveTransform(where, vision._h).reshape(-1, 2)
            for d, (px, py), (vx, vy) in zip(dice, where.reshape(-1, 2), view, strict=True):
                best = (0.0, 0)
                for size in sizes:
                    _, p = dice_find._net_read(crop, vx, vy, size, DEFAULT_CONFIG)
                    v = int(np.argmax(p[:NO_DIE]))
                    best = max(best, (float(p[v]), v + 1))
                sure = best[0] >= args.sure
                if d["cocked"]:
                    tally["cocked dice"] += 1
                    tally["cocked, net sure"] += sure
                    continue
                hits = [r for r in obs.dice if math.hypot(r.x - px, r.y - py) < reach]
                tally["flat dice"] += 1
                tally["read right"] += bool(obs.readable and hits and hits[0].flat
                                            and hits[0].value == d["value"])
                right = best[1] == d["value"]
                tally["net right"] += right
                tally["net right, sure"] += right and sure
                tally["net wrong, sure"] += (not right) and sure
    print("| set | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    total: Counter[str] = Counter()
    for group, t in table.items():
        total.update(t)
        print(f"| {group} | " + " | ".join(str(t[c]) for c in COLUMNS) + " |")
    print("| all | " + " | ".join(str(total[c]) for c in COLUMNS) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
