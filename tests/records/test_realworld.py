"""Match files written by other programs and people: every writer's dialect is read, what
cannot be read is assumed with a warning naming the line (``strict=False``), strict reading
refuses it, and GNU Backgammon reads pibg's rewrite as it reads the original.

The real files live in ``../shared/golden/realworld`` (tests that need them skip without it);
small files in each writer's format, made from gnubg's ``m005_3pt.mat`` and ``m009_1pt.mat``,
are in ``tests/data/records/writers`` (see the README there).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pibg.events import Moved, Noted, Resigned, Rolled
from pibg.exc import RecordError
from pibg.journal import Journal, read_events
from pibg.matfile import parse_mat, read_mat, write_mat
from pibg.moves import Dice
from pibg.position import Color, Position
from pibg.record import decode_text, match_record
from pibg.sgf import read_sgf, write_sgf

from .conftest import DATA

REALWORLD = DATA.parents[2].parent / "shared" / "golden" / "realworld"
WRITERS = DATA / "writers"


def _realworld() -> list[Path]:
    if not REALWORLD.is_dir():
        pytest.skip("needs ../shared/golden/realworld (reference data not in a user's clone)")
    return sorted(p for p in REALWORLD.rglob("*") if p.is_file() and p.name != "README.md")


def _read(path: Path, strict: bool = False, warnings: list[str] | None = None) -> list[Any]:
    reader = read_sgf if path.suffix == ".sgf" else read_mat
    return reader(path, strict=strict, warnings=warnings)


def _plays(events: list[Any]) -> list[tuple[Color, tuple[int, int], Position]]:
    return [(e.player, (e.dice.low, e.dice.high), e.result) for e in events
            if isinstance(e, Moved)]


# --- the real files ---------------------------------------------------------------------------


def test_every_realworld_file_imports_and_strict_refuses_what_was_assumed() -> None:
    files = _realworld()
    assert len(files) == 41
    warned = 0
    for path in files:
        warnings: list[str] = []
        events = _read(path, warnings=warnings)
        rec = match_record(events)
        assert rec.games, path
        notes = [e for e in events if isinstance(e, Noted)]
        assert len(notes) == len(warnings), path
        if warnings:
            warned += 1
            assert all(w.startswith(f"{path}: line ") for w in warnings)
            with pytest.raises(RecordError, match=r"line \d+: ") as info:
                _read(path, strict=True)
            assert "\n" not in str(info.value)
        else:
            assert _read(path, strict=True) == events
    assert warned == 8  # the files with an unrecorded move or a "Wins" off the moves


def test_every_realworld_file_journals_as_written_and_reads_back(tmp_path: Path) -> None:
    """The journal of an imported file keeps each play as the file wrote it, and reads back
    into the same plays: the hits a file did not mark (some write ``22/19 10/6`` for
    ``22/19* 10/6``) read on the board each play was played on."""
    unmarked = 0
    for k, path in enumerate(_realworld()):
        events = _read(path)
        journal = tmp_path / f"{k}.jsonl"
        with Journal.open(journal) as j:
            j.extend(events)
        assert read_events(journal) == events, path
        text = " ".join(decode_text(path.read_bytes()).split())
        for e in events:
            if isinstance(e, Moved) and e.written:
                # an .sgf's steps are written as text for it; a .mat's text is the file's
                assert path.suffix == ".sgf" or e.written in text, (path, e.written)
                unmarked += any(e.play.hits) and "*" not in e.written
    assert unmarked > 0


def test_an_unrecorded_move_before_a_resignation() -> None:
    """XG's ``27) 11: ????`` then the winner's 'Wins': the roll stays, the player resigns."""
    path = next(p for p in _realworld() if p.name == "match1.txt")
    warnings: list[str] = []
    events = _read(path, warnings=warnings)
    assert any("line 47: white rolled 11 and no move was recorded ('????')" in w
               for w in warnings)
    k = next(i for i, e in enumerate(events) if isinstance(e, Resigned))
    assert isinstance(events[k - 2], Rolled) or isinstance(events[k - 1], Rolled)
    rec = match_record(events)
    assert [a.kind for a in rec.games[0].actions[-2:]] == ["roll", "resign"]


def _gnubg_view(match: dict[str, Any]) -> tuple[Any, ...]:
    """gnubg's reading of a match, without what pibg's files do not carry (event, place,
    date, comments) and with each move's steps in one order (gnubg keeps an SGF's order)."""
    info = match["match-info"]
    games = []
    for g in match["games"]:
        acts = [dict(a, move=sorted(map(tuple, a["move"]))) if "move" in a else a
                for a in g["game"]]
        games.append((g["info"], acts))
    return info["match-length"], info["X"]["name"], info["O"]["name"], games


@pytest.mark.slow
def test_gnubg_reads_pibgs_rewrite_of_every_realworld_file_as_the_original(
        gnubg_exe: str, tmp_path: Path) -> None:
    from pibg.gnubg_oracle import compare, gnubg_import

    files = _realworld()
    originals = []
    for k, path in enumerate(files):
        # gnubg misreads a 'Losses N point' row standing alone (it records the last roll a
        # second time); with the row gone it reads the file as every other reader does
        text = path.read_bytes()
        if re.search(rb"(?m)^ ?Losses \d+ points?\r?$", text):
            clean = tmp_path / f"orig{k:02d}{path.suffix}"
            clean.write_bytes(re.sub(rb"(?m)^ ?Losses \d+ points?\r?\n", b"", text))
            path = clean
        originals.append((path, "sgf" if path.suffix == ".sgf" else "mat"))
    jobs: list[tuple[str | Path, str]] = []
    records = []
    for k, path in enumerate(files):
        rec = match_record(_read(path))
        records.append(rec)
        for fmt, writer in (("mat", write_mat), ("sgf", write_sgf)):
            out = tmp_path / f"f{k:02d}.{fmt}"
            writer(rec, out)
            jobs.append((out, fmt))
    theirs = gnubg_import(originals, exe=gnubg_exe)
    mine = gnubg_import(jobs, exe=gnubg_exe)
    same = 0
    for k, path in enumerate(files):
        want = _gnubg_view(theirs[k]["match"])
        for res in mine[2 * k:2 * k + 2]:
            got = _gnubg_view(res["match"])
            if records[k].settings.black == "":
                # gnubg reads an empty name on a .mat score line as the text after it
                assert got[:2] + got[3:] == want[:2] + want[3:], (path, res["file"])
            else:
                assert got == want, (path, res["file"])
            cmp = compare(records[k], res)
            assert all("players" in m for m in cmp.mismatches), (path, cmp.mismatches)
            same += 1
    print(f"\n{len(files)} real files: gnubg reads the same match from all {same} of pibg's "
          f".mat and .sgf rewrites")
    assert same == 2 * len(files)


# --- each writer's dialect --------------------------------------------------------------------


def _m005() -> list[Any]:
    return read_mat(DATA / "m005_3pt.mat")


@pytest.mark.parametrize("name", ["xg_bom_crlf.mat", "galaxy_latin1.mat", "fibs_ratings.mat",
                                  "foxamon_choue.mat", "money_jacoby.mat"])
def test_writers_dialects_read_as_gnubgs_own_file(name: str) -> None:
    warnings: list[str] = []
    events = read_mat(WRITERS / name, strict=True, warnings=warnings)
    assert warnings == []
    assert _plays(events) == _plays(_m005())
    rec = match_record(events)
    assert [(g.result.winner, g.result.points) for g in rec.games if g.result] == [
        (g.result.winner, g.result.points) for g in match_record(_m005()).games if g.result]
    s = rec.settings
    if name == "xg_bom_crlf.mat":
        assert (s.white, s.black, s.length) == ("Grâce", "Héidi", 3)
    elif name == "galaxy_latin1.mat":
        assert (s.white, s.black) == ("Grâce", "Heidi")
    elif name == "fibs_ratings.mat":
        assert (s.white, s.black) == ("grace", "heidi")
    elif name == "money_jacoby.mat":
        assert (s.length, s.jacoby, s.beaver) == (0, True, True)


def test_concedes_and_an_unrecorded_roll() -> None:
    warnings: list[str] = []
    events = read_mat(WRITERS / "xg_concedes.mat", strict=False, warnings=warnings)
    rec = match_record(events)
    assert rec.games[0].result is not None
    assert (rec.games[0].result.winner.label, rec.games[0].result.termination) == (
        "black", "resign")
    assert [a.kind for a in rec.games[0].actions[-2:]] == ["roll", "resign"]
    assert len(warnings) == 1 and "xg_concedes.mat: line 11: white rolled" in warnings[0]
    with pytest.raises(RecordError, match=r"xg_concedes.mat: line 11: white 11: \(no move\)"):
        read_mat(WRITERS / "xg_concedes.mat", strict=True)


def test_a_game_cut_mid_way_warns_with_the_line() -> None:
    for strict in (True, False):
        warnings: list[str] = []
        events = read_mat(WRITERS / "cut_mid_game.mat", strict=strict, warnings=warnings)
        assert warnings == [f"{WRITERS / 'cut_mid_game.mat'}: line 11: the file ends in the "
                            f"middle of game 1 (no 'Wins N points' line): the game is left "
                            f"unfinished"]
        assert any(isinstance(e, Noted) for e in events) is not strict


def _text_m005() -> str:
    return (DATA / "m005_3pt.mat").read_text()


def test_wins_against_the_moves_is_a_warning_naming_the_line() -> None:
    """Galaxy's 'Wins 1 point and the match' after a gammon: the moves decide."""
    path = next(p for p in _realworld() if p.name == "match963565.txt")
    warnings: list[str] = []
    events = read_mat(path, strict=False, warnings=warnings)
    assert warnings == [f"{path}: line 58: 'Wins 1' for white: the moves give white 2 points; "
                        f"scored as the moves give"]
    assert match_record(events).final.score == (2, 0)
    assert any(isinstance(e, Noted) and e.text.startswith("line 58: ") for e in events)
    with pytest.raises(RecordError, match="line 58: 'Wins 1': the moves give white 2 points"):
        read_mat(path, strict=True)


