"""Oracle tests: every file pibg writes imports into the real GNU Backgammon with the same
positions (move by move), cube actions, results and scores.

Skips when gnubg is not installed (Debian/Ubuntu: ``apt install gnubg``; it lands in
/usr/games). Set ``PIBG_RANDOM_MATCHES`` to check more or fewer random matches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.gnubg_oracle import (
    GeneratorStats,
    check_with_gnubg,
    compare,
    gnubg_import,
)
from pibg.matfile import read_mat
from pibg.record import match_record

from .conftest import DATA, N_RANDOM

pytestmark = pytest.mark.slow


def test_generator_exercises_every_feature(random_matches: list) -> None:
    total = GeneratorStats()
    for _, st, _ in random_matches:
        total.add(st)
    assert total.matches >= 200 or total.matches == N_RANDOM
    for feature in ("doubles", "takes", "drops", "resigns", "gammons", "backgammons",
                    "crawford_games", "post_crawford_doubles", "bar_entries", "bear_offs",
                    "no_move", "opening_ties", "undos", "money"):
        assert getattr(total, feature) > 0, f"no {feature} in {total.matches} random matches"


def test_random_matches_import_into_gnubg(gnubg_exe: str, random_matches: list,
                                          tmp_path: Path) -> None:
    records = [(f"r{seed:03d}", rec) for seed, (_, _, rec) in enumerate(random_matches)]
    rt = check_with_gnubg(records, tmp_path, exe=gnubg_exe)
    print(f"\n{rt.matches} random matches, {rt.files} files: {rt.games} games, {rt.moves} moves, "
          f"{rt.cube_actions} cube actions, {rt.resigns} resignations checked in "
          f"{rt.seconds:.1f} s; {len(rt.mismatches)} mismatches")
    assert rt.mismatches == []
    assert rt.files == 2 * len(records)
    assert rt.moves > 10_000 and rt.cube_actions > 500


def _undated(match: dict) -> dict:
    """gnubg's reading of a match without its date: gnubg stamps a file that has no
    ``EventDate`` with the day it reads it, and pibg's rewrite carries none (the date is no
    part of a match record), so the two readings differ after midnight of the file's day."""
    info = {k: v for k, v in match.get("match-info", {}).items() if k != "date"}
    return {**match, "match-info": info}


def test_fixture_matches_same_in_gnubg_as_gnubgs_own_file(gnubg_exe: str,
                                                          tmp_path: Path) -> None:
    """gnubg reads pibg's rewrite of its own file exactly as it reads the original."""
    records = [(p.stem, match_record(read_mat(p))) for p in sorted(DATA.glob("*.mat"))]
    rt = check_with_gnubg(records, tmp_path, exe=gnubg_exe)
    assert rt.mismatches == []
    originals = gnubg_import([(p, "mat") for p in sorted(DATA.glob("*.mat"))], exe=gnubg_exe)
    mine = gnubg_import([(tmp_path / f"{p.stem}.mat", "mat") for p in sorted(DATA.glob("*.mat"))],
                        exe=gnubg_exe)
    for a, b in zip(originals, mine, strict=True):
        assert _undated(a["match"]) == _undated(b["match"]), a["file"]


def test_golden_matches_round_trip_through_gnubg(gnubg_exe: str, golden_matches: list,
                                                 tmp_path: Path) -> None:
    files = [p for p, _, _ in golden_matches]
    records = [(p.stem, rec) for p, _, rec in golden_matches]
    rt = check_with_gnubg(records, tmp_path, exe=gnubg_exe)
    print(f"\n{rt.matches} golden matches: {rt.moves} moves, {rt.cube_actions} cube actions; "
          f"{len(rt.mismatches)} mismatches")
    assert rt.mismatches == []
    # and gnubg's reading of the original equals its reading of pibg's rewrite
    originals = gnubg_import([(p, "mat") for p in files], exe=gnubg_exe)
    mine = gnubg_import([(tmp_path / f"{p.stem}.mat", "mat") for p in files], exe=gnubg_exe)
    for a, b in zip(originals, mine, strict=True):
        assert _undated(a["match"]) == _undated(b["match"]), a["file"]


