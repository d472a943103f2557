"""The journal: fsync'd appends, torn-tail recovery, corrupt lines, a full disk."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pibg import journal as journal_mod
from pibg.events import (
    GameStarted,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Rolled,
)
from pibg.exc import JournalError
from pibg.gnubg_oracle import random_match
from pibg.journal import Journal, encode_line, event_to_json, read_events
from pibg.moves import Dice, Play
from pibg.position import Color, Position
from pibg.record import recorded
from pibg.rules import resolve


def _events() -> list:
    return [
        MatchStarted(MatchSettings(length=3, white="Ann", black="Bob")),
        GameStarted(),
        OpeningRoll(3, 1),
        Moved(Color.WHITE, Dice(3, 1),
              recorded(Position.start(), Dice(3, 1), resolve(Position.start(), (3, 1), "8/5 6/5"))),
    ]


def test_append_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        for k, ev in enumerate(_events(), start=1):
            assert j.append(ev, ts=f"2026-11-22T15:00:0{k}Z") == k
    lines = path.read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2, 3, 4]
    assert json.loads(lines[0])["ts"] == "2026-11-22T15:00:01Z"
    with Journal.open(path) as j:
        assert j.events() == _events()
        assert j.recovery is None
        assert j.next_seq == 5
        assert j.entries()[1].ts == "2026-11-22T15:00:02Z"


def test_line_format_is_event_json_plus_seq(tmp_path: Path) -> None:
    ev = Rolled(Color.BLACK, Dice(6, 5))
    line = encode_line(7, ev)
    assert line == b'{"seq":7,"event":"roll","player":"black","dice":[6,5]}\n'
    obj = json.loads(line)
    assert obj.pop("seq") == 7
    assert obj == event_to_json(ev)


def test_replay_gives_match_state(tmp_path: Path) -> None:
    events, _ = random_match(11)
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(events)
        state = j.replay()
    from pibg.match import replay

    assert state == replay(events)
    assert Journal.open(path).replay() == state


@pytest.mark.parametrize("tail", [b'{"seq": 5, "event": "ro', b'{"seq":5}', b"\x00\x00\x00",
                                  b'garbage without newline'])
def test_torn_tail_without_newline_is_cut_and_kept(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(_events())
    good = path.read_bytes()
    path.write_bytes(good + tail)
    with Journal.open(path) as j:
        assert j.events() == _events()
        assert j.recovery is not None and "torn" in j.recovery and "4 complete" in j.recovery
        assert j.append(Rolled(Color.BLACK, Dice(2, 1))) == 5
    assert (tmp_path / "m.jsonl.torn-1").read_bytes() == tail
    assert path.read_bytes().startswith(good)
    assert len(read_events(path)) == 5


def test_last_line_not_json_with_newline_is_torn(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(_events())
    with open(path, "ab") as fh:
        fh.write(b'{"seq": 5, "ev\n')
    with Journal.open(path) as j:
        assert len(j) == 4 and j.recovery
    # a second torn tail goes to the next free name
    with open(path, "ab") as fh:
        fh.write(b"{")
    with Journal.open(path) as j:
        assert len(j) == 4
    assert (tmp_path / "m.jsonl.torn-2").read_bytes() == b"{"


def test_recovery_is_logged_as_warning_not_error(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(encode_line(1, _events()[0]) + b'{"se')
    with caplog.at_level("WARNING", logger="pibg.journal"), Journal.open(path) as j:
        assert len(j) == 1
    assert [r.levelname for r in caplog.records] == ["WARNING"]


def test_corrupt_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(_events())
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"seq": 2, "event": "game_st'
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"m\.jsonl: line 2: corrupt line"):
        Journal.open(path)
    assert not list(tmp_path.glob("*.torn-*"))


def test_wrong_seq_and_unknown_event_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(encode_line(1, _events()[0]) + encode_line(3, _events()[1]))
    with pytest.raises(JournalError, match=r"line 2: expected \"seq\": 2, found 3"):
        Journal.open(path)
    path.write_bytes(encode_line(1, _events()[0]) + b'{"seq":2,"event":"teleport"}\n')
    with pytest.raises(JournalError, match=r"line 2: unknown event 'teleport'"):
        Journal.open(path)


def test_replay_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(_events()[:3])
        # a record's "8/4" for 3-1, nothing moved: no legal play leads there
        j.append(Moved(Color.WHITE, Dice(3, 1), Play((), (), Position.start()), written="8/4"))
    with pytest.raises(JournalError, match=r"m\.jsonl: line 4: "):
        Journal.open(path).replay()


def test_disk_full_leaves_no_torn_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.jsonl"
    j = Journal.open(path)
    j.extend(_events()[:2])
    size = path.stat().st_size
    real_write = os.write
    calls = {"n": 0}

    def short_then_full(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 1:  # half the line lands, then the disk is full
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "write", short_then_full)
    with pytest.raises(JournalError, match=r"^disk full: could not write event 3 to .*m\.jsonl; "
                                           r"free space and"):
        j.append(_events()[2])
    monkeypatch.setattr(journal_mod.os, "write", real_write)
    assert path.stat().st_size == size
    assert len(j) == 2
    assert j.append(_events()[2]) == 3  # after freeing space the same journal goes on
    j.close()
    assert read_events(path) == _events()[:3]


def test_fsync_failure_is_a_journal_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.append(_events()[0])

        def bad_fsync(fd: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(journal_mod.os, "fsync", bad_fsync)
        with pytest.raises(JournalError, match="could not write event 2"):
            j.append(_events()[1])
        monkeypatch.undo()
    assert len(read_events(path)) == 1


def test_close_twice_and_closed_append(tmp_path: Path) -> None:
    j = Journal.open(tmp_path / "m.jsonl")
    j.close()
    j.close()
    assert j.closed
    with pytest.raises(JournalError, match="closed"):
        j.append(_events()[0])


def test_second_writer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path), pytest.raises(JournalError, match="in use by another process"):
        Journal.open(path)
    Journal.open(path).close()  # free again once closed


def test_missing_journal_without_create(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="cannot open journal"):
        Journal.open(tmp_path / "none.jsonl", create=False)


# --- property: a cut at any byte recovers exactly the complete lines before it ------------

_SAMPLE, _ = random_match(21)
_SAMPLE = _SAMPLE[:40]
_BYTES = b"".join(encode_line(k, ev, ts=f"t{k}") for k, ev in enumerate(_SAMPLE, start=1))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=len(_BYTES)))
def test_any_cut_recovers_the_complete_lines(tmp_path: Path, cut: int) -> None:
    d = tmp_path / f"cut{cut}"
    d.mkdir()
    path = d / "m.jsonl"
    path.write_bytes(_BYTES[:cut])
    complete = _BYTES[:cut].count(b"\n")
    with Journal.open(path) as j:
        assert j.events() == _SAMPLE[:complete]
        torn = _BYTES[:cut].rsplit(b"\n", 1)[-1] if complete else _BYTES[:cut]
        assert (j.recovery is not None) == bool(torn)
        assert j.append(_SAMPLE[complete] if complete < len(_SAMPLE) else _SAMPLE[0]) == (
            complete + 1)
    if torn:
        assert (d / "m.jsonl.torn-1").read_bytes() == torn
    assert path.read_bytes()[: len(_BYTES[:cut]) - len(torn)] == _BYTES[: cut - len(torn)]


def test_readonly_reader_beside_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as writer:
        writer.extend(_events()[:2])
        with open(path, "ab") as fh:  # a write in flight, as a reader may see it
            fh.write(b'{"seq":3,')
        with Journal.open(path, readonly=True) as reader:
            assert reader.events() == _events()[:2]
            assert reader.recovery is not None and "skipped" in reader.recovery
            with pytest.raises(JournalError, match="read-only"):
                reader.append(_events()[2])
    assert not list(tmp_path.glob("*.torn-*"))
    assert path.read_bytes().endswith(b'{"seq":3,')


def test_replay_checks_game_end_lines(tmp_path: Path) -> None:
    from pibg.events import GameEnded

    events, _ = random_match(11)
    k = next(i for i, e in enumerate(events) if isinstance(e, GameEnded))
    wrong = events[k]
    assert isinstance(wrong, GameEnded)
    events[k] = GameEnded(wrong.winner, wrong.points + 1, wrong.termination)
    path = tmp_path / "m.jsonl"
    with Journal.open(path) as j:
        j.extend(events)
        with pytest.raises(JournalError, match=rf"line {k + 1}: game_end says"):
            j.replay()
