"""Faults the service must survive without losing anything recorded."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pibg.app import Session, demo_events
from pibg.effects import Effects
from pibg.events import MatchSettings, Moved
from pibg.exc import JournalError
from pibg.match import effective_events
from pibg.matfile import read_mat
from pibg.position import Position
from pibg.referee import Frame
from pibg.rules import resolve
from pibg.script import Scene, observe_exact
from tests.conftest import live_config_file

HERE = Path(__file__).parent


def _config(tmp: Path) -> Path:
    return live_config_file(tmp, match='length = 5\nplayer_white = "erin"\n'
                                       'player_black = "judy"', web="")


def _journal_lines(records: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in records.glob("*/match.jsonl"))


@pytest.mark.parametrize("kill_after", [12, 90])
def test_sigkill_mid_match_then_restart_finishes_the_same_match(tmp_path: Path,
                                                                kill_after: int):
    cfg = _config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent.parent)}
    child = subprocess.Popen([sys.executable, str(HERE / "service_child.py"), str(cfg), "0.004"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # killed once the journal holds ``kill_after`` events (not after a fixed time: a loaded
    # machine starts the child slowly), at whatever point of the turn that falls
    deadline = time.monotonic() + 120
    while _journal_lines(tmp_path / "records") < kill_after and child.poll() is None:
        assert time.monotonic() < deadline, "the service wrote no journal"
        time.sleep(0.002)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    journals = list((tmp_path / "records").glob("*/match.jsonl"))
    assert len(journals) == 1
    # restart: the table goes on from the board as it stands (the scene after the last play
    # in the journal); the referee, resumed from the journal, waits until the board shows
    # the position it knows, then goes on
    done = subprocess.run([sys.executable, str(HERE / "service_child.py"), str(cfg), "0",
                           "--resume"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "resumed" in done.stdout
    assert len(list((tmp_path / "records").glob("*/match.jsonl"))) == 1
    mat = read_mat(journals[0].parent / "match.mat")
    want = [(e.player, e.result) for e in effective_events(demo_events())
            if isinstance(e, Moved)]
    got = [(e.player, e.result) for e in effective_events(mat) if isinstance(e, Moved)]
    assert got == want


def test_full_disk_says_so_and_tears_no_line(tmp_path: Path, monkeypatch):
    shown: list[Effects] = []
    session = Session(tmp_path, MatchSettings(length=3), sinks=[shown.append])
    for scene in (Scene.of("start", Position.start()),
                  Scene.of("roll", Position.start(), dice=(3, 1))):
        session.feed(Frame(0.0, observe_exact(scene)))
        session.feed(Frame(2.0, observe_exact(scene)))
    journal = tmp_path / "match.jsonl"
    before = journal.read_bytes()
    played = resolve(Position.start(), (3, 1), "8/5 6/5").result
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        if fd == session.journal._fd:  # the journal's own descriptor
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    obs = observe_exact(Scene.of("moved", played))
    session.feed(Frame(3.0, obs))
    with pytest.raises(JournalError, match="disk full"):
        session.feed(Frame(5.0, obs))
    assert journal.read_bytes() == before  # nothing torn, nothing half-written
    assert any("RECORDING STOPPED" in line for e in shown for line in e.display)
    monkeypatch.setattr(os, "write", real_write)
    # space again: the state fell back to the journal (the opening roll is recorded with its
    # move), so the roll is seen again, then the move is judged and recorded
    roll = observe_exact(Scene.of("roll", Position.start(), dice=(3, 1)))
    session.feed(Frame(6.0, roll))
    session.feed(Frame(7.5, roll))
    session.feed(Frame(8.0, obs))
    session.feed(Frame(10.0, obs))
    assert any(isinstance(e, Moved) for e in session.events)
    session.close()