def test_compare_reports_a_wrong_position(gnubg_exe: str, tmp_path: Path) -> None:
    """The oracle is not blind: a record that disagrees with the file is caught."""
    path = DATA / "m005_3pt.mat"
    result = gnubg_import([(path, "mat")], exe=gnubg_exe)[0]
    other = match_record(read_mat(DATA / "m001_5pt.mat"))
    cmp = compare(other, result)
    assert not cmp.ok and any("position before" in m or "players" in m for m in cmp.mismatches)


def test_gnubg_reports_an_unreadable_file(gnubg_exe: str, tmp_path: Path) -> None:
    bad = tmp_path / "missing.sgf"
    res = gnubg_import([(bad, "sgf")], exe=gnubg_exe)[0]
    rec = match_record(read_mat(DATA / "m005_3pt.mat"))
    assert not compare(rec, res).ok


def test_unfinished_matches_import_into_gnubg(gnubg_exe: str, random_matches: list,
                                              tmp_path: Path) -> None:
    """A match exported mid-game (the referee's journal during play) reads the same too."""
    from pibg.events import Moved

    records = []
    for i, (events, _, _) in enumerate(random_matches[:20]):
        moves = [k + 1 for k, ev in enumerate(events) if isinstance(ev, Moved)]
        # end on a move, the second at the earliest: gnubg's SGF import of a match holding
        # only the opening move leaves it with "no current position available"
        cut = next((k for k in moves[1:] if k >= len(events) * (i + 1) // 22), len(events))
        records.append((f"c{i:02d}", match_record(events[:cut])))
    rt = check_with_gnubg(records, tmp_path, exe=gnubg_exe)
    assert rt.mismatches == []
    assert sum(1 for _, rec in records if rec.games and rec.games[-1].result is None) >= 10


def test_rules_a_mat_cannot_carry_are_carried_by_sgf(gnubg_exe: str, tmp_path: Path) -> None:
    """Crawford off: the SGF reads back exactly; the .mat differs only on Crawford, and the
    record warns about it."""
    from pibg.gnubg_oracle import random_match

    records = [(f"n{i}", match_record(random_match(i, length=5, crawford=False)[0]))
               for i in range(12)]
    assert all(any("Crawford" in w for w in rec.warnings) for _, rec in records)
    sgf = check_with_gnubg(records, tmp_path, formats=("sgf",), exe=gnubg_exe)
    assert sgf.mismatches == []
    mat = check_with_gnubg(records, tmp_path, formats=("mat",), exe=gnubg_exe)
    assert all("rawford" in m for m in mat.mismatches)


def test_jacoby_travels_in_sgf(gnubg_exe: str, tmp_path: Path) -> None:
    """Money play with Jacoby: gammons with the cube unturned count single. The SGF's
    RU[Jacoby] makes gnubg score them so even with its own Jacoby setting off."""
    from pibg.gnubg_oracle import random_match
    from pibg.sgf import write_sgf

    seeds = (1004, 1041, 1062, 1105)  # each has a gammon with the cube unturned
    records = [match_record(random_match(s, length=0, max_games=3, jacoby=True)[0])
               for s in seeds]
    assert all(any(g.result and g.result.termination in ("gammon", "backgammon")
                   and g.result.points == 1 for g in rec.games) for rec in records)
    assert all(any("Jacoby" in w for w in rec.warnings) for rec in records)
    paths = []
    for s, rec in zip(seeds, records, strict=True):
        write_sgf(rec, tmp_path / f"j{s}.sgf")
        paths.append((tmp_path / f"j{s}.sgf", "sgf"))
    results = gnubg_import(paths, exe=gnubg_exe, jacoby=[False] * len(paths))
    for rec, res in zip(records, results, strict=True):
        assert compare(rec, res).mismatches == [], res["file"]
