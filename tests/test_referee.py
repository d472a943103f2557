"""The referee, fed perfect and imperfect readings of scripted tables (no camera)."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import pytest

from pibg.decoder import slips
from pibg.effects import LED_STATUS, RED, Sound
from pibg.events import (
    Beavered,
    Corrected,
    Doubled,
    Dropped,
    GameEnded,
    GameStarted,
    IllegalFlagged,
    MatchEnded,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.infer import Outcome, judge
from pibg.match import effective_events, replay
from pibg.moves import ALL_THROWS, Dice
from pibg.observation import BoardObservation, RegionRead
from pibg.position import Color, Position
from pibg.referee import Frame, Mode, Press, RefereeConfig, new_match, resume, step
from pibg.rules import legal_plays, resolve
from pibg.script import Mishaps, Scene, drive, observe_exact, table_script
from pibg.selfplay import random_match

PLAY_EVENTS = (Moved, Doubled, Took, Dropped, Beavered, OpeningRoll, Rolled)


def _plays(events):
    return [e for e in effective_events(events) if isinstance(e, PLAY_EVENTS)]


@pytest.mark.parametrize("seed", range(12))
def test_random_matches_are_recorded_exactly(seed: int):
    events = random_match(seed)
    st = drive(table_script(events), events[0].settings)
    assert _plays(st.events) == _plays(events)
    assert st.match.score == replay(events).score
    assert st.mode is Mode.MATCH_OVER
    assert isinstance(st.events[-1], MatchEnded)
    assert not any(isinstance(e, IllegalFlagged) for e in st.events)


def test_money_options_beaver_and_drop():
    s = MatchSettings(length=0, beaver=True, automatic_doubles=True, max_automatic_doubles=2)
    for seed in range(4):
        events = random_match(seed, s, double_rate=0.2, max_games=4)
        st = drive(table_script(events), s)
        assert _plays(st.events) == _plays(events)


@pytest.mark.parametrize("seed", range(8))
def test_planted_mishaps_flagged_and_corrected(seed: int):
    events = random_match(100 + seed)
    mis = Mishaps(illegal=0.15, bump=0.05, hand=0.2, cocked=0.05, seed=seed)
    script = table_script(events, mis)
    kinds = Counter(a.kind for a in script if isinstance(a, Scene))
    st = drive(script, events[0].settings)
    flagged = [e for e in st.events if isinstance(e, IllegalFlagged)]
    assert len(flagged) == kinds["illegal"]  # every planted illegal move, no legal one
    assert sum(isinstance(e, Corrected) for e in st.events) == kinds["illegal"]
    assert all(e.reasons for e in flagged)
    assert _plays(st.events) == _plays(events)


def _turn_state(dice=(3, 1)):
    """A referee at White's first move after an opening roll."""
    first = new_match(MatchSettings(length=5), RefereeConfig(stable_seconds=1.0))
    st = first.state
    t = 0.0
    for scene in (Scene.of("start", Position.start()),
                  Scene.of("roll", Position.start(), dice=dice)):
        for dt in (0, 1.1):
            st = step(st, Frame(t + dt, observe_exact(scene))).state
        t += 2
    return st, t


def _hold(st, t, pos: Position, **kw):
    obs = observe_exact(Scene.of("x", pos, **kw))
    res = [step(st, Frame(t, obs))]
    res.append(step(res[0].state, Frame(t + 1.1, obs)))
    return res[-1].state, [e for r in res for e in r.events], [s for r in res for s in r.say], \
        res[-1].effects


def _one_pip() -> Position:
    """The start with one White checker 13/12: no roll plays just one pip from the start (a
    legal play of another roll would be taken as a misread roll instead:
    tests/test_referee_dice.py)."""
    signed = list(Position.start().signed())
    signed[12] -= 1
    signed[11] += 1
    return Position.from_signed(tuple(signed), (0, 0))


def test_illegal_then_condoned_with_confirm():
    st, t = _turn_state((3, 1))
    bad = _one_pip()
    st, evs, _say, fx = _hold(st, t, bad)
    assert st.mode is Mode.ILLEGAL
    flag = next(e for e in evs if isinstance(e, IllegalFlagged))
    assert flag.reasons
    assert fx.sound is Sound.ILLEGAL and any(c == RED for c in fx.leds[:24])
    res = step(st, Press(t + 5, "confirm"))
    moved = [e for e in res.events if isinstance(e, Moved)]
    assert moved and moved[0].illegal
    assert res.state.mode is Mode.TO_ROLL
    assert res.state.match.game is not None and res.state.match.game.turn is Color.BLACK