def test_wins_off_the_cube_is_scored_as_gnubg_does() -> None:
    """Galaxy's 'Wins 3' with the cube at 2: gnubg scores a resignation of 2 x cube."""
    text = _text_m005().replace(" 25) 41: 4/3 3/0                 \n      Wins 2 points",
                                "      Wins 3 points")
    warnings: list[str] = []
    events = parse_mat(text, "c.mat", strict=False, warnings=warnings)
    assert match_record(events).games[2].result is not None
    assert match_record(events).games[2].result.points == 4  # type: ignore[union-attr]
    assert "c.mat: line 48: 'Wins 3' with the cube at 2: scored as a resignation of 4" in (
        warnings[0])


def test_absurd_match_length_is_refused_in_one_line() -> None:
    text = _text_m005().replace(" 3 point match", " 99999999999999999999 point match")
    for strict in (True, False):
        with pytest.raises(RecordError, match="line 3: a 99999999999999999999-point match: GNU "
                                              "Backgammon plays matches of at most 64"):
            parse_mat(text, "x.mat", strict=strict)


def test_a_skipped_row_and_an_unreadable_line_are_warnings() -> None:
    lines = _text_m005().splitlines()
    lines.insert(10, "  this line is noise")
    warnings: list[str] = []
    events = parse_mat("\n".join(lines), "n.mat", strict=False, warnings=warnings)
    assert _plays(events) == _plays(_m005())
    assert warnings == ["n.mat: line 11: skipped the line 'this line is noise' (not a move, "
                        "'Game N' or 'Wins N points')"]
    with pytest.raises(RecordError, match=r"n\.mat: line 11: unexpected text 'this line is"):
        parse_mat("\n".join(lines), "n.mat")


