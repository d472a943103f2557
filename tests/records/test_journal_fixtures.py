"""Journals written before events were typed still load, encode back to the same bytes, and
replay into the same match."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.app import demo_events
from pibg.events import EVENT_TYPES
from pibg.journal import Journal, encode_line, read_events
from pibg.match import plays, replay

DATA = Path(__file__).resolve().parent.parent / "data" / "journal"
DEMO = DATA / "before_typed_events.jsonl"
EVERY_KIND = DATA / "every_kind_before_typed_events.jsonl"


@pytest.mark.parametrize("path", [DEMO, EVERY_KIND], ids=lambda p: p.name)
def test_each_line_encodes_back_to_the_same_bytes(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    with Journal.open(path, readonly=True) as journal:
        entries = journal.entries()
        assert journal.recovery is None
    assert len(entries) == len(lines)
    for entry, line in zip(entries, lines, strict=True):
        assert encode_line(entry.seq, entry.event, entry.ts) == line


def test_every_kind_fixture_holds_every_kind() -> None:
    assert {ev.kind for ev in read_events(EVERY_KIND)} == set(EVENT_TYPES)


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