def test_an_illegal_play_stands_once_the_opponent_rolls_on_it():
    """Flagged, nobody presses anything, Black throws on the board as it stands: by the
    rules the play stands. It is recorded as an illegal play, marked, and Black's throw is
    taken; the game goes on (nothing waits for a button)."""
    st, t = _turn_state((3, 1))
    bad = _one_pip()
    st, evs, _say, _fx = _hold(st, t, bad)
    assert st.mode is Mode.ILLEGAL
    st, evs, say, _fx = _hold(st, t + 3, bad, dice=(5, 2))
    moved = [e for e in evs if isinstance(e, Moved)]
    assert len(moved) == 1 and moved[0].illegal and moved[0].player is Color.WHITE
    assert "the play stands" in moved[0].flag
    assert [e.dice for e in evs if isinstance(e, Rolled)] == [Dice(5, 2)]
    assert st.mode is Mode.MOVING and st.match.game is not None
    assert st.match.game.turn is Color.BLACK
    assert any("condoned" in line for line in say)



def _black_to_move(dice=(5, 2)):
    """White opened 3-1 (8/5 6/5); Black's throw ``dice`` lies on the board: Black moving."""
    st, t = _turn_state((3, 1))
    opened = resolve(Position.start(), (3, 1), "8/5 6/5").result.swap_turn()
    st, _evs, _say, _fx = _hold(st, t, opened)
    st, evs, _say, _fx = _hold(st, t + 2, opened, dice=dice)
    assert [e.dice for e in evs if isinstance(e, Rolled)] == [Dice(*dice)]
    return st, t + 4, opened


def test_a_flagged_board_that_shows_a_legal_play_when_the_opponent_throws_is_put_right():
    """A board flagged illegal (a misreading: a hand, a checker read in the wrong place)
    that shows a clear legal play of the throw by the time the opponent throws: the play is
    put right and recorded as played, not condoned as the illegal board first read."""
    st, t, opened = _black_to_move((5, 2))
    one_pip = list(opened.signed())
    one_pip[0], one_pip[1] = one_pip[0] + 1, one_pip[1] - 1  # Black 24/23: no throw's play
    st, _evs, _say, _fx = _hold(st, t, Position.from_signed(tuple(one_pip), (0, 0),
                                                            turn=Color.BLACK))
    assert st.mode is Mode.ILLEGAL
    good = resolve(opened, (5, 2), "13/8 13/11").result
    st, evs, say, _fx = _hold(st, t + 3, good.swap_turn(), dice=(4, 3))
    assert any(isinstance(e, Corrected) for e in evs)
    moved = [e for e in evs if isinstance(e, Moved)]
    assert [(m.play.result, m.illegal) for m in moved] == [(good, False)]
    assert [e.dice for e in evs if isinstance(e, Rolled)] == [Dice(4, 3)]
    assert not any("condoned" in line for line in say)
    assert st.mode is Mode.MOVING and st.match.game is not None
    assert st.match.game.turn is Color.WHITE


def _played_then_seen(shown: Position):
    """White's 3-1 recorded as 8/5 6/5 from its board, then a board ``shown`` (Black to
    roll, no dice) held before Black throws."""
    st, t = _turn_state((3, 1))
    first = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, evs, _say, _fx = _hold(st, t, first.swap_turn())
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["8/5 6/5"]
    return _hold(st, t + 3, shown)


def test_a_play_recorded_from_a_misreading_is_set_right_by_the_board_after_it():
    """The board a play was recorded from was misread (a hand over it, a knock of the
    camera), and the board then held, before the opponent throws, is a clear other legal
    play of the same throw from the same position: the turn is taken back (an undo in the
    journal, nothing lost) and recorded as the board shows it, marked with what was first
    read, instead of asking the players to restore a board that never stood."""
    other = resolve(Position.start(), (3, 1), "24/23 13/10").result
    st, evs, say, _fx = _played_then_seen(other.swap_turn())
    assert any(isinstance(e, Undone) for e in evs)
    moved = [e for e in evs if isinstance(e, Moved)]
    assert [(m.player, str(m.play)) for m in moved] == [(Color.WHITE, "24/23 13/10")]
    assert "first read as 8/5 6/5" in moved[0].flag and moved[0].dice_seen
    assert st.mode is Mode.TO_ROLL and not any("restore" in line for line in say)
    plays = [e for e in effective_events(st.events) if isinstance(e, Moved)]
    assert [str(m.play) for m in plays] == ["24/23 13/10"]
    assert st.match.game is not None and st.match.game.position == other.swap_turn()


