"""The events' text form, read and written in pibg.journal alone: every kind encodes and
decodes back equal, lines from older journals read with their defaults, and a line that does
not hold what its event needs is refused with the field named."""

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
from pibg.journal import event_from_json, event_to_json
from pibg.moves import Dice
from pibg.position import Color, Position
from pibg.rules import resolve

W, B = Color.WHITE, Color.BLACK
AFTER = resolve(Position.start(), (3, 1), "8/5 6/5").result
SET_UP = Position.from_id("4HPwATDgc/ABMA", B)

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
    Moved(W, Dice(1, 3), "8/5 6/5", AFTER),
    Moved(B, Dice(6, 4), "", SET_UP, illegal=True, dice_seen=False, flag="why, with ünïcode"),
    Moved(W, Dice(1, 1), "8/7(2) 6/5(2)", AFTER, reviewed="recorded at the table as 3-1"),
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
    assert event_from_json(json.loads(text)) == event


def test_a_whole_match_decodes_back_equal() -> None:
    events = [*random_match(5)[0], *selfplay.random_match(3, MatchSettings(length=3))]
    assert [event_from_json(json.loads(json.dumps(event_to_json(ev)))) for ev in events] == events


def test_the_text_form() -> None:
    assert event_to_json(Moved(B, Dice(2, 6), "24/18 13/11", SET_UP, dice_seen=False)) == {
        "event": "play", "player": "black", "dice": [2, 6], "play": "24/18 13/11",
        "position_id": "4HPwATDgc/ABMA", "illegal": False, "dice_seen": False, "flag": ""}
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
    assert event_to_json(Moved(W, Dice(1, 1), "8/7(2) 6/5(2)", AFTER, reviewed="was 3-1"))[
        "reviewed"] == "was 3-1"


def test_a_board_after_a_play_has_its_mover_on_roll() -> None:
    # the Position ID does not say who is on roll: a play's board is the mover's
    moved = Moved(B, Dice(6, 4), "24/14", SET_UP.with_turn(W))
    assert moved.result.turn is B
    assert IllegalFlagged(W, SET_UP).seen == SET_UP.with_turn(W)


def test_older_lines_read_with_the_defaults() -> None:
    # before 01921a4 a play had no dice_seen and flag; before 38e94be a match no score
    old = event_from_json({"seq": 4, "ts": "t", "event": "play", "player": "white",
                           "dice": [3, 1], "play": "8/5 6/5",
                           "position_id": AFTER.position_id(), "illegal": False})
    assert old == Moved(W, Dice(3, 1), "8/5 6/5", AFTER)
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
