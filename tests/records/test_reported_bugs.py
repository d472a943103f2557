"""Disagreements with gnubg found by the records work, kept as regression tests."""

from __future__ import annotations

from pibg.events import GameStarted, MatchSettings
from pibg.match import MatchState, apply


def test_first_game_of_a_one_point_match_is_not_crawford() -> None:
    state = MatchState.new(MatchSettings(length=1))
    state = apply(state, GameStarted())
    assert state.game is not None
    assert state.game.crawford is False