def test_a_board_no_play_of_the_throw_makes_after_a_recorded_play_is_not_taken_for_one():
    """The board after a recorded play changes to one no play of that throw makes (a
    checker knocked a point): the play stands and the players are asked to restore it."""
    knocked = list(resolve(Position.start(), (3, 1), "8/5 6/5").result.signed())
    knocked[4], knocked[3] = knocked[4] - 1, 1  # one of the 5-point's checkers on the 4
    st, evs, say, _fx = _played_then_seen(Position.from_signed(tuple(knocked),
                                                               turn=Color.BLACK))
    assert not any(isinstance(e, (Undone, Moved)) for e in evs)
    assert st.mode is Mode.RESYNC and any("restore" in line for line in say)



def _careless(pos: Position, dice: Dice) -> Position:
    """A play of ``dice`` from ``pos`` with one checker one point off, that no throw's legal
    play makes and that is no knock of ``pos`` itself."""
    legal = {p.result.key() for roll in ALL_THROWS for p in legal_plays(pos, roll)}
    knocks = {q.key() for q in slips(pos)}
    for play in legal_plays(pos, dice):
        for q in slips(play.result):
            if q.key() not in legal and q.key() not in knocks:
                return q
    raise AssertionError("no careless board")


def test_a_careless_play_made_with_dice_nobody_saw_stands_once_the_opponent_throws():
    """Black's turn, its dice never seen: Black plays a 6-4 with one checker one point off,
    a board no throw's play makes and no knock of the known board makes either. White throws
    on it: the play stands, recorded as played and marked, and the throw is White's, not
    Black's."""
    st, t = _turn_state((3, 1))
    after = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _, _ = _hold(st, t, after)[:3]
    black = after.swap_turn()
    careless = _careless(black, Dice(6, 4))
    st, _, _ = _hold(st, t + 3, careless)[:3]
    assert st.mode is Mode.RESYNC
    st, evs, _ = _hold(st, t + 6, careless, dice=(5, 2))[:3]
    moved = [e for e in evs if isinstance(e, Moved)]
    assert len(moved) == 1 and moved[0].player is Color.BLACK and moved[0].illegal
    assert not moved[0].dice_seen and "the play stands" in moved[0].flag
    assert [(e.player, e.dice) for e in evs if isinstance(e, Rolled)][-1] == (
        Color.WHITE, Dice(5, 2))
    assert st.mode is Mode.MOVING


def test_unplayed_roll_is_flagged():
    st, t = _turn_state((6, 5))
    st2, evs, _say, _fx = _hold(st, t, Position.start())
    assert st2.mode is Mode.ILLEGAL
    assert any("not played" in r for e in evs if isinstance(e, IllegalFlagged) for r in e.reasons)


def test_hand_over_board_is_never_judged():
    st, t = _turn_state((3, 1))
    hand = BoardObservation.unreadable("hand")
    for dt in (0, 1, 2, 3):
        res = step(st, Frame(t + dt, hand))
        assert not res.events
        st = res.state
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, evs, _, _ = _hold(st, t + 5, good)
    assert any(isinstance(e, Moved) and str(e.play) == "8/5 6/5" for e in evs)


def test_unstable_reading_waits():
    st, t = _turn_state((3, 1))
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    obs = observe_exact(Scene.of("x", good))
    res = step(st, Frame(t, obs))
    res = step(res.state, Frame(t + 0.5, obs))  # not yet stable for 1 s
    assert not res.events
    res = step(res.state, Frame(t + 1.0, obs))
    assert any(isinstance(e, Moved) for e in res.events)


def test_undo_then_replay_a_different_move():
    st, t = _turn_state((3, 1))
    first = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _evs, _, _ = _hold(st, t, first)
    assert st.mode is Mode.TO_ROLL
    res = step(st, Press(t + 3, "undo"))
    assert isinstance(res.events[0], Undone) and res.state.mode is Mode.MOVING
    other = resolve(Position.start(), (3, 1), "24/23 13/10").result
    st, _evs, _, _ = _hold(res.state, t + 4, other)
    assert [str(e.play) for e in _plays(st.events) if isinstance(e, Moved)] == ["24/23 13/10"]


