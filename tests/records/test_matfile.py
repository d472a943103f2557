"""The .mat reader and writer: gnubg's own files round-trip byte for byte; dialects; errors."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pibg.events import (
    Doubled,
    Dropped,
    GameEnded,
    GameStarted,
    MatchEnded,
    MatchStarted,
    Moved,
    OpeningRoll,
    Resigned,
    Rolled,
    Took,
)
from pibg.exc import RecordError
from pibg.gnubg_oracle import random_match
from pibg.match import replay
from pibg.matfile import dumps_mat, parse_mat, read_mat, write_mat
from pibg.moves import Dice, Move, Play
from pibg.position import Color, Position
from pibg.record import match_record
from pibg.rules import resolve

from .conftest import DATA

FIXTURES = sorted(DATA.glob("*.mat"))


def _date(text: str) -> str | None:
    m = re.search(r'\[EventDate "([^"]+)"\]', text)
    return m.group(1) if m else None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_gnubg_files_round_trip_byte_for_byte(path: Path) -> None:
    text = path.read_text()
    events = read_mat(path)
    assert dumps_mat(events, _date(text)) == text


def test_all_golden_matches_round_trip(golden_matches: list) -> None:
    assert len(golden_matches) >= 60
    for path, _, record in golden_matches:
        text = path.read_text()
        assert dumps_mat(record, _date(text)) == text, path.name


def test_import_gives_events_that_replay() -> None:
    events = read_mat(DATA / "m001_5pt.mat")
    assert isinstance(events[0], MatchStarted)
    s = events[0].settings
    assert (s.length, s.white, s.black) == (5, "erin", "judy")
    assert isinstance(events[1], GameStarted)
    # judy (right column) opens with 32: White's die 2, Black's die 3
    assert events[2] == OpeningRoll(white=2, black=3)
    after = resolve(Position.start(Color.BLACK), (3, 2), "24/21 13/11").result
    # the play's steps as the file lists them, read once
    assert events[3] == Moved(Color.BLACK, Dice(3, 2),
                              Play((Move(24, 21), Move(13, 11)), (False, False), after))
    kinds = [type(e) for e in events]
    for cls in (Rolled, Doubled, Took, Dropped, Resigned, GameEnded, MatchEnded):
        assert cls in kinds
    state = replay(events)
    assert state.score == (1, 6) and state.over and state.winner is Color.BLACK
    assert [(g.winner, g.points, g.termination) for g in state.games] == [
        (Color.BLACK, 2, "drop"), (Color.WHITE, 1, "drop"), (Color.BLACK, 4, "resign")]
    assert events[-1] == MatchEnded(Color.BLACK, (1, 6))


def test_no_move_turns_are_kept() -> None:
    events = read_mat(DATA / "m001_5pt.mat")
    dances = [e for e in events if isinstance(e, Moved) and not e.play.moves]
    assert len(dances) >= 3
    assert all(d.result.turn is d.player for d in dances)


def test_crawford_game_follows_from_the_score() -> None:
    state = replay(read_mat(DATA / "m051_5pt.mat"))
    assert [g.crawford for g in state.games][:2] == [False, True]


# --- dialects -------------------------------------------------------------------------------


def _m005() -> str:
    return (DATA / "m005_3pt.mat").read_text()


def test_crlf_tabs_comments_and_no_header() -> None:
    ref = parse_mat(_m005())
    text = _m005().replace("; [EventDate", "; [Site \"somewhere\"]\n; [EventDate")
    text = "\r\n".join(text.splitlines()) + "\r\n"
    assert parse_mat(text) == ref
    no_header = "\n".join(line for line in _m005().splitlines() if not line.startswith(";"))
    assert parse_mat(no_header) == ref
    # a tab in place of the spaces before the right column
    tabbed = _m005().replace("  1) 42: 8/4 6/4                 11:", "  1) 42: 8/4 6/4\t\t\t11:")
    assert parse_mat(tabbed) == ref


def _rewiden(text: str, width: int) -> str:
    """Re-render rows with a wider left column, as eXtreme Gammon's export does."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*\d+\) )(.{28})(.*)$", line)
        if m and m.group(3):
            out.append(m.group(1) + m.group(2).rstrip().ljust(width) + m.group(3))
        elif re.match(r"^ {34}Wins", line):
            out.append(" " * (6 + width) + line.strip())
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def test_wider_columns_and_xg_wording() -> None:
    ref = parse_mat(_m005())
    text = _rewiden(_m005(), 36)
    assert text != _m005()
    assert parse_mat(text) == ref
    xg = _m005().replace("Wins 2 points", "Wins 2 points and the match")
    assert parse_mat(xg) == ref


def test_combined_hops_bar_and_off_words() -> None:
    text = (" 1 point match\n\n Game 1\n a : 0    b : 0\n"
            "  1) 21: 24/23 13/11             44: 24/16 13/5\n"
            "  2) 61: 13/7 8/7                11: bar/off 3/2 2/1\n")
    with pytest.raises(RecordError, match="line 6: black 11"):
        parse_mat(text)
    events = parse_mat("".join(text.splitlines(keepends=True)[:5]))
    moved = events[-1]
    assert isinstance(moved, Moved) and moved.notation == "24/16 13/5"
    rec = match_record(events)
    assert [str(m) for m in rec.games[0].actions[1].steps] == ["24/20", "20/16", "13/9", "9/5"]


