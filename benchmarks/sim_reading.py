"""The vision stage on pibg.sim frames of golden matches, scene by scene: what it misreads.

Every settled scene a golden match's scripted table shows (``pibg.script.table_script``: the
same hands, bumps, illegal moves and cocked dice as ``replay_sim_vision.py``) is rendered by
``pibg.sim`` and read by ``Vision.observe`` against what the scene shows. Prints the count of
each kind of misreading and, with ``-v``, every one of them.

    python benchmarks/sim_reading.py [--matches 4] [--first 0] [--jobs 2] [-v]
"""

from __future__ import annotations

import argparse
import collections
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from pibg.app import Held, open_replay_source
from pibg.script import Mishaps
from pibg.vision.pipeline import Vision

GOLDEN = Path(__file__).resolve().parent.parent.parent / "shared" / "golden" / "matches"


def one(args: tuple[str, int]) -> tuple[str, int, list[tuple[str, str, str]]]:
    path, seed = args
    mishaps = Mishaps(illegal=0.05, hand=0.1, bump=0.03, cocked=0.03, seed=seed)
    src, _settings, corners = open_replay_source(f"sim:{path}", mishaps=mishaps)
    vision = None
    errors: list[tuple[str, str, str]] = []
    scenes = 0
    for held in src:
        if not isinstance(held, Held):
            continue
        t = held.truth
        if vision is None:
            vision = Vision.from_start_frame(held.image, corners)
        scenes += 1
        obs = vision.observe(held.image)
        if t.hand:
            if obs.readable and [r.count for r in obs.points] != list(t.points):
                errors.append((held.name, "hand read as a board", ""))
            continue
        if not obs.readable:
            errors.append((held.name, "unreadable", obs.reason or ""))
            continue
        for i, (got, want) in enumerate(zip((r.count for r in obs.points), t.points,
                                            strict=True)):
            if got != want:
                errors.append((held.name, "point", f"{i + 1}: {want} -> {got}"))
        for kind, got, want in (("bar", (obs.bar_white.count, obs.bar_black.count), t.bar),
                                ("tray", (obs.off_white.count, obs.off_black.count), t.off)):
            if got != tuple(want):
                errors.append((held.name, kind, f"{want} -> {got}"))
        flat = sorted(d.value for d in obs.dice if d.flat)
        if t.dice and t.cocked and len(flat) == 2:
            errors.append((held.name, "cocked die read flat", f"{t.dice} -> {flat}"))
        elif t.dice and not t.cocked and flat != sorted(t.dice):
            errors.append((held.name, "dice", f"{sorted(t.dice)} -> {flat}"))
        elif not t.dice and obs.dice:
            errors.append((held.name, "dice where none are", str([d.value for d in obs.dice])))
        if obs.cube is None or (obs.cube.value, obs.cube.owner) != (t.cube_value, t.cube_owner):
            seen = f"{obs.cube.value} {obs.cube.owner}" if obs.cube else "none"
            errors.append((held.name, "cube", f"{t.cube_value} {t.cube_owner} -> {seen}"))
    return Path(path).name, scenes, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--first", type=int, default=0, help="skip this many matches")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", action="store_true", help="list every misreading")
    args = ap.parse_args()
    files = sorted(GOLDEN.glob("*.mat"))[args.first: args.first + args.matches]
    if not files:
        print("needs ../shared/golden/matches (not in a user's clone)")
        return
    kinds: collections.Counter[str] = collections.Counter()
    total = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, scenes, errors in pool.map(one, [(str(p), args.first + i)
                                                   for i, p in enumerate(files)]):
            total += scenes
            print(f"{name}: {scenes} scenes, {len(errors)} misreadings")
            for scene, kind, what in errors:
                kinds[kind] += 1
                if args.v:
                    print(f"   {scene} {kind} {what}")
    print(f"\n{total} scenes of {len(files)} golden matches (walnut board)")
    print("| misreading | scenes |\n|---|---|")
    for kind, n in kinds.most_common():
        print(f"| {kind} | {n} |")
    if not kinds:
        print("| none | 0 |")


if __name__ == "__main__":
    main()