def test_cube_by_buttons_and_crawford_refusal():
    st, t = _turn_state((3, 1))
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _, _, _ = _hold(st, t, good)
    res = step(st, Press(t + 3, "double"))
    assert isinstance(res.events[0], Doubled) and res.state.mode is Mode.DOUBLED
    res = step(res.state, Press(t + 4, "take"))
    assert isinstance(res.events[0], Took)
    g = res.state.match.game
    assert g is not None and g.cube.value == 2 and g.cube.owner is Color.WHITE
    res = step(res.state, Press(t + 5, "beaver"))
    assert not res.events  # no double offered: refused with a message


def test_drop_ends_game_and_announces():
    st, t = _turn_state((3, 1))
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _, _, _ = _hold(st, t, good)
    res = step(step(st, Press(t + 3, "double")).state, Press(t + 4, "drop"))
    assert any(isinstance(e, Dropped) for e in res.events)
    end = next(e for e in res.events if isinstance(e, GameEnded))
    assert end.winner is Color.BLACK and end.points == 1
    assert res.state.mode is Mode.GAME_OVER and res.state.match.score == (0, 1)


def test_resync_after_bump_and_long_confirm_setup():
    st, t = _turn_state((3, 1))
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _, _, _ = _hold(st, t, good)
    bumped = list(good.signed())
    bumped[12] -= 1
    bumped[13] += 1
    bpos = Position.from_signed(bumped)
    st, evs, _, _fx = _hold(st, t + 3, bpos)
    assert st.mode is Mode.RESYNC and not evs
    res = step(st, Press(t + 6, "confirm", long=True))
    assert isinstance(res.events[0], SetUp) and res.state.mode is Mode.TO_ROLL
    g = res.state.match.game
    assert g is not None and g.position.signed() == bpos.signed() and g.turn is Color.BLACK


