"""Dice leaning on a checker in positions from real matches: how many throws are taken for a roll.

``leaning_dice.py`` throws on the starting position; here the positions are a match's. Each
match file (GNU Backgammon's .mat, by default the golden matches in ``../shared``) is turned
into the table script the replays use (``pibg.script.table_script``, the replays' mishaps,
seed = the match's number - 1), and every throw that script makes cocked and does not land
on the bar is rendered twice by ``pibg.sim``: its second die leaning 20 to 35 degrees on
the nearest checker's edge (``SimScene.leans_on="checker"``), and the same throw lying flat.
Counted per board style: leaning throws read as a roll (both dice flat: the failure), and
flat throws read right (both dice flat, the values thrown).

    python benchmarks/leaning_in_play.py [--matches DIR] [--limit N]
                                         [--styles walnut,tournament,oak] [--jobs 2] [-v]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibg.matfile import read_mat
from pibg.script import Mishaps, Scene, table_script
from pibg.sim import SimScene, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import Vision

GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "golden" / "matches"


def leaning_throws(path: Path) -> list[tuple[int, Scene]]:
    """(scene index, scene) of every throw a match's table script makes cocked, not on the
    bar (``pibg.app.sim_frames`` lands every other cocked throw's die on the bar)."""
    seed = int(path.name[1:4]) - 1
    acts = table_script(read_mat(path),
                        Mishaps(illegal=0.05, hand=0.1, bump=0.03, cocked=0.03, seed=seed))
    out = []
    thrown: tuple[tuple[int, int], bool] | None = None
    for i, a in enumerate(acts):
        if not isinstance(a, Scene):
            continue
        if a.dice is None:
            thrown = None
            continue
        if thrown == (a.dice, a.cocked):
            continue  # the same throw, still lying
        thrown = (a.dice, a.cocked)
        if a.cocked and i % 2 == 0:
            out.append((i, a))
    return out


def one(args: tuple[str, str]) -> tuple[str, str, list[tuple[int, tuple[int, int], str, bool]]]:
    """(style, match, [(scene, dice, leaning read, flat read right)])."""
    style, path = args
    v = Vision.from_start_frame(render(SimScene(START_POINTS, style=style)),  # type: ignore[arg-type]
                                sim_corners())
    for seed in range(3):  # the die size settles on flat throws first, as in a game
        v.observe(render(SimScene(START_POINTS, dice=(6, 2), seed=100 + seed,
                                  style=style)))  # type: ignore[arg-type]
    rows = []
    for i, a in leaning_throws(Path(path)):
        assert a.dice is not None
        reads = []
        for lean in (True, False):
            scene = SimScene(a.points, a.bar, a.off, a.dice, lean, a.cube_value,
                             a.cube_owner,  # type: ignore[arg-type]
                             a.hand, seed=i, style=style,  # type: ignore[arg-type]
                             dice_seed=i, leans_on="checker")
            reads.append(v.observe(render(scene)).dice)
        leaning, flat = reads
        seen = [d for d in leaning if d.flat]
        what = ("roll " + "-".join(str(d.value) for d in seen) if len(seen) >= 2
                else "not flat" if len(leaning) >= 2 else f"{len(leaning)} found")
        right = sorted(d.value for d in flat if d.flat) == sorted(a.dice) and len(flat) == 2
        rows.append((i, a.dice, what, right))
    return style, Path(path).name, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=Path, default=GOLDEN, help="a folder of .mat files")
    ap.add_argument("--limit", type=int, default=None, help="the first N matches only")
    ap.add_argument("--styles", default="walnut,tournament,oak")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every throw misread")
    a = ap.parse_args()
    paths = sorted(a.matches.glob("m[0-9][0-9][0-9]*.mat"))[:a.limit]
    if not paths:
        sys.exit(f"no match files (mNNN_*.mat) in {a.matches}: give a folder with --matches")
    jobs = [(s, str(p)) for s in a.styles.split(",") for p in paths]
    with ProcessPoolExecutor(a.jobs) as pool:
        results = list(pool.map(one, jobs))
    print(f"{len(paths)} matches from {a.matches}")
    print(f"{'style':<12}{'throws':>7}{'leaning read as a roll':>24}{'flat read right':>17}")
    for style in a.styles.split(","):
        rows = [r for s, _, rs in results if s == style for r in rs]
        roll = sum(r[2].startswith("roll") for r in rows)
        print(f"{style:<12}{len(rows):>7}{roll:>24}{sum(r[3] for r in rows):>17}")
    if a.verbose:
        for style, name, rows in results:
            for i, dice, what, right in rows:
                if what.startswith("roll") or not right:
                    print(f"{style} {name} scene {i} {dice[0]}-{dice[1]}: leaning {what}"
                          + ("" if right else "; flat misread"))


if __name__ == "__main__":
    main()
