"""Fixtures for the records tests: fixture files, the golden matches, gnubg, random matches."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pibg.gnubg_oracle import GeneratorStats, find_gnubg, random_match
from pibg.record import MatchRecord, match_record

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "records"
GOLDEN = HERE.parent.parent.parent / "shared" / "golden" / "matches"

#: how many random matches the gnubg oracle test checks (the brief asks for at least 200)
N_RANDOM = int(os.environ.get("PIBG_RANDOM_MATCHES", "200"))


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    if not GOLDEN.is_dir():
        pytest.skip("needs ../shared/golden/matches (reference data not in a user's clone)")
    return GOLDEN


@pytest.fixture(scope="session")
def gnubg_exe() -> str:
    exe = find_gnubg()
    if exe is None:
        pytest.skip("GNU Backgammon not installed (apt install gnubg, or set PIBG_GNUBG)")
    return exe


def _gen(seed: int) -> tuple[list[Any], GeneratorStats, MatchRecord]:
    events, stats = random_match(seed)
    return events, stats, match_record(events)


@pytest.fixture(scope="session")
def random_matches() -> list[tuple[list[Any], GeneratorStats, MatchRecord]]:
    """``N_RANDOM`` seeded random matches (seeds 0..N-1) as events, what they contain, and
    the record the writers work from; made in parallel."""
    workers = min(8, os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            return list(pool.map(_gen, range(N_RANDOM), chunksize=8))
    return [_gen(s) for s in range(N_RANDOM)]


@pytest.fixture(scope="session")
def golden_matches(golden_dir: Path) -> list[tuple[Path, list[Any], MatchRecord]]:
    """Every golden .mat read once: its path, its events and its record."""
    from pibg.matfile import read_mat

    out = []
    for path in sorted(golden_dir.glob("*.mat")):
        events = read_mat(path)
        out.append((path, events, match_record(events)))
    return out
