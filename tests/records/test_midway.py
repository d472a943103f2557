"""A match transcribed from the middle: its first game starts at a score other than 0-0."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.events import MatchStarted, Noted
from pibg.exc import PibgError
from pibg.match import replay
from pibg.matfile import dumps_mat, parse_mat
from pibg.sgf import write_sgf

MIDWAY = (" 5 point match\n\n Game 1\n a : 2                              b : 1\n"
          "  1)                             31: 8/5 6/5\n"
          "  2) 42: 8/4 6/4                 61: 13/7 8/7\n"
          "      Wins 1 point\n")


def test_a_match_begun_mid_way_keeps_its_starting_score():
    warnings: list[str] = []
    events = parse_mat(MIDWAY, "mid.mat", strict=False, warnings=warnings)
    assert events[0] == MatchStarted(events[0].settings, (2, 1))  # type: ignore[attr-defined]
    assert any("starts at 2-1" in w and "line 4" in w for w in warnings)
    assert any(isinstance(e, Noted) for e in events)
    state = replay(events)
    assert state.start == (2, 1) and state.score == (3, 1)  # a (White) won game 1
    assert " a : 2 " in dumps_mat(events) and " b : 1" in dumps_mat(events)


def test_strict_reading_refuses_a_match_begun_mid_way():
    with pytest.raises(PibgError, match="2-1"):
        parse_mat(MIDWAY, "mid.mat", strict=True)


def test_a_starting_score_past_the_match_is_refused():
    with pytest.raises(PibgError, match="past the 5-point match"):
        parse_mat(MIDWAY.replace(" a : 2 ", " a : 5 "), "mid.mat", strict=False)


@pytest.mark.slow
def test_gnubg_reads_pibgs_rewrite_of_a_mid_way_match_as_the_original(tmp_path: Path):
    from pibg.gnubg_oracle import find_gnubg, gnubg_import

    if find_gnubg() is None:
        pytest.skip("GNU Backgammon not installed")
    orig = tmp_path / "orig.mat"
    orig.write_text(MIDWAY)
    events = parse_mat(MIDWAY, "mid.mat", strict=False)
    mine = tmp_path / "mine.mat"
    mine.write_text(dumps_mat(events))
    write_sgf(events, tmp_path / "mine.sgf")
    theirs, ours, sgf = gnubg_import([(orig, "mat"), (mine, "mat"), (tmp_path / "mine.sgf", "sgf")])
    for key in ("info", "game"):
        want = [dict(g)[key] for g in theirs["match"]["games"]]
        assert want == [dict(g)[key] for g in ours["match"]["games"]]
        if key == "info":
            assert want == [dict(g)[key] for g in sgf["match"]["games"]]
