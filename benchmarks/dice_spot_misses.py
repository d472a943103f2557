"""The flat dice the dice stage misses, seen from the dice-finding network: for each, where
the network names a place near it, and what the die-face network reads there at each die size
the stage looks for (read where the place is, and as the rescue reads it: centred on the
face it finds there, the reads round it averaged), beside what it reads at the true top-face
centre at the likeliest size. Set-ups read as a user meets them (``leave_one_out.py``'s
calibration), by the networks pibg ships.

    python benchmarks/dice_spot_misses.py [--random-dir DIR ...] [--shared ../shared]

One line a miss, then a count: misses with a place named within ``NEAR`` view pixels (at
0.2 or more), and those whose place lies a third of an edge or more (4 view pixels) off the
top face's centre.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_misses import dice_frames, net_best, places

from pibg.vision import dice_find, dice_spot
from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_net import NO_DIE

NEAR, OFF = 8.0, 4.0


def _read(p: np.ndarray) -> str:
    b = int(np.argmax(p))
    return f"{b + 1 if b < NO_DIE else '-'}@{p[b]:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no renders under {args.shared}: give --shared", file=sys.stderr)
        return 2
    misses = named = off = 0
    for _group, vision, path, gt, dice in dice_frames(args.shared, args.random_dir):
        image = cv2.imread(str(path))
        stage = vision._dice_stage
        obs = vision.observe(image)
        reach, where, view = places(vision, gt, dice)
        found = dice_spot.spots(vision.canonical(image), 0.2)
        crop, sizes = stage.frame_crop(image), stage.die_sizes()
        for d, (px, py), (vx, vy) in zip(dice, where, view, strict=True):
            hits = [r for r in obs.dice if math.hypot(r.x - px, r.y - py) < reach]
            if obs.readable and hits and hits[0].flat and hits[0].value == d["value"]:
                continue
            misses += 1
            p, v = net_best(crop, sizes, vx, vy)
            line = f"{path.stem}: flat {d['value']}, at its centre {v}@{p:.2f};"
            near = sorted((math.hypot(x - vx, y - vy), x, y, h) for x, y, h in found)
            if not near or near[0][0] > NEAR:
                print(line + " no place named", flush=True)
                continue
            dist, x, y, h = near[0]
            named += 1
            off += dist >= OFF
            line += f" place {dist:.1f} px off, {h:.2f}:"
            for size in sizes:
                _, at = dice_find._net_read(crop, x, y, size, DEFAULT_CONFIG)
                _, _, _, rescued = dice_find._rescue_read(crop, x, y, size, DEFAULT_CONFIG)
                line += f" edge {size:.0f} there {_read(at)}, as rescued {_read(rescued)};"
            print(line, flush=True)
    print(f"{misses} misses: {named} with a place named within {NEAR:.0f} px, {off} of them "
          f"{OFF:.0f} px or more off the top face's centre")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
