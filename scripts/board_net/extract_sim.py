"""Cut checker-place crops out of boards drawn by ``pibg.sim``, for training the place network.

    python scripts/board_net/extract_sim.py OUT.npz [--frames 240] [--seed 5]

Random positions (each colour's 15 checkers spread over one to seven points, some on the bar,
some borne off), with dice now and then, on each of pibg.sim's board styles, under random
light, camera shake and view; each style calibrated from its own start frame. The drawn
boards are what ``pibg demo``, the tests and ``benchmarks/replay_sim_vision.py`` read; the
place network also learns their flat drawn checkers from them. The crops and labels are as
``extract.py`` makes them (a checker at a place when the scene's count on its point reaches
it; the bar's places likewise). A third of the frames are drawn again with pibg.sim's hand and
arm over the board: the places whose middle the hand changes are "something over the place".
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import get_args

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pibg.sim import SimScene, Style, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import Vision
from pibg.vision.place_net import SIDE, crops

#: The share of frames drawn with a hand over the board, and the class of a place it covers.
HANDS, ARM = 0.3, 2


def position(rng: np.random.Generator) -> tuple[list[int], tuple[int, int], tuple[int, int]]:
    points = [0] * 24
    free = list(range(24))
    bar, off = [0, 0], [0, 0]
    for c, sign in ((0, 1), (1, -1)):
        off[c] = int(rng.choice([0, 0, 0, 1, 3, 6]))
        bar[c] = int(rng.choice([0, 0, 0, 0, 1, 2]))
        left = 15 - off[c] - bar[c]
        n = int(rng.integers(1, 8))
        where = rng.choice(free, size=min(n, len(free)), replace=False)
        share = rng.multinomial(left - len(where), np.ones(len(where)) / len(where)) + 1
        for p, k in zip(where, share, strict=True):
            points[int(p)] = sign * int(k)
            free.remove(int(p))
    return points, (bar[0], bar[1]), (off[0], off[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=240, help="frames per board style")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    xs, ys, boards, frames = [], [], [], []
    for style in get_args(Style):
        start = render(SimScene(START_POINTS, style=style, seed=int(rng.integers(1 << 30))))
        vision = Vision.from_start_frame(start, sim_corners())
        slots, bar_slots = vision._slots, vision._bar_slots
        places = np.concatenate([slots.reshape(-1, 2), bar_slots.reshape(-1, 2)])
        k, kb = slots.shape[1], bar_slots.shape[1]
        for i in range(args.frames):
            pts, bar, off = position(rng)
            dice = (tuple(int(d) for d in rng.integers(1, 7, 2)) if rng.random() < 0.6
                    else None)
            scene = SimScene(pts, bar=bar, off=off, dice=dice,  # type: ignore[arg-type]
                             style=style, seed=int(rng.integers(1 << 30)),
                             light=float(rng.uniform(0.6, 1.3)), view=int(rng.integers(4)))
            canon = vision.canonical(render(scene))
            counts = np.abs(np.asarray(pts))
            on_points = (np.arange(k)[None, :] < counts[:, None]).reshape(-1)
            on_bar = np.concatenate([np.arange(kb) < bar[0], np.arange(kb) < bar[1]])
            label = np.concatenate([on_points, on_bar]).astype(np.uint8)
            if rng.random() < HANDS:
                # the same scene with the hand: where its crops differ, the arm covers them
                hand = vision.canonical(render(dataclasses.replace(scene, hand=True)))
                got, clean = (crops(c, places, vision.layout.checker_px) for c in (hand, canon))
                mid = slice(SIDE // 2 - 6, SIDE // 2 + 6)
                moved = np.abs(got[:, mid, mid].astype(np.int16) - clean[:, mid, mid]).mean(
                    axis=(1, 2, 3))
                label = np.where(moved > 25, ARM, label).astype(np.uint8)
                canon = hand
            xs.append(crops(canon, places, vision.layout.checker_px))
            ys.append(label)
            boards += [f"sim-{style}"] * len(places)
            frames += [f"sim-{style}-{i}"] * len(places)
        print(f"sim-{style}: {args.frames} frames", file=sys.stderr)
    np.savez_compressed(args.out, x=np.concatenate(xs), y=np.concatenate(ys),
                        board=np.asarray(boards), frame=np.asarray(frames))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