def test_steps_in_an_unplayable_order_are_accepted() -> None:
    # the entering checkers written after the checker that cannot move before they enter
    text = (" 1 point match\n\n Game 1\n a : 0    b : 0\n"
            "  1) 31: 8/5 6/5                 62: 24/18 13/11\n"
            "  2) 64: 13/7* 13/9               22: 13/11 25/23 13/11 6/4\n")
    events = parse_mat(text)
    assert replay(events).game is not None


def test_resignation_inferred_from_a_win_without_bear_off() -> None:
    text = (" 3 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                  \n"
            "                                  Wins 2 points\n")
    events = parse_mat(text)
    assert Resigned(Color.WHITE, 2) in events
    assert replay(events).score == (0, 2)


# --- errors ---------------------------------------------------------------------------------

BAD = [
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/4\n", 5, "illegal play"),
    (" 3 point match\n\n Game 1\n  1) 31: 8/5 6/5\n", 4, "expected the players and scores"),
    (" Game 1\n a : 0   b : 0\n", 1, "point match"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 hello\n", 5,
     "unexpected 'hello'"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5  Doubles => 4\n", 5,
     "expected 'Doubles => 2'"),
    (" 3 point match\n\n Game 1\n a : 0   b : 1\n  1) 31: 8/5 6/5\n", 4, "score 0-1"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n\n Game 2\n", 7,
     "previous game ended"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5   Doubles => 2\n"
     "  2)  Takes  \n      Wins 5 points\n", 7, "a resignation scores 1, 2 or 3"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 33: 8/5 6/5\n", 5, "is a double"),
    # dice and no move where one exists: only a resignation may follow them
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5    64:\n"
     "  2) 21: 13/11 6/5\n", 5, "a legal move exists"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5    64:\n", 5,
     "a legal move exists"),
]


@pytest.mark.parametrize(("text", "line", "what"), BAD)
def test_malformed_files_name_file_line_and_expectation(text: str, line: int, what: str) -> None:
    with pytest.raises(RecordError) as info:
        parse_mat(text, "bad.mat")
    msg = str(info.value)
    assert msg.startswith(f"bad.mat: line {line}: "), msg
    assert what in msg
    assert "\n" not in msg


def test_double_in_crawford_game_is_refused() -> None:
    text = (" 3 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1) 31: 8/5 6/5                  \n      Wins 2 points\n\n"
            " Game 2\n a : 2                          b : 0\n"
            "  1) 31: 8/5 6/5                  \n"
            "  2)  Doubles => 2                 Takes\n")
    with pytest.raises(RecordError, match=r"line 11: .*Crawford"):
        parse_mat(text, "c.mat")


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        read_mat(tmp_path / "missing.mat")


# --- writing --------------------------------------------------------------------------------


def test_write_atomic_to_path_and_handle(tmp_path: Path) -> None:
    events, _ = random_match(5)
    out = tmp_path / "m.mat"
    out.write_text("old")
    write_mat(events, out)
    assert out.read_text() == dumps_mat(events)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mat"]
    buf = io.StringIO()
    write_mat(events, buf)
    assert buf.getvalue() == out.read_text()


@pytest.mark.parametrize("seed", range(12))
def test_random_matches_round_trip_through_mat(seed: int) -> None:
    events, _ = random_match(seed)
    text = dumps_mat(events)
    back = parse_mat(text)
    assert replay(back).score == replay(events).score
    assert dumps_mat(back) == text
    assert [g.points for g in replay(back).games] == [g.points for g in replay(events).games]


def test_money_play_header() -> None:
    events, _ = random_match(1, length=0, max_games=2)
    text = dumps_mat(events)
    assert text.startswith(" 0 point match\n")
    assert replay(parse_mat(text)).score == replay(events).score


def test_unwritable_events_are_warned_not_hidden() -> None:
    from pibg.events import SetUp

    events, _ = random_match(2, length=3)
    k = next(i for i, e in enumerate(events) if isinstance(e, Rolled))
    moved = events[k + 1]
    assert isinstance(moved, Moved)
    # a resync to the position the play led to, with the other side on roll
    edited = [*events[: k + 2], SetUp(moved.result.swap_turn())]
    rec = match_record(edited)
    assert any("resynced" in w for w in rec.warnings)
    assert match_record(events).warnings == []


def test_roll_then_resignation_reads_strictly() -> None:
    """A player who rolls and resigns before moving: gnubg (and pibg) write the dice with no
    move, then the 'Wins' line; the strict reader takes it, as gnubg does."""
    events, _ = random_match(3, length=3)
    k = next(i for i, e in enumerate(events) if isinstance(e, Rolled))
    rolled = events[k]
    assert isinstance(rolled, Rolled)
    cut = [*events[: k + 1], Resigned(rolled.player, 2)]
    text = dumps_mat(cut)
    back = parse_mat(text)
    assert replay(back).score == replay(cut).score
    assert isinstance(back[-2], Resigned) and back[-2].player is rolled.player


def test_resignation_by_the_side_not_on_turn() -> None:
    events, _ = random_match(2, length=3)
    k = next(i for i, e in enumerate(events) if isinstance(e, Rolled))
    rolled = events[k]
    assert isinstance(rolled, Rolled)
    player = rolled.player
    cut = [*events[: k + 2], Resigned(player, 1)]  # after the play, the other side is on turn
    rec = match_record(cut)
    act = rec.games[0].actions[-1]
    assert act.kind == "resign" and act.player is player
    assert rec.games[0].result is not None and rec.games[0].result.winner is player.other
    back = parse_mat(dumps_mat(rec))
    assert replay(back).score == replay(cut).score
