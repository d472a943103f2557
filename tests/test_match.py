"""Cube, score, Crawford and the gnubg Match ID."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    GameStarted,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Rolled,
    Took,
    Undone,
)
from pibg.exc import CubeError, InvalidMatchIdError, MatchError
from pibg.match import (
    MatchIdFields,
    MatchState,
    Phase,
    apply,
    decode_match_id,
    encode_fields,
    replay,
)
from pibg.moves import Dice, Play
from pibg.position import Color, Position
from pibg.rules import legal_plays, resolve


def _start(length: int = 5, **opts) -> list:
    return [MatchStarted(MatchSettings(length=length, **opts)), GameStarted()]


def test_opening_roll_and_a_play():
    events = [*_start(), OpeningRoll(white=3, black=1)]
    st_ = replay(events)
    assert st_.game and st_.game.phase is Phase.MOVE and st_.game.turn is Color.WHITE
    play = resolve(st_.game.position, (3, 1), "8/5 6/5")
    events.append(Moved(player=Color.WHITE, dice=Dice(3, 1), play=play))
    st2 = replay(events)
    assert st2.game and st2.game.turn is Color.BLACK and st2.game.phase is Phase.ROLL


def test_illegal_result_is_refused():
    events = [*_start(), OpeningRoll(white=3, black=1)]
    bogus = Position.start()  # nothing moved
    with pytest.raises(MatchError, match="not a legal result"):
        replay([*events, Moved(player=Color.WHITE, dice=Dice(3, 1), play=Play((), (), bogus))])
    # a condoned illegal play is kept as played: its board, its steps not known
    st_ = replay([*events, Moved(player=Color.WHITE, dice=Dice(3, 1),
                                 play=Play((), (), bogus), illegal=True)])
    assert st_.game and st_.game.turn is Color.BLACK


def _to_black_roll() -> list:
    events = [*_start(), OpeningRoll(white=3, black=1)]
    p = resolve(Position.start(), (3, 1), "8/5 6/5")
    events.append(Moved(player=Color.WHITE, dice=Dice(3, 1), play=p))
    return events


def test_double_take_drop():
    events = _to_black_roll()
    st_ = replay([*events, Doubled(player=Color.BLACK), Took(player=Color.WHITE)])
    assert st_.game and st_.game.cube.value == 2 and st_.game.cube.owner is Color.WHITE
    events += [Doubled(player=Color.BLACK), Took(player=Color.WHITE)]
    for player, dice in ((Color.BLACK, Dice(2, 1)), (Color.WHITE, Dice(6, 5))):
        events.append(Rolled(player=player, dice=dice))
        g = replay(events).game
        assert g is not None
        p = legal_plays(g.position, dice)[0]
        events.append(Moved(player=player, dice=dice, play=p))
    with pytest.raises(CubeError, match="owned by white"):
        replay([*events, Doubled(player=Color.BLACK)])
    events = _to_black_roll()
    dropped = replay([*events, Doubled(player=Color.BLACK), Dropped(player=Color.WHITE)])
    assert dropped.score == (0, 1)
    assert dropped.games[-1].termination == "drop"


def test_double_after_rolling_is_refused():
    events = [*_to_black_roll(), Rolled(player=Color.BLACK, dice=Dice(2, 1))]
    with pytest.raises(CubeError, match="before rolling"):
        replay([*events, Doubled(player=Color.BLACK)])


def test_double_out_of_turn_is_refused():
    with pytest.raises(CubeError, match="own turn"):
        replay([*_to_black_roll(), Doubled(player=Color.WHITE)])


def test_beaver_only_in_money_with_option():
    events = _to_black_roll()
    with pytest.raises(CubeError, match="beaver"):
        replay([*events, Doubled(player=Color.BLACK), Beavered(player=Color.WHITE)])
    money = [MatchStarted(MatchSettings(length=0, beaver=True)), *_to_black_roll()[1:]]
    st_ = replay([*money, Doubled(player=Color.BLACK), Beavered(player=Color.WHITE)])
    assert st_.game and st_.game.cube.value == 4 and st_.game.cube.owner is Color.WHITE


def test_automatic_doubles_capped():
    ev = [MatchStarted(MatchSettings(length=0, automatic_doubles=True, max_automatic_doubles=1)),
          GameStarted(), OpeningRoll(white=4, black=4), OpeningRoll(white=2, black=2)]
    st_ = replay(ev)
    assert st_.game and st_.game.cube.value == 2 and st_.game.cube.owner is None


def test_crawford_game_forbids_doubling():
    st_ = MatchState.new(MatchSettings(length=3))
    st_ = replay([GameStarted(), OpeningRoll(white=3, black=1)], st_)
    st_ = replace_score(st_, (2, 0))
    st_ = apply(st_, GameStarted())
    assert st_.game and st_.game.crawford
    st_ = apply(st_, OpeningRoll(white=1, black=3))
    p = legal_plays(st_.game.position, (1, 3))[0]
    st_ = apply(st_, Moved(player=Color.BLACK, dice=Dice(1, 3), play=p))
    with pytest.raises(CubeError, match="Crawford"):
        apply(st_, Doubled(player=Color.WHITE))


def replace_score(state: MatchState, score: tuple[int, int]) -> MatchState:
    from dataclasses import replace

    game = state.game
    assert game is not None
    return replace(state, score=score, game=replace(game, phase=Phase.OVER))


def test_undo_takes_back_the_last_play():
    events = _to_black_roll()
    st_ = replay([*events, Undone()])
    assert st_.game and st_.game.phase is Phase.MOVE and st_.game.turn is Color.WHITE
    assert st_.game.position == Position.start()


def test_match_id_matches_gnubg():
    # gnubg 1.07: 'new match 7', opening roll 5-4 for player 0: Match ID MIHyAAAAAAAE
    f = decode_match_id("MIHyAAAAAAAE")
    assert f.length == 7 and f.dice == (5, 4) and f.state == 1 and f.cube == 1
    assert f.owner is None and f.score == (0, 0)
    assert encode_fields(f) == "MIHyAAAAAAAE"


@given(
    cube=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    owner=st.sampled_from([None, Color.WHITE, Color.BLACK]),
    move=st.sampled_from(list(Color)),
    crawford=st.booleans(),
    state=st.integers(0, 4),
    doubled=st.booleans(),
    dice=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    length=st.integers(0, 64),
    score=st.tuples(st.integers(0, 64), st.integers(0, 64)),
    jacoby=st.booleans(),
)
def test_match_id_round_trip(cube, owner, move, crawford, state, doubled, dice, length, score,
                             jacoby):
    f = MatchIdFields(cube=cube, owner=owner, move=move, crawford=crawford, state=state,
                      turn=move, doubled=doubled, dice=dice, length=length, score=score,
                      jacoby=jacoby)
    assert decode_match_id(encode_fields(f)) == f


@pytest.mark.parametrize("bad", ["", "MIHyAAAAAAA", "MIHyAAAAAAA!", "////////////"])
def test_bad_match_id(bad):
    with pytest.raises(InvalidMatchIdError):
        decode_match_id(bad)


def test_state_match_id_round_trip():
    st_ = replay(_to_black_roll())
    f = decode_match_id(st_.match_id())
    assert f.length == 5 and f.move is Color.BLACK and f.state == 1 and f.dice == (0, 0)


def test_plays_and_agreeing_prefix():
    from pibg.events import Moved as _Moved
    from pibg.events import Undone as _Undone
    from pibg.match import agreeing, plays

    x, y = Position.start(), Position.start(Color.BLACK)
    a = _Moved(player=Color.WHITE, dice=Dice(1, 3), play=Play((), (), x))
    b = _Moved(player=Color.BLACK, dice=Dice(6, 4), play=Play((), (), y))
    assert plays([a, b, _Undone()]) == [(Color.WHITE, Dice(3, 1), x)]
    assert agreeing([1, 2, 3], [1, 2, 4, 5]) == 2
    assert agreeing([], [1]) == 0
