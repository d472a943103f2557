"""Journals written before events were typed still load, encode back to the same bytes, and
replay into the same match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pibg.app import demo_events
from pibg.events import (
    EVENT_TYPES,
    Amended,
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
    Noted,
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.journal import Journal, encode_line, read_events
from pibg.match import effective_events, played_turns, plays, replay
from pibg.moves import Dice, Move, Play
from pibg.position import Color, Position
from pibg.record import apply_steps, recorded

DATA = Path(__file__).resolve().parent.parent / "data" / "journal"
DEMO = DATA / "before_typed_events.jsonl"
EVERY_KIND = DATA / "every_kind_before_typed_events.jsonl"
#: journals the referee wrote later, with illegal plays that stood and boards taken as they stand
ADOPTED = sorted((DATA.parent / "records" / "adopted").glob("*.jsonl"))


@pytest.mark.parametrize("path", [DEMO, EVERY_KIND, *ADOPTED], ids=lambda p: p.name)
def test_each_line_encodes_back_to_the_same_bytes(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    with Journal.open(path, readonly=True) as journal:
        entries = journal.entries()
        assert journal.recovery is None
    assert len(entries) == len(lines)
    for entry, line in zip(entries, lines, strict=True):
        again = encode_line(entry.seq, entry.event, entry.ts)
        if b'"game_start","position_id":"4HPwATDgc/ABMA"' in line:
            # a game set up on the starting position is the starting position: written as such
            line = line.replace(b"4HPwATDgc/ABMA", b"")
        assert again == line


@pytest.mark.parametrize("path", [DEMO, *ADOPTED], ids=lambda p: p.name)
def test_each_play_is_read_into_its_steps(path: Path) -> None:
    """A play's text is read once, on the board the events before it leave, into the play the
    referee recorded: its steps as the record lists them, its text its notation."""
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    events = read_events(path)
    turns = played_turns(effective_events(events))
    assert turns
    for turn in turns:
        m = turn.moved
        line = lines[events.index(m)]
        assert isinstance(m.play, Play) and m.written == "" and str(m.play) == line["play"]
        assert bool(m.play.moves) == bool(line["play"])
        if not m.illegal:  # the steps play the dice from the board before to the board after
            assert recorded(turn.before, m.dice, m.play) == m.play
            done = apply_steps(turn.before, [(s.src, s.dst) for s in m.play.moves], m.dice)
            assert done is not None and done == (m.result, list(m.play.hits))


def test_every_kind_fixture_reads_as_typed_events() -> None:
    w, b = Color.WHITE, Color.BLACK
    set_up = Position.from_id("4HPwATDgc/ABMA", b)
    events = read_events(EVERY_KIND)
    # every kind there was then (an amendment came later: test_event_codec.py has it)
    assert {type(ev) for ev in events} == set(EVENT_TYPES) - {Amended}
    assert events == [
        MatchStarted(MatchSettings(length=0, white="Ann", black="Bob", jacoby=True, beaver=True,
                                   automatic_doubles=True, max_automatic_doubles=2,
                                   cube_limit=16), (0, 0)),
        GameStarted(Position.start()),
        OpeningRoll(white=4, black=4),
        OpeningRoll(white=3, black=1),
        Moved(w, Dice(3, 1), Play((Move(24, 23), Move(24, 21)), (False, False),
                                  Position.from_id("4HPwATDgc/ABEg", w))),
        Doubled(b),
        Beavered(w),
        Rolled(b, Dice(4, 6)),
        Reread(b, Dice(6, 4)),
        IllegalFlagged(b, Position.from_id("4HPwATDgc/ABMA", b),
                       ("moved 9 pips; 6-4 gives 10", "point 14 (from Black)")),
        Corrected(b),
        # not played on the board the events before it leave (they are no match): its
        # steps are not known, its text is kept
        Moved(b, Dice(6, 4), Play((), (), Position.from_id("4HPwATDgc/AFIA", b)),
              dice_seen=False, flag="dice not seen: inferred from the board", written="24/14"),
        Undone(),
        Moved(b, Dice(6, 4), Play((), (), Position.from_id("4HPwATDgc/AFIA", b)), illegal=True,
              flag="condoned"),
        IllegalFlagged(w, None, ()),
        SetUp(set_up),
        Took(w),
        Dropped(b),
        Resigned(w, 2),
        Noted("a note, with ünïcode"),
        GameEnded(b, 8, "resign"),
        GameStarted(set_up),
        GameEnded(w, 1, "single"),
        MatchEnded(w, (5, 3)),
    ]


def test_demo_journal_replays_into_the_demo_match() -> None:
    with Journal.open(DEMO, readonly=True) as journal:
        state = journal.replay()
        events = journal.events()
    source = demo_events()
    assert plays(events) == plays(source)
    assert state.score == replay(source).score == (1, 6)
    assert [(g.winner.label, g.points, g.termination) for g in state.games] == [
        ("black", 2, "drop"), ("white", 1, "drop"), ("black", 4, "resign")]
    assert state.match_id() == "AgOgABAAMAAA"
    assert state.game is not None
    assert state.game.position.position_id() == "NwAAwL3bAAAAAA"