def test_a_missing_wins_line_is_read_from_the_next_score_line() -> None:
    text = _text_m005().replace("  3)  Doubles => 2                Drops\n      Wins 1 point\n",
                                "  3)  Doubles => 2                Drops\n")
    assert parse_mat(text) == _m005()  # the drop ends the game: nothing to assume
    text = _text_m005().replace("  7)  Drops                       Wins 1 point \n", "")
    warnings: list[str] = []
    events = parse_mat(text, "s.mat", strict=False, warnings=warnings)
    assert "game 1 has no 'Wins N points' line; the score line says black won 1 point" in (
        warnings[0])
    assert match_record(events).final.score == match_record(_m005()).final.score
    with pytest.raises(RecordError, match="Game 2 starts before the previous game ended"):
        parse_mat(text, "s.mat")


def test_double_hops_written_once_with_a_count() -> None:
    """``Bar/21*(2)`` and ``8/off(2)``: two checkers, each on two dice of a double, played
    one die at a time, highest point first (as gnubg expands them)."""
    from pibg.matfile import _expanded

    assert _expanded(Dice(2, 2), "Bar/21*(2)") == "25/23 25/23 23/21 23/21"
    assert _expanded(Dice(4, 4), "8/off(2)") == "8/4 8/4 4/0 4/0"
    assert _expanded(Dice(5, 5), "6/off(2)") == "6/1 6/1 1/0 1/0"
    assert _expanded(Dice(4, 2), "8/off(2)") is None
    files = {p.name: p for p in _realworld()}
    # strict reading gets past both (lines 36 and 183) and stops only at what needs assuming
    with pytest.raises(RecordError, match=r"match2\.txt: line 58: black 32: \(no move\)"):
        read_mat(files["match2.txt"], strict=True)
    events = read_mat(files["match3.txt"], strict=True)
    assert any(isinstance(e, Moved) and e.notation == "8/off(2)" for e in events)
