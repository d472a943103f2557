"""Round-trip figures for docs/benchmarks.md: pibg's .mat and SGF files, imported by GNU Backgammon.

    python benchmarks/records_roundtrip.py [--random 200] [--golden DIR]

Generates seeded random matches (pibg.gnubg_oracle.random_match), imports gnubg's own golden
.mat files with pibg, writes every match as .mat and .sgf, imports all of them into one gnubg
process and compares the Position ID before every move, each cube action, every game's
result and the scores. Prints a markdown table. Needs gnubg (apt install gnubg).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from pibg.gnubg_oracle import (
    GeneratorStats,
    RoundTrip,
    check_with_gnubg,
    find_gnubg,
    random_match,
)
from pibg.matfile import read_mat
from pibg.record import MatchRecord, match_record

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GOLDEN = ROOT.parent / "shared" / "golden" / "matches"


def _gen(seed: int) -> tuple[GeneratorStats, MatchRecord]:
    events, stats = random_match(seed)
    return stats, match_record(events)


def _row(name: str, rt: RoundTrip) -> str:
    return (f"| {name} | {rt.matches} | {rt.files} | {rt.games} | {rt.moves:,} | "
            f"{rt.cube_actions:,} | {rt.resigns} | {len(rt.mismatches)} | "
            f"{rt.seconds:.1f} s |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=200, help="random matches (200)")
    ap.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN,
                    help="directory of gnubg-made .mat files")
    args = ap.parse_args(argv)
    if find_gnubg() is None:
        print("gnubg not found: apt install gnubg (or set PIBG_GNUBG)", file=sys.stderr)
        return 2
    rows = []
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pibg-rt-") as tmp:
        if args.golden.is_dir():
            files = sorted(args.golden.glob("*.mat"))
            t0 = time.monotonic()
            golden = [(p.stem, match_record(read_mat(p))) for p in files]
            rt = check_with_gnubg(golden, Path(tmp))
            rt.seconds += time.monotonic() - t0 - rt.seconds
            rows.append(_row("gnubg's golden .mat → pibg → .mat + .sgf", rt))
            problems += rt.mismatches
        t0 = time.monotonic()
        with ProcessPoolExecutor(min(8, os.cpu_count() or 1)) as pool:
            made = list(pool.map(_gen, range(args.random), chunksize=8))
        gen_seconds = time.monotonic() - t0
        total = GeneratorStats()
        for stats, _ in made:
            total.add(stats)
        rt = check_with_gnubg([(f"r{k:03d}", rec) for k, (_, rec) in enumerate(made)], Path(tmp))
        rows.append(_row("random matches (seeded) → .mat + .sgf", rt))
        problems += rt.mismatches
    print("| source | matches | files | games | moves | cube actions | resignations | "
          "mismatches | time |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print("Moves and cube actions are counted per file (each match is checked as .mat and as "
          ".sgf); a move is checked by the Position ID before it, its dice and its steps.")
    print()
    print(f"Random matches contain: {total.doubles} doubles ({total.takes} taken, "
          f"{total.drops} dropped), {total.gammons} gammons, {total.backgammons} backgammons, "
          f"{total.crawford_games} Crawford games, {total.post_crawford_doubles} post-Crawford "
          f"doubles, {total.bar_entries:,} bar entries, {total.bear_offs:,} checkers borne off, "
          f"{total.no_move} no-move turns, {total.resigns} resignations, {total.undos} undos, "
          f"{total.money} money sessions (generated in {gen_seconds:.1f} s).")
    for p in problems[:20]:
        print("MISMATCH", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
