"""Disagreements with gnubg found by the records work in files owned by others (reported).

Kept as strict xfails so the suite stays green meanwhile and turns red (XPASS) once fixed, as
a reminder to drop the marker.
"""

from __future__ import annotations

import pytest

from pibg.events import GameStarted, MatchSettings
from pibg.match import MatchState, apply


@pytest.mark.xfail(strict=True, reason="pibg.match: game 1 of a 1-point match is marked "
                   "Crawford (max(score) == length - 1 at 0-0); gnubg says it is not: nobody "
                   "has reached match point (gnubg.match() info 'crawford': False, and its SGF "
                   "has no RU[Crawford] for 1-point matches)")
def test_first_game_of_a_one_point_match_is_not_crawford() -> None:
    state = MatchState.new(MatchSettings(length=1))
    state = apply(state, GameStarted())
    assert state.game is not None
    assert state.game.crawford is False
