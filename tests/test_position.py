from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pibg.exc import InvalidPositionIdError, PositionError
from pibg.position import Color, Position, Termination

START_ID = "4HPwATDgc/ABMA"


def test_start_position_id_matches_gnubg():
    assert Position.start().position_id() == START_ID
    assert Position.from_id(START_ID) == Position.start()


def test_repr_evaluates_back():
    pos = Position.from_id("4HPwATDgc/ABMA", Color.BLACK)
    assert eval(repr(pos)) == pos


def test_start_xgid_is_xgs_standard():
    assert Position.start().xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_signed_form_of_start():
    s = Position.start().signed()
    assert s[0] == -2 and s[5] == 5 and s[7] == 3 and s[11] == -5
    assert s[12] == 5 and s[16] == -3 and s[18] == -5 and s[23] == 2
    assert sum(s) == 0


def test_pips_and_off():
    pos = Position.start()
    assert pos.pips(Color.WHITE) == pos.pips(Color.BLACK) == 167
    assert pos.off(Color.WHITE) == 0


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Random valid positions: each side places up to 15 checkers on free places."""
    white = [0] * 25
    black = [0] * 25
    for board, other in ((white, black), (black, white)):
        n = draw(st.integers(0, 15))
        for _ in range(n):
            i = draw(st.integers(0, 24))
            if i < 24 and other[23 - i]:
                continue
            board[i] += 1
    turn = draw(st.sampled_from(list(Color)))
    return Position(tuple(white), tuple(black), turn)


@settings(max_examples=400)
@given(positions())
def test_position_id_round_trip(pos: Position):
    assert Position.from_id(pos.position_id(), pos.turn) == pos


@settings(max_examples=400)
@given(positions())
def test_xgid_round_trip(pos: Position):
    assert Position.from_xgid(pos.xgid()) == pos


@settings(max_examples=400)
@given(positions())
def test_signed_round_trip(pos: Position):
    off = (pos.off(Color.WHITE), pos.off(Color.BLACK))
    bar = (pos.bar(Color.WHITE), pos.bar(Color.BLACK))
    assert Position.from_signed(pos.signed(), bar, off, pos.turn) == pos


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABM!", "//////////////"])
def test_bad_position_ids_raise(bad: str):
    with pytest.raises(InvalidPositionIdError):
        Position.from_id(bad)


def test_both_colours_on_one_point_is_rejected():
    points = [0] * 24
    with pytest.raises(PositionError, match="holds both"):
        white = [0] * 25
        black = [0] * 25
        white[5] = 1
        black[18] = 1  # Black's 19-point is White's 6-point
        Position(tuple(white), tuple(black))
    assert points == [0] * 24


def test_sixteen_checkers_rejected():
    with pytest.raises(PositionError, match="at most 15"):
        Position.from_signed([16] + [0] * 23)


def test_signed_totals_must_be_fifteen():
    with pytest.raises(PositionError, match="not 15"):
        Position.from_signed(list(Position.start().signed()), off=(1, 0))


@pytest.mark.parametrize("bad", ["XGID=abc", "XGID=-b----E-C---eE---c-e----B-:0:0:7:00", "junk"])
def test_bad_xgid_raises(bad: str):
    with pytest.raises(InvalidPositionIdError):
        Position.from_xgid(bad)


def test_terminations():
    white_done = (0,) * 25
    single = [0] * 25
    single[5] = 10  # Black has borne off 5
    assert Position(white_done, tuple(single)).termination() is Termination.SINGLE
    gammon = [0] * 25
    gammon[5] = 15
    assert Position(white_done, tuple(gammon)).termination() is Termination.GAMMON
    bg = [0] * 25
    bg[5] = 14
    bg[20] = 1  # Black's 21-point is in White's home board
    assert Position(white_done, tuple(bg)).termination() is Termination.BACKGAMMON
    bar = [0] * 25
    bar[5] = 14
    bar[24] = 1
    assert Position(white_done, tuple(bar)).termination() is Termination.BACKGAMMON
    assert Position.start().termination() is None