def test_resume_after_restart_waits_for_the_board():
    events = random_match(3)
    cut = events[: len(events) // 2]
    first = resume(tuple(cut))
    assert first.state.match == replay(cut)
    if first.state.mode is Mode.RESYNC:
        g = first.state.match.game
        assert g is not None
        st, _, _say, _ = _hold(first.state, 0, g.position)
        assert st.mode is not Mode.RESYNC


def test_status_led_shows_whose_turn():
    st, t = _turn_state((3, 1))
    fx = step(st, Frame(t, observe_exact(Scene.of("x", Position.start(), dice=(3, 1))))).effects
    assert fx.leds[LED_STATUS] != (0, 0, 0)


def test_judge_weighs_uncertain_regions():
    """A reading unsure between 4 and 5 checkers on a point is settled by the rules."""
    start = Position.start()
    result = resolve(start, (3, 1), "8/5 6/5").result
    obs = observe_exact(Scene.of("x", result))
    pts = list(obs.points)
    pts[5] = RegionRead.from_mapping({3: 0.55, 4: 0.45})  # White's 6-point: truly 4
    obs2 = BoardObservation(tuple(pts), obs.bar_white, obs.bar_black, obs.off_white,
                            obs.off_black)
    v = judge(start, Dice(3, 1), obs2)
    assert v.outcome is Outcome.PLAY and v.play is not None and v.play.result == result


def test_judge_asks_when_two_plays_fit_equally():
    start = Position.start()
    a = resolve(start, (3, 1), "8/5 6/5").result
    b = resolve(start, (3, 1), "24/23 24/21").result
    sa, sb = a.signed(), b.signed()
    regions = []
    for x, y in zip(sa, sb, strict=True):
        regions.append(RegionRead.certain(x) if x == y else
                       RegionRead.from_mapping({x: 0.5, y: 0.5}))
    v = judge(start, Dice(3, 1), BoardObservation(tuple(regions)))
    assert v.outcome is Outcome.AMBIGUOUS and len(v.candidates) == 2
    assert v.points and all(1 <= p <= 24 for p in v.points)
    assert math.isfinite(v.score)


def test_cube_pushed_across_is_a_take_whatever_its_face_reads():
    """The cube's place decides: moved to the opponent before the roll it was doubled and
    taken (value x2 by the rules), even when its face is misread."""
    st, t = _turn_state((3, 1))
    good = resolve(Position.start(), (3, 1), "8/5 6/5").result
    st, _, _, _ = _hold(st, t, good)
    st, evs, _, _ = _hold(st, t + 3, good, cube_value=8, cube_owner="white")  # face misread
    assert [type(e) for e in evs] == [Doubled, Took]
    g = st.match.game
    assert g is not None and g.cube.value == 2 and g.cube.owner is Color.WHITE
    st, evs, _, _ = _hold(st, t + 6, good, cube_value=2, cube_owner="white", dice=(2, 1))
    assert [type(e) for e in evs] == [Rolled]  # the cube staying there is no new double


def test_a_turn_passed_on_a_misreading_is_set_right_when_the_board_shows_it_played():
    """White on the bar throws 6-5 (only the 6 enters); a die read flat while it leaned is
    picked up and thrown again, the same 6-5, on the board unmoved: taken, as nobody answers,
    for White's turn passed with a 5-1 nobody confirmed and Black's 6-5. Then the board
    shows White's checker entered, Black's unmoved: White's turn is recorded again as the
    board shows it (6-5 bar/19, an undo in the journal) and Black is to roll, not flagged
    for moving White's checker (render sim m023)."""
    signed = (0, 0, 0, 3, 2, 3, 0, 0, 0, 0, -1, 0, 3, 0, 0, 0, 0, 0, 0, -2, -4, -3, -3, -2)
    before = Position.from_signed(signed, (4, 0))
    st = resume((MatchStarted(settings=MatchSettings(length=9)), GameStarted(),
                 SetUp(position=before)), RefereeConfig(stable_seconds=1.0)).state
    st, _evs, _say, _fx = _hold(st, 0, before)
    assert st.mode is Mode.TO_ROLL
    st = _hold(st, 2, before, dice=(6, 5))[0]
    st = _hold(st, 4, before)[0]  # lifted, nothing moved: flagged, the dice doubted
    assert st.mode is Mode.ILLEGAL
    obs = observe_exact(Scene.of("x", before, dice=(6, 5)))
    obs = dataclasses.replace(obs, dice=tuple(dataclasses.replace(d, x=d.x - 300)
                                              for d in obs.dice))  # thrown again elsewhere
    for dt in (0, 1.1):
        st = step(st, Frame(6 + dt, obs)).state
    assert [e.dice for e in st.events if isinstance(e, Rolled)][-1] == Dice(6, 5)
    assert st.match.game is not None and st.match.game.turn is Color.BLACK  # taken for Black's
    entered = resolve(before, (6, 5), "bar/19").result
    st, evs, say, _fx = _hold(st, 8, entered)
    assert any(isinstance(e, Undone) for e in evs)
    assert not any(isinstance(e, IllegalFlagged) for e in evs)
    plays = [e for e in effective_events(st.events) if isinstance(e, Moved)]
    assert [(m.player, m.dice, str(m.play)) for m in plays] == [
        (Color.WHITE, Dice(6, 5), "bar/19")]
    assert "first read as no move with 5-1" in plays[0].flag and plays[0].dice_seen
    assert st.mode is Mode.TO_ROLL and st.match.game.turn is Color.BLACK
    assert any("not no move with 5-1" in line for line in say)
    st, evs, _say, _fx = _hold(st, 10, entered, dice=(5, 4))
    assert [e.dice for e in evs if isinstance(e, Rolled)] == [Dice(5, 4)]
    assert st.mode is Mode.MOVING


def test_a_board_no_play_of_the_last_turn_makes_is_still_flagged_as_the_opponents_checkers():
    """Black's throw taken, and the board shows a White checker moved that no play of
    White's last throw (3-1) leaves: flagged as before (the opponent's checkers moved), the
    last turn not touched."""
    st, t, opened = _black_to_move((5, 2))
    signed = list(opened.signed())
    signed[7], signed[9] = signed[7] - 1, signed[9] + 1  # a White checker 8/10: no play
    st, evs, _say, _fx = _hold(st, t, Position.from_signed(tuple(signed), (0, 0),
                                                           turn=Color.BLACK))
    assert not any(isinstance(e, (Undone, Moved)) for e in evs)
    assert st.mode is Mode.ILLEGAL
    flag = next(e for e in evs if isinstance(e, IllegalFlagged))
    assert "the opponent's checkers were moved" in flag.reasons
