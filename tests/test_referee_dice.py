"""The referee when the dice are misread: read again, or the board fits another roll."""

from __future__ import annotations

import dataclasses

from pibg.events import (
    GameEnded,
    GameStarted,
    IllegalFlagged,
    MatchSettings,
    Moved,
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    Undone,
)
from pibg.match import effective_events, replay
from pibg.moves import Dice
from pibg.observation import BoardObservation, DieRead, RegionRead
from pibg.position import Color, Position
from pibg.referee import Frame, Mode, Press, RefereeConfig, new_match, step
from pibg.rules import resolve
from pibg.stats import dice_stats

START = Position.start()


def _feed(st, t, obs, hold=1.1):
    evs, say = [], []
    for dt in (0.0, hold):
        res = step(st, Frame(t + dt, obs))
        st = res.state
        evs += res.events
        say += res.say
    return st, evs, say


def _dice(a, b, conf=1.0):
    return (DieRead(a, 700, 480, True, conf), DieRead(b, 780, 480, True, conf))


def _after_opening():
    """White opened 3-1 (8/5 6/5); Black to roll."""
    st = new_match(MatchSettings(length=5), RefereeConfig(stable_seconds=1.0)).state
    st, _, _ = _feed(st, 0, BoardObservation.exact(START.signed()))
    st, _, _ = _feed(st, 2, BoardObservation.exact(START.signed(), dice=_dice(3, 1)))
    after = resolve(START, (3, 1), "8/5 6/5").result
    st, evs, _ = _feed(st, 4, BoardObservation.exact(after.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["8/5 6/5"]
    return st, after.with_turn(Color.BLACK)


def _at_black_roll(conf: float = 1.0, roll=(5, 3)):
    """White opened 3-1 (8/5 6/5); Black's roll lies on the board, read as ``roll``."""
    st, black = _after_opening()
    st, evs, _ = _feed(st, 6, BoardObservation.exact(black.signed(), dice=_dice(*roll, conf)))
    assert any(isinstance(e, Rolled) and e.dice == Dice(*roll) for e in evs)
    return st, black


def test_dice_read_again_before_the_move_replaces_the_roll():
    st, black = _at_black_roll(roll=(5, 3))
    # later frames of the same dice read 6-3: nobody has moved, so it is the same throw;
    # once they outnumber the frames that read 5-3, the roll is read again
    evs = []
    for t in (8.0, 8.4, 8.8, 9.2, 10.3):
        res = step(st, Frame(t, BoardObservation.exact(black.signed(), dice=_dice(6, 3))))
        st, evs = res.state, evs + list(res.events)
    assert [e for e in evs if isinstance(e, Reread)] == [Reread(Color.BLACK, Dice(6, 3))]
    assert st.mode is Mode.MOVING and st.dice is not None and st.dice.high == 6
    moved = resolve(black, (6, 3), "24/18 13/10").result
    st, evs, _ = _feed(st, 10, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/18 13/10"]
    game = replay(st.events).game
    assert game is not None and game.turn is Color.WHITE
    stats = dice_stats(st.events)
    assert stats.rolls == 1 and stats.faces[5] == 1 and stats.faces[4] == 0  # 6-3, not 5-3


def test_confident_misread_is_flagged_and_confirm_sets_the_dice_right():
    st, black = _at_black_roll(conf=1.0, roll=(5, 3))
    moved = resolve(black, (6, 3), "24/18 13/10").result  # the dice really showed 6-3
    st, evs, _say = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert st.mode is Mode.ILLEGAL
    flag = next(e for e in evs if isinstance(e, IllegalFlagged))
    assert any("fits 6-3" in r for r in flag.reasons)
    res = step(st, Press(10, "confirm"))
    assert [type(e) for e in res.events] == [Reread, Moved]
    mv = res.events[1]
    assert isinstance(mv, Moved) and mv.dice == Dice(6, 3) and not mv.illegal
    assert str(mv.play) == "24/18 13/10"
    assert res.state.mode is Mode.TO_ROLL


def test_unsure_misread_is_settled_by_the_board_and_marked():
    """5-3 read unsurely, 24/18 13/10 played: only 6-3 (keeping the 3) plays that, and no
    checker of a 5-3 play one point off explains it as well: recorded as 6-3 at once, its
    dice marked as inferred, no question and no flag."""
    st, black = _at_black_roll(conf=0.5, roll=(5, 3))
    moved = resolve(black, (6, 3), "24/18 13/10").result
    st, evs, say = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert st.mode is Mode.TO_ROLL
    assert not [e for e in evs if isinstance(e, IllegalFlagged)]
    assert [type(e) for e in evs] == [Reread, Moved]
    mv = evs[1]
    assert isinstance(mv, Moved) and mv.dice == Dice(6, 3) and str(mv.play) == "24/18 13/10"
    assert not mv.dice_seen and "dice read 5-3 unsurely" in mv.flag
    assert any("24/18 13/10 (dice read 5-3 unsurely" in line for line in say)


def test_a_wrong_move_that_fits_no_roll_is_plainly_illegal():
    st, black = _at_black_roll(conf=0.5, roll=(5, 3))
    signed = list(black.signed())
    signed[11] += 1  # one black checker 13/12: no roll plays just one pip here
    signed[12] -= 1
    st, evs, _ = _feed(st, 8, BoardObservation.exact(signed))
    assert st.mode is Mode.ILLEGAL and st.verdict is not None and st.verdict.reroll is None
    assert any(isinstance(e, IllegalFlagged) for e in evs)
    res = step(st, Press(10, "confirm"))  # condoned: kept as played, the roll unchanged
    mv = next(e for e in res.events if isinstance(e, Moved))
    assert mv.illegal and mv.dice == Dice(5, 3)


def test_opening_roll_misread_fixed_by_confirm():
    st = new_match(MatchSettings(length=5), RefereeConfig(stable_seconds=1.0)).state
    st, _, _ = _feed(st, 0, BoardObservation.exact(START.signed()))
    st, _, _ = _feed(st, 2, BoardObservation.exact(START.signed(), dice=_dice(4, 1, 0.6)))
    moved = resolve(START, (3, 1), "8/5 6/5").result  # it was 3-1
    st, _, _ = _feed(st, 4, BoardObservation.exact(moved.signed()))
    assert st.mode is Mode.ASK and st.message[0] == "dice 3-1?"
    res = step(st, Press(6, "confirm"))
    opening = [e for e in res.events if isinstance(e, OpeningRoll)]
    assert opening == [OpeningRoll(white=3, black=1)]
    assert [str(e.play) for e in res.events if isinstance(e, Moved)] == ["8/5 6/5"]


def test_board_misread_at_the_throw_does_not_lose_the_turn():
    """The frame with the dice down misreads a point: the throw is recorded and the board
    asked for; when the dice are lifted on a legal play of it, the play is taken."""
    st, black = _after_opening()
    misread = list(black.signed())
    misread[5] -= 1  # White's 6-point read one short, with the dice down
    st, evs, _ = _feed(st, 6, BoardObservation.exact(misread, dice=_dice(6, 4)))
    assert st.mode is Mode.RESYNC
    assert [e.dice for e in evs if isinstance(e, Rolled)] == [Dice(6, 4)]
    moved = resolve(black, (6, 4), "24/14").result
    st, evs, _ = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/14"]
    assert st.mode is Mode.TO_ROLL


def test_knocked_checker_left_off_is_not_taken_for_a_play():
    """A real knock at the throw: the play is taken only once the knocked checker is back."""
    st, black = _after_opening()

    def knocked(signed):
        out = list(signed)
        out[7], out[8] = out[7] - 1, out[8] + 1  # a White checker pushed from 8 to 9
        return out

    st, _, _ = _feed(st, 6, BoardObservation.exact(knocked(black.signed()), dice=_dice(6, 4)))
    assert st.mode is Mode.RESYNC
    moved = resolve(black, (6, 4), "24/14").result
    st, evs, _ = _feed(st, 8, BoardObservation.exact(knocked(moved.signed())))
    assert st.mode is Mode.RESYNC and not any(isinstance(e, Moved) for e in evs)
    st, evs, _ = _feed(st, 10, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/14"]


def test_die_read_as_cocked_then_played_is_settled_by_the_board():
    st, black = _after_opening()
    cocked = (DieRead(6, 700, 480, True), DieRead(3, 780, 480, False))
    st, _, say = _feed(st, 6, BoardObservation.exact(black.signed(), dice=cocked))
    assert any("roll again" in line for line in say)
    moved = resolve(black, (6, 3), "24/18 13/10").result  # the player went on with 6-3
    st, evs, _ = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert st.mode is Mode.TO_ROLL
    assert [type(e) for e in evs] == [Rolled, Moved]
    assert evs[0] == Rolled(Color.BLACK, Dice(6, 3))
    assert isinstance(evs[1], Moved) and not evs[1].dice_seen and evs[1].flag


def test_dice_after_an_unseen_move_are_not_taken_for_the_player_on_turn():
    """Black moved while the camera saw nothing useful; White's dice then land. They are
    White's throw: Black's turn is inferred from the board (6-3 alone plays it), then
    White's 4-2 is taken."""
    st, black = _after_opening()
    moved = resolve(black, (6, 3), "24/18 13/10").result
    white = moved.with_turn(Color.WHITE)
    st, evs, _ = _feed(st, 6, BoardObservation.exact(white.signed(), dice=_dice(4, 2)))
    rolls = [(e.player, e.dice) for e in evs if isinstance(e, Rolled)]
    assert rolls == [(Color.BLACK, Dice(6, 3)), (Color.WHITE, Dice(4, 2))]
    mv = next(e for e in evs if isinstance(e, Moved))
    assert str(mv.play) == "24/18 13/10" and not mv.dice_seen
    assert st.mode is Mode.MOVING


def test_confirm_while_resyncing_says_the_board_is_right():
    st, black = _after_opening()
    misread = list(black.signed())
    misread[12] += 2  # Black's mid-point read as 3, not 5, with no dice down: resync
    st, _, _ = _feed(st, 6, BoardObservation.exact(misread))
    assert st.mode is Mode.RESYNC
    st, _, _ = _feed(st, 8, BoardObservation.exact(misread, dice=_dice(6, 4)))
    res = step(st, Press(10, "confirm"))
    assert res.state.mode is Mode.MOVING
    assert res.state.dice is not None and res.state.dice.high == 6


def test_a_turn_settled_by_the_board_then_taken_back_with_undo():
    st, black = _after_opening()
    cocked = (DieRead(6, 700, 480, True), DieRead(3, 780, 480, False))
    st, _, _ = _feed(st, 6, BoardObservation.exact(black.signed(), dice=cocked))
    moved = resolve(black, (6, 3), "24/18 13/10").result
    st, evs, _ = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/18 13/10"]
    # the player takes the move back and throws again: no legal turn makes that board, so
    # it is shown, not guessed; undo takes the recorded turn back and the throw is taken
    st, evs, _ = _feed(st, 10, BoardObservation.exact(black.signed(), dice=_dice(5, 2)))
    assert st.mode is Mode.RESYNC and not [e for e in evs if isinstance(e, Moved)]
    st = step(st, Press(11, "undo")).state
    st, evs, _ = _feed(st, 12, BoardObservation.exact(black.signed(), dice=_dice(5, 2)))
    assert [e.dice for e in evs if isinstance(e, (Rolled, Reread))] == [Dice(5, 2)]
    assert st.mode is Mode.MOVING and st.dice is not None and st.dice.high == 5


def test_opening_roll_read_as_cocked_then_played_is_settled_by_the_board():
    st = new_match(MatchSettings(length=5), RefereeConfig(stable_seconds=1.0)).state
    st, _, _ = _feed(st, 0, BoardObservation.exact(START.signed()))
    cocked = (DieRead(4, 700, 480, True), DieRead(6, 780, 480, False))
    st, _, say = _feed(st, 2, BoardObservation.exact(START.signed(), dice=cocked))
    assert any("roll again" in line for line in say)
    moved = resolve(START.with_turn(Color.BLACK), (6, 4), "24/14").result
    st, evs, _ = _feed(st, 4, BoardObservation.exact(moved.signed()))
    assert [type(e) for e in evs] == [OpeningRoll, Moved]
    assert evs[0] == OpeningRoll(white=4, black=6)
    assert st.mode is Mode.TO_ROLL
    # a roll on a board that is not the start is no opening roll
    st2 = new_match(MatchSettings(length=5), RefereeConfig(stable_seconds=1.0)).state
    st2, _, _ = _feed(st2, 0, BoardObservation.exact(START.signed()))
    bumped = list(START.signed())
    bumped[12], bumped[11] = bumped[12] - 1, 1  # a White checker 13/12: no opening play
    st2, evs, _ = _feed(st2, 2, BoardObservation.exact(bumped, dice=_dice(5, 1)))
    assert st2.mode is Mode.OPENING and not evs


def test_one_die_not_found_then_played_is_settled_by_the_board():
    """Black's 3 was seen and the 1 not found (two dice touching, say); Black played 3-1.
    Of the throws, only 3-1 gives that board: recorded, the dice marked as inferred."""
    st, black = _after_opening()
    st, evs, _ = _feed(st, 6, BoardObservation.exact(black.signed(),
                                                      dice=(DieRead(3, 700, 480, True),)))
    assert not any(isinstance(e, Rolled) for e in evs) and st.mode is Mode.TO_ROLL
    moved = resolve(black, (3, 1), "24/23 13/10").result
    st, evs, say = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert evs[0] == Rolled(Color.BLACK, Dice(3, 1))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/23 13/10"]
    assert any("dice read 3 unsurely" in line for line in say)


def test_one_die_seen_and_a_board_no_throw_with_it_gives_is_resynced():
    st, black = _after_opening()
    st, _, _ = _feed(st, 6, BoardObservation.exact(black.signed(),
                                                   dice=(DieRead(3, 700, 480, True),)))
    moved = resolve(black, (5, 2), "13/8 6/4").result  # no 3 in it
    st, evs, _ = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert st.mode is Mode.RESYNC
    assert not any(isinstance(e, (Rolled, Moved)) for e in evs)


def test_a_die_still_lying_where_it_fell_means_the_turn_is_not_over():
    """A hand picks up one die and hides part of the board: the frame reads wrong, but a die
    of the throw still lies where it came to rest, so nothing is judged yet."""
    st, black = _at_black_roll(roll=(5, 3))
    misread = list(black.signed())
    misread[6], misread[5] = misread[5], 0  # White's 6-point read on the 7 (a hand)
    st, evs, _ = _feed(st, 8, BoardObservation.exact(misread, dice=(DieRead(5, 700, 480),)))
    assert st.mode is Mode.MOVING and not evs
    # a die of that value somewhere else is not the throw's die: the turn is judged
    other, _ = _at_black_roll(roll=(5, 3))
    _, evs2, _ = _feed(other, 8, BoardObservation.exact(misread, dice=(DieRead(5, 300, 200),)))
    assert any(isinstance(e, IllegalFlagged) for e in evs2)
    moved = resolve(black, (5, 3), "13/8 6/3").result
    st, evs, _ = _feed(st, 10, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["13/8 6/3"]


def test_a_play_made_with_dice_nobody_saw_is_settled_by_the_board():
    """No die was found at all (a dark die in glare, say): a board that is a clear legal play
    of exactly one throw is recorded with that throw, marked "dice not seen"."""
    st, black = _after_opening()
    moved = resolve(black, (6, 5), "24/13").result
    st, evs, say = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert evs[0] == Rolled(Color.BLACK, Dice(6, 5))
    mv = next(e for e in evs if isinstance(e, Moved))
    assert not mv.dice_seen and mv.flag == "dice not seen"
    assert any("dice not seen" in line for line in say)
    # a board no throw plays (a checker knocked back a point) is not guessed at: restore it
    st2, _ = _after_opening()
    bumped = list(black.signed())
    bumped[11], bumped[10] = bumped[11] + 1, -1  # a Black checker from its 13 to its 14
    st2, _, _ = _feed(st2, 8, BoardObservation.exact(bumped))
    assert st2.mode is Mode.RESYNC


def test_throws_that_make_the_same_board_record_the_likeliest_and_name_the_others():
    """Bearing off the last checkers, many throws make the same board: the board is sure
    (the game ends), the dice are the likeliest non-double and the flag names the others."""
    st, _black = _after_opening()
    signed = [1] + [0] * 23  # White's last checker on its 1-point
    signed[22], signed[23] = -1, -1  # Black's last two, on its 2- and 1-points
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, off=(14, 13)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand: Black to roll
    assert st.mode is Mode.TO_ROLL
    signed[22], signed[23] = 0, 0  # both borne off with dice nobody saw
    st, evs, _ = _feed(st, 10, BoardObservation.exact(signed, off=(14, 15)))
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.result.turn is mv.player and not mv.dice_seen and "the board fits" in mv.flag
    assert "1-1" in mv.flag and not mv.dice.is_double
    assert st.mode is Mode.GAME_OVER


def test_a_pass_with_a_die_not_found_is_asked_about():
    """Black is on the bar against White's closed board: every throw passes. One die was seen
    (a 5) and the other not found; when the dice are lifted from the unchanged board the
    referee asks which throw passed (instead of taking White's next throw for Black's), and
    undo offers the next one."""
    st, _black = _after_opening()  # Black to roll
    signed = [2, 2, 2, 3, 3, 3] + [0] * 18  # White's home board closed (15 checkers)
    signed[18:22] = [-4, -4, -4, -2]  # Black: 14 here, one on the bar
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, bar=(0, 1)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand, Black to roll
    assert st.mode is Mode.TO_ROLL
    st, evs, _ = _feed(st, 10, BoardObservation.exact(signed, bar=(0, 1),
                                                      dice=(DieRead(5, 700, 480, True),)))
    assert not evs and st.mode is Mode.TO_ROLL
    st, _, say = _feed(st, 12, BoardObservation.exact(signed, bar=(0, 1)))  # dice lifted
    assert st.mode is Mode.ASK and st.message[:2] == ("played 5-1?", "no move")
    assert any("could not move with 5-1" in line for line in say)
    st = step(st, Press(14, "undo")).state
    assert st.message[0] == "played 5-2?"
    res = step(st, Press(15, "confirm"))
    assert res.events[0] == Rolled(Color.BLACK, Dice(5, 2))
    mv = next(e for e in res.events if isinstance(e, Moved))
    assert mv.player is Color.BLACK and not mv.play.moves and mv.dice == Dice(5, 2)
    assert res.state.mode is Mode.TO_ROLL and res.state.match.game is not None
    assert res.state.match.game.turn is Color.WHITE


def test_a_pass_with_dice_read_that_could_move_offers_the_throws_that_cannot():
    """Black is on the bar before White's board closed but for its 6-point. The 4-4 thrown
    is read as 6-4 (sure), which could enter: the board left as it was when the dice are
    lifted is flagged, with the throws of a read die that cannot be played offered (m058 of
    the 60-match replay went astray here); undo passes to the next, confirm takes it."""
    st, _black = _after_opening()  # Black to roll
    signed = [3, 3, 3, 3, 3] + [0] * 19  # White: points 1 to 5, the 6-point open
    signed[18:22] = [-4, -4, -4, -2]  # Black: 14 here, one on the bar
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, bar=(0, 1)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand, Black to roll
    st, evs, _ = _feed(st, 10, BoardObservation.exact(signed, bar=(0, 1), dice=_dice(6, 4)))
    assert any(isinstance(e, Rolled) and e.dice == Dice(6, 4) for e in evs)
    st, evs, _ = _feed(st, 12, BoardObservation.exact(signed, bar=(0, 1)))  # dice lifted
    assert st.mode is Mode.ILLEGAL
    flag = next(e for e in evs if isinstance(e, IllegalFlagged))
    assert flag.reasons[0] == "the roll was not played"
    assert "4-1 or 4-2 or 4-3 or 5-4 or 4-4 cannot be played" in flag.reasons[1]
    for t, shown in ((14, "played 4-2?"), (15, "played 4-3?"), (16, "played 5-4?"),
                     (17, "played 4-4?")):
        res = step(st, Press(t, "undo"))
        st = res.state
        assert st.message[:2] == (shown, "no move") and not res.events  # nothing taken back
    res = step(st, Press(18, "confirm"))
    assert res.events[0] == Reread(Color.BLACK, Dice(4, 4))
    mv = next(e for e in res.events if isinstance(e, Moved))
    assert mv.player is Color.BLACK and not mv.play.moves and mv.dice == Dice(4, 4)
    assert not mv.illegal
    assert res.state.mode is Mode.TO_ROLL and res.state.match.game is not None
    assert res.state.match.game.turn is Color.WHITE


def _loose(moved: Position, soft: dict[int, dict[int, float]]) -> BoardObservation:
    """``moved`` read exactly except the regions in ``soft`` (index from White's 1-point:
    signed count -> likelihood)."""
    obs = BoardObservation.exact(moved.signed())
    points = list(obs.points)
    for i, probs in soft.items():
        points[i] = RegionRead.from_mapping(probs)
    return dataclasses.replace(obs, points=tuple(points))


def _doubted(conf: float):
    """Black's 4-3 (24/21 13/9) with the dice read 4-1 at ``conf``: the board read shows the
    checker on Black's 21-point (White's 4) a little unsurely, and the 4-1 play 24/23 13/9
    would fit it if that checker were on Black's 23-point (White's 2) unseen."""
    st, black = _at_black_roll(conf=conf, roll=(4, 1))
    moved = resolve(black, (4, 3), "24/21 13/9").result
    obs = _loose(moved, {3: {-1: 0.93, 0: 0.07}, 1: {0: 0.95, -1: 0.05}})
    return _feed(st, 8, obs), black, moved


def test_a_loose_fit_with_unsure_dice_is_settled_by_the_throw_the_board_fits():
    """A legal play of the dice read fits the board within the reading's doubt, but a play
    of another throw keeping one of the dice fits it clearly better: with the dice read
    unsurely, the likelier story is a misread die, recorded with the dice marked."""
    (_st, evs, _say), _black, moved = _doubted(conf=0.6)
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.dice == Dice(4, 3) and mv.result == moved
    assert not mv.dice_seen and "dice read 4-1 unsurely" in mv.flag
    assert any(isinstance(e, Reread) and e.dice == Dice(4, 3) for e in evs)


def test_a_loose_fit_with_sure_dice_is_recorded():
    """The same board with the dice read surely: the dice are trusted and their play, the
    best fit among theirs, recorded."""
    (st, evs, _), black, _ = _doubted(conf=1.0)
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.dice == Dice(4, 1)
    assert mv.result == resolve(black, (4, 1), "24/23 13/9").result
    assert st.mode is Mode.TO_ROLL


def test_a_wrong_reread_is_undone_by_the_board():
    """The dice were read 6-3, then read again as 5-3 while a hand half-hid one (frames of
    the unchanged board): when the board is then a clear legal play of 6-3, the dice as first
    read, that play is recorded with 6-3; nothing is flagged and nobody is asked."""
    st, black = _at_black_roll(roll=(6, 3))
    for t in (8.0, 8.4, 8.8, 9.2, 10.3):
        st = step(st, Frame(t, BoardObservation.exact(black.signed(), dice=_dice(5, 3)))).state
    assert st.dice is not None and (st.dice.high, st.dice.low) == (5, 3)
    moved = resolve(black, (6, 3), "24/18 13/10").result
    st, evs, say = _feed(st, 11, BoardObservation.exact(moved.signed()))
    assert [e for e in evs if isinstance(e, Reread)] == [Reread(Color.BLACK, Dice(6, 3))]
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.dice == Dice(6, 3) and mv.result == moved and not mv.illegal
    assert not [e for e in evs if isinstance(e, IllegalFlagged)]
    assert st.mode is Mode.TO_ROLL
    assert any("first read" in line for line in say)
    stats = dice_stats(st.events)
    assert stats.rolls == 1 and stats.faces[5] == 1 and stats.faces[4] == 0  # 6-3 counted


def test_the_games_last_play_unseen_before_the_board_is_set_up_again():
    """Black throws 3-1 with its last checker on its 1-point; the camera next sees the
    starting position (the board was cleared and set up for the next game before a frame of
    the bear-off): the bear-off is recorded, marked, Black wins, and the next game begins."""
    st, _black = _after_opening()  # Black to roll
    signed = [0] * 24
    signed[23] = -1  # Black's last checker on its 1-point
    signed[5], signed[12] = 8, 7  # White: 15 on the board
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, off=(0, 14)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand, Black to roll
    st, evs, _ = _feed(st, 10, BoardObservation.exact(signed, off=(0, 14), dice=_dice(3, 1)))
    assert [(e.player, e.dice) for e in evs if isinstance(e, Rolled)] == [
        (Color.BLACK, Dice(3, 1))]
    st, evs, say = _feed(st, 12, BoardObservation.exact(START.signed()))
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.player is Color.BLACK and "not seen" in mv.flag
    assert any(isinstance(e, GameEnded) and e.winner is Color.BLACK for e in evs)
    assert any(isinstance(e, GameStarted) for e in evs)
    assert any("set up for the next game" in line for line in say)


def test_an_unseen_pass_then_a_play_is_followed_not_resynced():
    """Black on the bar, White's board closed but for the point Black holds: Black's dice and
    White's are never seen, and the next board is White's 13/7 7/5. Black dancing and Black
    entering with 6-1 then being hit (13/7*/5) make that same board, so no later board can
    tell: the referee records the likelier (the pass), marks it, and goes on with Black to
    roll instead of asking for the board to be restored."""
    st, _black = _after_opening()
    signed = [-2, 3, 3, 2, 3, 2, 0, 0, 0, 0, 0, -2, 2, 0, 0, 0, 0, 0, -4, -2, 0, -2, 0, -2]
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, bar=(0, 1)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand: Black to roll
    assert st.mode is Mode.TO_ROLL
    after = list(signed)
    after[12], after[4] = 1, 4  # White's 13/7 7/5
    st, evs, say = _feed(st, 10, BoardObservation.exact(after, bar=(0, 1)))
    moved = [e for e in evs if isinstance(e, Moved)]
    assert [(m.player, str(m.play)) for m in moved] == [(Color.BLACK, ""),
                                                        (Color.WHITE, "13/5")]
    assert "another history reaches the same board" in moved[0].flag
    assert "another history" not in moved[1].flag  # each turn's own reasons only
    assert moved[1].flag.count("dice not seen") == 1
    assert not any(m.dice_seen for m in moved)
    assert st.mode is Mode.TO_ROLL and st.match.game is not None
    assert st.match.game.turn is Color.BLACK
    assert not any("restore" in line for line in say)


def test_a_question_still_open_when_the_recording_ends_is_settled_and_marked():
    """A replay's last frames leave a question open (the dice of the last play not read
    right) and nobody answers it: at the end of the recording the likeliest throw is taken,
    marked for review, as when the players go on; any other state is left as it is."""
    from pibg.referee import Ended

    st, _black = _after_opening()
    signed = [2, 2, 2, 3, 3, 3] + [0] * 18
    signed[18:22] = [-4, -4, -4, -2]
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, bar=(0, 1)))
    st = step(st, Press(8, "confirm", long=True)).state
    st, _, _ = _feed(st, 10, BoardObservation.exact(signed, bar=(0, 1),
                                                    dice=(DieRead(5, 700, 480, True),)))
    st, _, _ = _feed(st, 12, BoardObservation.exact(signed, bar=(0, 1)))
    assert st.mode is Mode.ASK
    res = step(st, Ended(14))
    assert res.events[0] == Rolled(Color.BLACK, Dice(5, 1))
    mv = next(e for e in res.events if isinstance(e, Moved))
    assert mv.player is Color.BLACK and not mv.dice_seen and "nobody confirmed" in mv.flag
    assert res.state.mode is Mode.TO_ROLL
    again = step(res.state, Ended(15))
    assert not again.events and again.state.mode is Mode.TO_ROLL


def _black_bears_off_read_as(roll: tuple[int, int]):
    """Black, four checkers on its 1-point and eleven off, bears two off with a throw read as
    ``roll``; White's checkers far from home (the game goes on)."""
    st, _black = _after_opening()
    signed = [5, 0, 0, 0, 0, 5] + [0] * 6 + [5] + [0] * 11
    signed[23] = -4  # Black's 1-point
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, off=(0, 11)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand: Black to roll
    st, _, _ = _feed(st, 10, BoardObservation.exact(signed, off=(0, 11), dice=_dice(*roll)))
    signed[23] = -2
    st, evs, _ = _feed(st, 12, BoardObservation.exact(signed, off=(0, 13)))
    mv = next(e for e in evs if isinstance(e, Moved))
    assert mv.dice == Dice(*roll) and mv.dice_seen and st.mode is Mode.TO_ROLL
    return st, mv


def test_undo_on_a_turn_whose_board_other_throws_make_sets_its_dice_right():
    """A 4-1 bearing two checkers off the 1-point read as 4-2 (golden match m008 through
    pibg.sim's tournament board): undo while the board stands says the dice were misread.
    The turn is recorded again with the next throw making that board, one die kept first;
    the side to act is still the opponent's, whose resignation ends the game (undo had
    given the turn back to the side that moved, who was then taken to resign)."""
    st, mv = _black_bears_off_read_as((4, 2))
    res = step(st, Press(14, "undo"))
    rolls = [e.dice for e in res.events if isinstance(e, (Reread, Moved))]
    assert rolls[0] == rolls[1] and rolls[0] in (Dice(4, 1), Dice(4, 3))
    again = next(e for e in res.events if isinstance(e, Moved))
    assert again.result == mv.result and again.player is Color.BLACK
    assert res.state.mode is Mode.TO_ROLL
    res = step(res.state, Press(15, "undo"))  # not those either: the other die next
    second = next(e for e in res.events if isinstance(e, Moved))
    assert {rolls[0], second.dice} == {Dice(4, 1), Dice(4, 3)}
    res = step(res.state, Press(16, "resign_gammon"))
    assert [(type(e), getattr(e, "player", None)) for e in res.events][:1] == [
        (Resigned, Color.WHITE)]
    assert any(isinstance(e, GameEnded) and e.winner is Color.BLACK for e in res.events)


def test_undo_on_a_turn_only_its_throw_makes_still_takes_it_back():
    """A play no other throw makes (8/5 6/5 is a 3-1): undo takes the turn back as before."""
    st, _black = _after_opening()
    res = step(st, Press(6, "undo"))
    assert isinstance(res.events[0], Undone) and res.state.mode is Mode.MOVING


def test_a_turn_whose_dice_undo_set_otherwise_is_played_again_with_its_throw():
    """After undo recorded 24/16 as a 5-3 (the 6-2 read taken for a misreading), the player
    plays the 6-2 otherwise (24/18 13/11): the turn is recorded again with the throw read."""
    st, black = _at_black_roll(roll=(6, 2))
    moved = resolve(black, (6, 2), "24/16").result
    st, evs, _ = _feed(st, 8, BoardObservation.exact(moved.signed()))
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["24/16"]
    res = step(st, Press(10, "undo"))
    assert [e.dice for e in res.events if isinstance(e, Moved)] == [Dice(5, 3)]
    other = resolve(black, (6, 2), "24/18 13/11").result
    st, evs, _ = _feed(res.state, 12, BoardObservation.exact(other.signed()))
    plays = [e for e in evs if isinstance(e, Moved)]
    assert [(e.dice, str(e.play)) for e in plays] == [(Dice(6, 2), "24/18 13/11")]
    game = replay(st.events).game
    assert game is not None and game.turn is Color.WHITE and game.position == other.with_turn(
        Color.WHITE)


def test_a_dance_nobody_saw_then_the_opponents_throw_misread_by_a_die_is_settled():
    """Black, on the bar before five made points (only a 2 enters), danced with dice nobody
    saw; White's 5-1 was read as 5-2 and taken as Black's throw, and White played 8/2, which
    no 5-2 plays (golden match m007 through pibg.sim's tournament board: flagged "the
    opponent's checkers were moved", and the play stood). The board settles it: Black's
    turn passed, White's throw was 5-1, one die misread."""
    st, _black = _after_opening()  # Black to roll
    signed = [2, 1, 2, 2, 2, 2, -2, 2, 1, 0, 0, 0, 1, -2, 0, 0, 0, -2, -2, -2, 0, -2, -2, 0]
    st, _, _ = _feed(st, 6, BoardObservation.exact(signed, bar=(0, 1)))
    st = step(st, Press(8, "confirm", long=True)).state  # set up by hand, Black to roll
    assert st.mode is Mode.TO_ROLL
    st, evs, _ = _feed(st, 10, BoardObservation.exact(signed, bar=(0, 1), dice=_dice(5, 2)))
    assert [e for e in evs if isinstance(e, Rolled)] == [Rolled(Color.BLACK, Dice(5, 2))]
    signed[7], signed[1] = 1, 2  # White 8/2
    st, evs, _ = _feed(st, 12, BoardObservation.exact(signed, bar=(0, 1)))
    moves = [e for e in effective_events(st.events) if isinstance(e, Moved)]
    assert [(m.player, m.play.moves == ()) for m in moves[-2:]] == [
        (Color.BLACK, True), (Color.WHITE, False)]
    assert str(moves[-1].play) == "8/2" and moves[-1].dice in (Dice(5, 1), Dice(4, 2))
    assert not any(isinstance(e, IllegalFlagged) for e in evs)
    assert st.mode is Mode.TO_ROLL
    # undo offers the other throw that plays 8/2 (a die of the one read kept)
    res = step(st, Press(14, "undo"))
    again = [e for e in res.events if isinstance(e, Moved)]
    assert [str(e.play) for e in again] == ["8/2"]
    assert {again[0].dice, moves[-1].dice} == {Dice(5, 1), Dice(4, 2)}
