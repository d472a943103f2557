"""Move-generation speed: pibg's pure-Python ``legal_plays`` beside gnubg's C generator.

Runs all 21 rolls over the distinct positions of ``../shared/golden/movegen.jsonl`` (positions
from real self-play games and built ones; falls back to the committed sample in
``tests/data``), single-threaded, and prints a markdown table: plays/s, time per
(position, roll) at p50/p99/max, and the same work by the ``gnubg`` Python module's C move
generator when it is installed (``pip install gnubg``).

    python benchmarks/movegen.py [--positions N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path

from pibg.events import Moved
from pibg.matfile import read_mat
from pibg.moves import Dice
from pibg.position import Position
from pibg.rules import generate_plays

ROOT = Path(__file__).resolve().parent.parent
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
DICE = [Dice(a, b) for a, b in ROLLS]


def load_positions(limit: int) -> tuple[list[str], str]:
    """Distinct positions (mover on roll) from gnubg's movegen data and from every turn of the
    golden self-play matches; the committed sample when ../shared is absent."""
    golden = ROOT.parent / "shared" / "golden"
    seen: dict[str, None] = {}
    if (golden / "movegen.jsonl").exists():
        with open(golden / "movegen.jsonl") as f:
            for line in f:
                seen[json.loads(line)["position_id"]] = None
        n_movegen = len(seen)
        for mat in sorted((golden / "matches").glob("*.mat")):
            for ev in read_mat(mat):
                if isinstance(ev, Moved) and ev.play.moves:
                    # the position after each play, the opponent to move next
                    pos = ev.result.swap_turn()
                    seen[Position.from_boards(pos.mover, pos.opponent).position_id()] = None
        source = (f"shared/golden: {n_movegen} positions of movegen.jsonl + "
                  f"{len(seen) - n_movegen} more from the 60 self-play matches")
    else:
        with gzip.open(ROOT / "tests" / "data" / "movegen_sample.jsonl.gz", "rt") as f:
            for line in f:
                seen[json.loads(line)["position_id"]] = None
        source = "tests/data/movegen_sample.jsonl.gz"
    return list(seen)[:limit], source


def bench_pibg(ids: list[str]) -> tuple[list[float], int, float, list[tuple[float, str, str]]]:
    times: list[float] = []
    plays = 0
    positions = [Position.from_id(i) for i in ids]
    t0 = time.perf_counter()
    for pos in positions:
        for roll in DICE:
            t = time.perf_counter()
            plays += len(generate_plays(pos, roll))
            times.append(time.perf_counter() - t)
    total = time.perf_counter() - t0
    # the slowest pairs again, best of 5: a pause of the machine or the collector is not the
    # generator's own cost
    slow = sorted(range(len(times)), key=times.__getitem__)[-20:]
    again = []
    for k in slow:
        pos, roll = positions[k // len(DICE)], DICE[k % len(DICE)]
        best = min(_timed(pos, roll) for _ in range(5))
        again.append((best * 1000, pos.position_id(), str(roll)))
    return times, plays, total, sorted(again)


def _timed(pos: Position, roll: Dice) -> float:
    t = time.perf_counter()
    generate_plays(pos, roll)
    return time.perf_counter() - t


def bench_gnubg(ids: list[str]) -> tuple[float, int] | None:
    try:
        import gnubg  # type: ignore[import-not-found]
    except ImportError:
        return None
    boards = [gnubg.positionfromid(i) for i in ids]
    cube, ctx = gnubg.cubeinfo(), gnubg.evalcontext()
    plays = 0
    t0 = time.perf_counter()
    for board in boards:
        for roll in ROLLS:
            # the module exposes generation only with a 0-ply evaluation of each play
            plays += len(gnubg.find_best_moves(board, cube, ctx, roll))
    return time.perf_counter() - t0, plays


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=100_000)
    args = ap.parse_args()
    ids, source = load_positions(args.positions)
    times, plays, total, again = bench_pibg(ids)
    calls = len(times)
    ms = sorted(t * 1000 for t in times)
    p50 = statistics.median(ms)
    p99 = ms[int(0.99 * (len(ms) - 1))]
    print(f"data: {source}, {len(ids)} positions x 21 rolls = {calls} (position, roll) pairs\n")
    print("| generator | total s | pairs/s | plays/s | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    print(f"| pibg (pure Python) | {total:.2f} | {calls / total:,.0f} | {plays / total:,.0f} "
          f"| {p50:.3f} | {p99:.3f} | {ms[-1]:.2f} |")
    g = bench_gnubg(ids)
    if g is None:
        print("| gnubg C (Python module) | not installed (pip install gnubg) | | | | | |")
    else:
        gt, gplays = g
        print(f"| gnubg C, find_best_moves (generation + 0-ply eval) | {gt:.2f} "
              f"| {calls / gt:,.0f} | {gplays / gt:,.0f} | | | |")
        print(f"\npibg / gnubg total time: {total / gt:.1f}x")
    worst = again[-1]
    print(f"worst case, the 20 slowest pairs timed again (best of 5): {worst[0]:.2f} ms "
          f"({worst[1]} with {worst[2]})")


if __name__ == "__main__":
    main()
