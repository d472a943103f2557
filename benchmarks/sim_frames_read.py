"""One golden match's pibg.sim frames read by the vision alone, each against its scene.

``replay_sim_vision.py`` says whether a match's record comes out right; this says, for one
match, what the vision read in each frame it was given: every frame whose point counts or
flat dice differ from the scene's, every frame refused, and with ``--doubt`` every count
read less sure than that (its two likeliest counts). The frames are the replay's own (the
same table script, mishaps and seed as ``replay_sim_vision.py --first N``), read by a
:class:`~pibg.vision.pipeline.Vision` calibrated on the first, as the replay does.

    python benchmarks/sim_frames_read.py --first 3 [--style walnut] [--doubt 0.9]
                                         [--place-model PATH]

``--place-model`` reads with another checker-place network (an older one:
``git show REV:pibg/data/place_net.onnx > old.onnx``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pibg
sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_sim_vision import GOLDEN

from pibg.app import open_replay_source
from pibg.driver import Held
from pibg.script import Mishaps
from pibg.vision.geometry import VisionConfig
from pibg.vision.pipeline import Vision


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", type=int, required=True,
                    help="the match: how many golden matches come before it")
    ap.add_argument("--style", default="walnut", choices=["walnut", "tournament", "oak"])
    ap.add_argument("--doubt", type=float, default=0.0,
                    help="also list counts read less sure than this")
    ap.add_argument("--place-model", default="", help="a checker-place network's file")
    args = ap.parse_args()
    files = sorted(GOLDEN.glob("*.mat"))
    if args.first >= len(files):
        print("needs ../shared/golden/matches (not in a user's clone)", file=sys.stderr)
        return 2
    mishaps = Mishaps(illegal=0.05, hand=0.1, bump=0.03, cocked=0.03, seed=args.first)
    src, _, corners = open_replay_source(f"sim:{files[args.first]}", style=args.style,
                                         mishaps=mishaps)
    config = dataclasses.replace(VisionConfig(), place_model=args.place_model)
    vision = None
    frames = wrong = 0
    print(f"{files[args.first].name}, style {args.style}")
    for held in src:
        if not isinstance(held, Held) or held.truth is None:
            continue
        scene = held.truth
        vision = vision or Vision.from_start_frame(held.image, corners, config=config)
        obs = vision.observe(held.image)
        frames += 1
        if scene.hand:
            continue
        if not obs.readable:
            print(f"  {held.name}: refused: {obs.reason}")
            wrong += 1
            continue
        notes = [f"point {p + 1} {scene.points[p]} read {r.count}"
                 for p, r in enumerate(obs.points) if r.count != scene.points[p]]
        if scene.dice and not scene.cocked:
            dice = sorted((d.value, d.flat) for d in obs.dice)
            if dice != sorted((v, True) for v in scene.dice):
                notes.append(f"dice {scene.dice} read {dice}")
        wrong += bool(notes)
        notes += [f"point {p + 1} read " + ", ".join(f"{c} at {q:.2f}"
                                                     for c, q in r.likelihoods[:2])
                  for p, r in enumerate(obs.points) if r.confidence < args.doubt]
        if notes:
            print(f"  {held.name} ({scene.kind}): " + "; ".join(notes))
    print(f"{frames} frames, {wrong} read otherwise than their scene (hands left out)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
