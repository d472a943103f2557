"""Leaning (cocked) dice on pibg.sim boards: how many throws the vision stage takes for a roll.

A throw whose second die leans is no roll (docs/rules.md rule 14): the vision stage must
report that die not flat. For each board style and each thing the die leans on
(``SimScene.leans_on``: "die", 20 to 35 degrees on the other die; "checker", 20 to 35
degrees on the nearest checker's edge, its side face and oval pips in view; "nothing", the
sim's old stand-in of a face foreshortened to 0.6 where it lies, which no real die shows: a
one, two or three an edge or more from everything, and any die an edge and a half or more
(``DiceConfig.open_room``), is taken to lie flat, so that column's dice in the open are read
as rolls by design, a squashed four as a six), ``--throws`` throws are drawn
(seed 0, 1, ...; dice (seed % 6 + 1, 5 * seed % 6 + 1)) on the starting position after
three flat throws, and counted: read as a roll (both dice flat: the failure), the leaning
die found not flat, or fewer than two dice found. The other side of the trade is counted
too ("touching"): throws whose two dice lie flat against each other (``SimScene.touching``),
read right (both flat, the values thrown) or not.

    python benchmarks/leaning_dice.py [--throws 60] [--styles walnut,tournament,oak]
                                      [--leans-on nothing,die,checker] [--jobs 2] [-v]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibg.sim import SimScene, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import Vision


def one(args: tuple[str, str, int]) -> tuple[str, str, list[tuple[int, tuple[int, int], str]]]:
    """(style, leans_on, [(seed, dice, outcome)]) for ``throws`` leaning throws."""
    style, leans_on, throws = args
    v = Vision.from_start_frame(render(SimScene(START_POINTS, style=style)),
                                sim_corners())
    for seed in range(3):  # the die size settles on flat throws first, as in a game
        v.observe(render(SimScene(START_POINTS, dice=(6, 2), seed=100 + seed,
                                  style=style)))
    out = []
    for seed in range(throws):
        dice = (seed % 6 + 1, (seed * 5) % 6 + 1)
        if leans_on == "touching":
            dice = (dice[0], (seed * 5 + seed // 6) % 6 + 1)  # doubles too
            scene = SimScene(START_POINTS, dice=dice, seed=seed, style=style, touching=True)
        else:
            scene = SimScene(START_POINTS, dice=dice, cocked=True, seed=seed,
                             style=style, leans_on=leans_on)
        obs = v.observe(render(scene))
        flat = [d for d in obs.dice if d.flat]
        if leans_on == "touching":
            right = sorted(d.value for d in flat) == sorted(dice) and len(obs.dice) == 2
            out.append((seed, dice, "right" if right else
                        "read " + ", ".join(f"{d.value}{'' if d.flat else ' not flat'}"
                                            for d in obs.dice)))
            continue
        if len(flat) >= 2:
            what = "roll " + "-".join(str(d.value) for d in flat)
        elif len(obs.dice) >= 2:
            what = "not flat"
        else:
            what = f"{len(obs.dice)} found"
        out.append((seed, dice, what))
    return style, leans_on, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=60)
    ap.add_argument("--styles", default="walnut,tournament,oak")
    ap.add_argument("--leans-on", default="nothing,die,checker,touching",
                    help="touching: flat dice against each other, not leaning")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every throw read")
    a = ap.parse_args()
    jobs = [(s, on, a.throws) for s in a.styles.split(",") for on in a.leans_on.split(",")]
    with ProcessPoolExecutor(a.jobs) as pool:
        results = list(pool.map(one, jobs))
    print(f"{'style':<12}{'leans on':<10}{'throws':>7}{'read as a roll':>16}"
          f"{'not flat':>10}{'< 2 found':>11}")
    for style, on, rows in results:
        if on == "touching":
            continue
        roll = sum(r[2].startswith("roll") for r in rows)
        cocked = sum(r[2] == "not flat" for r in rows)
        print(f"{style:<12}{on:<10}{len(rows):>7}{roll:>16}{cocked:>10}"
              f"{len(rows) - roll - cocked:>11}")
    touching = [(style, rows) for style, on, rows in results if on == "touching"]
    if touching:
        print(f"\n{'style':<12}{'flat dice touching':<20}{'throws':>7}{'read right':>12}")
        for style, rows in touching:
            print(f"{style:<12}{'':<20}{len(rows):>7}{sum(r[2] == 'right' for r in rows):>12}")
    if a.verbose:
        for style, on, rows in results:
            for seed, dice, what in rows:
                if what.startswith("roll"):
                    print(f"{style} {on} seed {seed} {dice[0]}-{dice[1]} "
                          f"(second die leaning): {what}")
                elif on == "touching" and what != "right":
                    print(f"{style} touching seed {seed} {dice[0]}-{dice[1]}: {what}")


if __name__ == "__main__":
    main()
