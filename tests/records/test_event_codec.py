"""The events' text form, read and written in pibg.journal alone: every kind encodes and
decodes back equal (a play's notation read into its steps against the board it was played on),
lines from older journals read with their defaults, and a line that does not hold what its
event needs is refused with the field named."""

from __future__ import annotations

import json

import pytest

from pibg import selfplay
from pibg.events import (
    EVENT_TYPES,
    Amended,
    Beavered,
    Corrected,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    IllegalFlagged,
    MatchEnded,
    MatchSettings,
    MatchStarted,
    Moved,
    Noted,
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.exc import JournalError
from pibg.gnubg_oracle import random_match
from pibg.journal import event_from_json, event_to_json, events_from_json
from pibg.moves import Dice, Move, Play
from pibg.position import Color, Position
from pibg.record import read_play, recorded
from pibg.rules import resolve

W, B = Color.WHITE, Color.BLACK
START = Position.start()
PLAY = recorded(START, Dice(1, 3), resolve(START, (1, 3), "8/5 6/5"))
AFTER = PLAY.result
SET_UP = Position.from_id("4HPwATDgc/ABMA", B)
#: a play as another program's .mat wrote it (not in the notation's order), and an illegal one
#: read tolerantly, kept with the steps written
WRITTEN = read_play(START, Dice(3, 1), "6/5 8/5", AFTER)
ILLEGAL = read_play(START, Dice(3, 1), "8/5 6/4", resolve(START, (2, 3), "8/5 6/4").result,
                    illegal=True)
assert WRITTEN is not None and ILLEGAL is not None

#: every kind, and the values that take another path through the codec
EVENTS: list[Event] = [
    MatchStarted(),
    MatchStarted(MatchSettings(length=0, white="Ann", black="Bob", jacoby=True, beaver=True,
                               automatic_doubles=True, max_automatic_doubles=2,
                               cube_limit=16)),
    MatchStarted(MatchSettings(length=7, crawford=False), (3, 5)),
    GameStarted(),
    GameStarted(Position.start(B)),
    GameStarted(SET_UP),
    OpeningRoll(4, 4),
    OpeningRoll(3, 1),
    Rolled(B, Dice(2, 6)),
    Rolled(W, Dice(6, 2)),
    Reread(B, Dice(5, 5)),
    Moved(W, Dice(1, 3), PLAY),
    Moved(W, Dice(3, 1), WRITTEN, written="6/5 8/5"),
    Moved(W, Dice(3, 1), ILLEGAL, illegal=True, written="8/5 6/4"),
    Moved(B, Dice(6, 4), Play((), (), SET_UP), illegal=True, dice_seen=False,
          flag="why, with ünïcode"),
    Moved(W, Dice(1, 1), recorded(START, Dice(1, 1), resolve(START, (1, 1), "8/7(2) 6/5(2)")),
          reviewed="recorded at the table as 3-1"),
    Doubled(B),
    Took(W),
    Dropped(W),
    Beavered(W),
    Resigned(B),
    Resigned(W, 3),
    IllegalFlagged(W, AFTER, ("moved 7 pips; 4-2 gives 6", "point 14")),
    IllegalFlagged(B),
    Corrected(B),
    SetUp(SET_UP),
    SetUp(AFTER),
    Undone(),
    GameEnded(B),
    GameEnded(W, 8, "resign"),
    MatchEnded(W, (5, 3)),
    Noted("a note"),
    Noted(),
    Amended(2, 7, Dice(1, 3), "seen on the video, ünïcode"),
    Amended(1, 1, Dice(6, 5)),
]


def test_the_list_holds_every_kind() -> None:
    assert {type(ev) for ev in EVENTS} == set(EVENT_TYPES)
    assert len({cls.kind for cls in EVENT_TYPES}) == len(EVENT_TYPES)


@pytest.mark.parametrize("event", EVENTS, ids=lambda ev: ev.kind)
def test_every_kind_encodes_and_decodes_back_equal(event: Event) -> None:
    data = event_to_json(event)
    assert data["event"] == event.kind
    text = json.dumps(data, ensure_ascii=False)
    # the events above are played on the starting position
    assert event_from_json(json.loads(text), START) == event


@pytest.mark.parametrize("seed", [5, 11])
def test_a_whole_match_decodes_back_equal(seed: int) -> None:
    # undos, dances, hits and bear-offs: every play read on the board the events before it
    # leave, into the very play recorded
    for events in (random_match(seed)[0], selfplay.random_match(seed, MatchSettings(length=3))):
        back = events_from_json(json.loads(json.dumps(event_to_json(ev))) for ev in events)
        assert back == events
        assert [ev.play for ev in back if isinstance(ev, Moved)] == [
            ev.play for ev in events if isinstance(ev, Moved)]


def test_a_play_is_its_steps_and_its_notation_is_text_only_in_the_journal() -> None:
    board = resolve(START, (6, 4), "24/18 13/9").result.swap_turn()  # Black on roll
    moved = Moved(B, Dice(6, 1), recorded(board, Dice(6, 1), resolve(board, (6, 1), "13/7*/6")))
    assert moved.play.moves == (Move(13, 7), Move(7, 6)) and moved.play.hits == (True, False)
    data = event_to_json(moved)
    assert data["play"] == "13/7*/6" == moved.notation
    assert event_from_json(data, board) == moved
    # a record that did not mark the hit: the board it was played on says where it hit
    unmarked = {**data, "play": "13/7 7/6"}
    read = event_from_json(unmarked, board)
    assert isinstance(read, Moved) and read.play == moved.play and read.written == "13/7 7/6"
    assert event_to_json(read) == unmarked
    # read alone, the line keeps its text and nothing is guessed: its steps are not known
    alone = event_from_json(unmarked)
    assert isinstance(alone, Moved) and alone.play == Play((), (), moved.result)
    assert alone.notation == "13/7 7/6" and event_to_json(alone) == unmarked


def test_the_text_form() -> None:
    play = resolve(SET_UP, (2, 6), "24/18 13/11")
    assert event_to_json(Moved(B, Dice(2, 6), play, dice_seen=False)) == {
        "event": "play", "player": "black", "dice": [2, 6], "play": "24/18 13/11",
        "position_id": play.result.position_id(), "illegal": False, "dice_seen": False,
        "flag": ""}
    assert event_to_json(Moved(W, Dice(3, 1), WRITTEN, written="6/5 8/5"))["play"] == "6/5 8/5"
    assert event_to_json(Moved(B, Dice(6, 4), Play((), (), SET_UP), illegal=True))["play"] == ""
    assert event_to_json(GameStarted()) == {"event": "game_start", "position_id": "",
                                            "turn": "white"}
    assert event_to_json(SetUp(SET_UP)) == {"event": "setup", "position_id": "4HPwATDgc/ABMA",
                                            "turn": "black"}
    assert event_to_json(IllegalFlagged(W)) == {"event": "illegal", "player": "white",
                                                "seen_position_id": "", "reasons": []}
    assert event_to_json(Undone()) == {"event": "undo"}
    assert event_to_json(Amended(2, 7, Dice(1, 3), "agreed")) == {
        "event": "amend", "game": 2, "move": 7, "dice": [1, 3], "note": "agreed"}
    # only a play a reviewer set (read back from a record) says so
    assert event_to_json(Moved(W, Dice(1, 3), PLAY, reviewed="was 3-1"))["reviewed"] == "was 3-1"


def test_a_board_after_a_play_has_its_mover_on_roll() -> None:
    # the Position ID does not say who is on roll: a play's board is the mover's
    play = resolve(SET_UP, (6, 4), "24/14")
    moved = Moved(B, Dice(6, 4), Play(play.moves, play.hits, play.result.with_turn(W)))
    assert moved.result.turn is B and moved.play == play
    assert IllegalFlagged(W, SET_UP).seen == SET_UP.with_turn(W)


def test_older_lines_read_with_the_defaults() -> None:
    # before 01921a4 a play had no dice_seen and flag; before 38e94be a match no score
    old = event_from_json({"seq": 4, "ts": "t", "event": "play", "player": "white",
                           "dice": [3, 1], "play": "8/5 6/5",
                           "position_id": AFTER.position_id(), "illegal": False}, START)
    assert old == Moved(W, Dice(3, 1), recorded(START, Dice(3, 1), PLAY))
    assert event_from_json({"event": "match_start", "settings": {"length": 3}}) == (
        MatchStarted(MatchSettings(length=3)))
    # an amendment without a note (none was given)
    assert event_from_json({"event": "amend", "game": 1, "move": 3, "dice": [6, 1]}) == (
        Amended(1, 3, Dice(6, 1)))


@pytest.mark.parametrize(("data", "message"), [
    ({"event": "roll", "player": "red", "dice": [3, 1]}, "'player' must be \"white\" or"),
    ({"event": "roll", "player": "white", "dice": [3, 7]}, "a die shows 1-6"),
    ({"event": "roll", "player": "white", "dice": [3]}, "'dice' must be a list of two"),
    ({"event": "roll", "player": "white", "dice": "31"}, "'dice' must be a list of two"),
    ({"event": "roll", "dice": [3, 1]}, "missing 'player'"),
    ({"event": "roll", "player": "white", "dice": [3, 1], "cube": 2}, "has no field 'cube'"),
    ({"event": "play", "player": "white", "dice": [3, 1], "play": "", "position_id": ""},
     "missing 'position_id'"),
    ({"event": "play", "player": "white", "dice": [3, 1], "play": "", "position_id": "!!"},
     "Position ID"),
    ({"event": "resign", "player": "white", "multiplier": True}, "'multiplier' must be"),
    ({"event": "match_start", "settings": {"length": -1}}, "match length"),
    ({"event": "match_start", "settings": {"lenght": 3}}, "lenght"),
    ({"event": "illegal", "player": "black", "reasons": "x"}, "'reasons' must be a list"),
    ({"event": "teleport"}, "unknown event 'teleport'"),
    ({"event": "amend", "game": 0, "move": 3, "dice": [6, 1]}, "numbered from 1"),
    ({"event": "amend", "game": 1, "dice": [6, 1]}, "missing 'move'"),
    ({"event": "amend", "game": 1, "move": "3", "dice": [6, 1]}, "'move' must be a whole"),
    ({"event": "amend", "game": 1, "move": 3, "dice": [6, 9]}, "a die shows 1-6"),
    ({"event": "play", "player": "white", "dice": [3, 1], "play": "",
      "position_id": "4HPwATDgc/ABMA", "reviewed": 1}, "'reviewed' must be text"),
])
def test_a_line_that_does_not_hold_its_event_is_refused(data: dict[str, object],
                                                        message: str) -> None:
    with pytest.raises(JournalError, match=message):
        event_from_json(data)
