"""A play is its steps (a :class:`pibg.moves.Play`) from the table, or the file it was read from,
to every reader: its notation is text only where text is written (the journal, the files, what
is shown). The journal writes a play as it always did, and reads back into the very play
recorded (its text read on the board the events before it leave), an imported match's too:
its journal keeps each play as the file wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import pibg.record
import pibg.rules
from pibg.app import demo_events
from pibg.events import Event, GameStarted, MatchSettings, MatchStarted, Moved, OpeningRoll
from pibg.gnubg_oracle import random_match
from pibg.journal import Journal, read_events
from pibg.matfile import dumps_mat, parse_mat, read_mat
from pibg.moves import Dice, Move, Play
from pibg.position import Color, Position
from pibg.record import match_record, recorded
from pibg.rules import resolve
from pibg.sgf import dumps_sgf, read_sgf

from .conftest import DATA

W = Color.WHITE


def _journal(events: list[Event], tmp_path: Path) -> tuple[list[Event], list[dict[str, Any]]]:
    """``events`` written to a journal and read back, and the journal's lines."""
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as journal:
        journal.extend(events)
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    return read_events(path), lines


# --- files read in, and their journal ---------------------------------------------------------

#: white 61 hits Black's blot on its 7-point, written as some programs do, with no '*'
UNMARKED = (" 1 point match\n\n Game 1\n a : 0    b : 0\n"
            "  1) 31: 8/5 6/5                 62: 24/18 13/11\n"
            "  2) 61: 13/7 8/7\n")


def test_a_play_is_read_from_its_text_once_into_its_steps(tmp_path: Path) -> None:
    events = parse_mat(UNMARKED)
    hit = [e for e in events if isinstance(e, Moved)][-1]
    assert hit.play.moves == (Move(13, 7), Move(8, 7)) and hit.play.hits == (True, False)
    assert hit.written == "13/7 8/7" and str(hit.play) == "13/7* 8/7"
    back, lines = _journal(events, tmp_path)
    # the journal says what the file said, and reads back the hit the text does not mark
    assert [line["play"] for line in lines if line["event"] == "play"] == [
        "8/5 6/5", "24/18 13/11", "13/7 8/7"]
    assert back == events
    assert "61: 13/7* 8/7" in dumps_mat(back) == dumps_mat(events)


@pytest.mark.parametrize("path", [*sorted((DATA / "writers").glob("*.mat")),
                                  DATA / "m005_3pt.mat", DATA / "m051_5pt.sgf"],
                         ids=lambda p: p.name)
def test_an_imported_match_journals_its_plays_as_the_file_wrote_them(path: Path,
                                                                     tmp_path: Path) -> None:
    events = (read_sgf if path.suffix == ".sgf" else read_mat)(path, strict=False)
    back, lines = _journal(events, tmp_path)
    assert back == events
    moved = [e for e in events if isinstance(e, Moved)]
    assert [line["play"] for line in lines if line["event"] == "play"] == [
        e.notation for e in moved]
    assert all(e.notation == (e.written or str(e.play)) for e in moved)
    assert dumps_mat(back) == dumps_mat(events) and dumps_sgf(back) == dumps_sgf(events)


def test_a_file_written_as_gnubg_writes_it_lists_its_steps_as_written() -> None:
    text = (DATA / "m005_3pt.mat").read_text()
    assert "42: 8/4 6/4" in text
    moved = [e for e in read_mat(DATA / "m005_3pt.mat") if isinstance(e, Moved)]
    assert moved[0].play.moves == (Move(8, 4), Move(6, 4)) and moved[0].play.hits == (
        False, False)
    # one step per die, as the file has them; the journal keeps its text where it differs
    written = [e for e in moved if e.written]
    assert written and all(e.written in text for e in written)


# --- the records take the steps from the play --------------------------------------------------


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("a play's notation was read again")

    monkeypatch.setattr(pibg.record, "parse_moves", refuse)
    monkeypatch.setattr(pibg.record, "resolve", refuse)
    monkeypatch.setattr(pibg.rules, "parse_moves", refuse)


@pytest.mark.parametrize("source", ["referee", "random", "adopted"])
def test_the_files_are_written_from_the_plays_steps(source: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if source == "referee":
        events = demo_events()
    elif source == "random":
        events = random_match(7)[0]
    else:  # boards taken as they stand, illegal plays that stood
        events = read_events(DATA / "adopted" / "m041_5pt.jsonl")
    want = dumps_mat(events), dumps_sgf(events)
    _no_parsing(monkeypatch)
    assert (dumps_mat(events), dumps_sgf(events)) == want


def test_a_play_is_written_in_the_order_of_its_steps() -> None:
    start = Position.start()
    play = resolve(start, (3, 1), "8/5 6/5")
    events: list[Event] = [MatchStarted(MatchSettings(length=1)), GameStarted(),
                           OpeningRoll(white=3, black=1)]
    for steps, row in (((Move(6, 5), Move(8, 5)), "31: 6/5 8/5"),
                       ((Move(8, 5), Move(6, 5)), "31: 8/5 6/5")):
        moved = Moved(W, Dice(3, 1), Play(steps, (False, False), play.result))
        assert str(moved.play) == "8/5 6/5"  # the notation sorts them: the record does not
        assert row in dumps_mat([*events, moved])
        [action] = [a for a in match_record([*events, moved]).games[0].actions
                    if a.kind == "move"]
        assert action.steps == steps


def test_the_referee_records_a_play_as_the_journal_reads_it_back() -> None:
    # a checker's two steps, that the notation joins: the journal keeps "24/20", and reads
    # it back as the record lists it, high die first
    start = Position.start()
    low_first = next(p for p in pibg.rules.legal_plays(start, Dice(1, 3))
                     if str(p) == "24/20")
    assert low_first.moves == (Move(24, 23), Move(23, 20))
    play = recorded(start, Dice(1, 3), low_first)
    assert str(play) == "24/20" and play.result == low_first.result
    assert play.moves == (Move(24, 21), Move(21, 20))
