"""Issue 39 (the live service): a full disk at a game's end, a journal damaged in the middle
and SIGTERM never take the service down or lose a match."""

from __future__ import annotations

import errno
import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pibg.app as app
from pibg.app import Session, demo_events, match_folder, run
from pibg.effects import Effects
from pibg.events import GameEnded, MatchSettings
from pibg.journal import Journal

HERE = Path(__file__).parent


def _child_module():
    spec = importlib.util.spec_from_file_location("service_child", HERE / "service_child.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(tmp: Path) -> Path:
    cal = tmp / "cal.toml"
    cal.write_text("# stands in for a calibration\n")
    cfg = tmp / "pibg.toml"
    cfg.write_text(f'[match]\nlength = 5\nplayer_white = "erin"\nplayer_black = "judy"\n'
                   f'[vision]\ncalibration = "{cal}"\nstable_seconds = 0.0\n'
                   f'[web]\nenabled = false\n'
                   f'[records]\ndirectory = "{tmp / "records"}"\n')
    return cfg


def test_full_disk_at_a_games_end_keeps_refereeing_and_writes_the_records_later(
        tmp_path: Path, monkeypatch):
    child = _child_module()
    cfg = _config(tmp_path)
    real_write_mat = app.write_mat
    state = {"full": True, "failed": 0}

    def write_mat(events, path):
        if state["full"]:
            state["failed"] += 1
            if state["failed"] >= 3:  # space returns after a few tries
                state["full"] = False
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write_mat(events, path)

    monkeypatch.setattr(app, "write_mat", write_mat)
    monkeypatch.setattr(app, "EXPORT_RETRY_SECONDS", 0.0)
    shown: list[Effects] = []
    said: list[str] = []
    code = run(cfg, printer=said.append, vision_factory=lambda _p: child.Exact(),
               rig_factory=lambda *_a, **_k: child.Rig(child.frames(), 0.0, shown))
    assert code == 0
    assert state["failed"] == 3
    assert any("disk full" in line for line in said)
    assert any(e.display and e.display[0].startswith("DISK FULL") for e in shown)
    # refereeing went on to the end of the match, and the records caught up
    folder = next((tmp_path / "records").glob("*/match.jsonl")).parent
    events = Journal.open(folder / "match.jsonl", readonly=True).events()
    assert sum(isinstance(e, GameEnded) for e in events) == sum(
        isinstance(e, GameEnded) for e in demo_events())
    assert (folder / "match.mat").exists() and (folder / "match.sgf").exists()
    assert any("records written at last" in line for line in said)


def test_replay_survives_a_full_disk_at_the_export(tmp_path: Path, monkeypatch):
    from pibg.script import ButtonPress, Mishaps, observe_exact, table_script

    def full(events, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(app, "write_mat", full)
    said: list[str] = []
    source = [a if isinstance(a, ButtonPress) else app.Held(a, a.kind)  # type: ignore[arg-type]
              for a in table_script(demo_events()[:12], Mishaps())]
    res = app.replay(source, tmp_path, MatchSettings(length=5), stable_seconds=0.0,
                     observe=observe_exact, printer=said.append)  # type: ignore[arg-type]
    assert len(Journal.open(res.journal, readonly=True).events()) > 1
    assert any("records not written" in line for line in said)


def _half_played(records: Path, damage_line: int) -> tuple[Path, int]:
    folder = match_folder(records)
    events = demo_events()[:40]
    with Journal.open(folder / "match.jsonl") as j:
        j.extend(events)
    path = folder / "match.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[damage_line - 1] = lines[damage_line - 1][:20] + b"\x00garbage"
    path.write_bytes(b"\n".join(lines))
    return folder, len(events)


def test_a_journal_damaged_in_the_middle_resumes_the_same_match_and_says_so(
        tmp_path: Path, caplog):
    records = tmp_path / "records"
    folder, written = _half_played(records, damage_line=25)
    before = (folder / "match.jsonl").read_bytes()
    assert match_folder(records) == folder  # the same match, not a new one beside it
    assert (records / "ACTIVE").read_text().strip() == folder.name
    shown: list[Effects] = []
    said: list[str] = []
    with caplog.at_level(logging.WARNING, logger="pibg.journal"):
        session = Session(folder, MatchSettings(length=5), printer=said.append,
                          sinks=[shown.append])
    with session:
        assert len(session.events) == 24  # the events before the damaged line
        aside = folder / "match.jsonl.damaged-1"
        assert before.endswith(aside.read_bytes()) and aside.read_bytes().count(b"\n") == (
            written - 24)
        assert any("line 25" in line and "damaged-1" in line for line in said)
        assert any("damaged-1" in r.getMessage() for r in caplog.records)
        assert shown[-1].display[0] == "JOURNAL REPAIRED"
        assert session.alerts == {"journal": "JOURNAL REPAIRED"}


def test_the_web_page_shows_the_alerts():
    from pibg import referee
    from pibg.web.view import LiveView

    view = LiveView()
    view.update(referee.new_match(MatchSettings(length=5)))
    v = view.versions.state
    view.set_alerts(("DISK FULL",))
    assert view.snapshot()["alerts"] == ["DISK FULL"]
    assert view.versions.state > v


def test_sigterm_stops_cleanly_and_writes_the_records(tmp_path: Path):
    cfg = _config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent.parent)}
    child = subprocess.Popen([sys.executable, str(HERE / "service_child.py"), str(cfg), "0.02"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    deadline = time.monotonic() + 120
    journals: list[Path] = []
    while child.poll() is None:
        journals = list((tmp_path / "records").glob("*/match.jsonl"))
        if journals and journals[0].read_bytes().count(b"\n") >= 12:
            break
        assert time.monotonic() < deadline, "the service wrote no journal"
        time.sleep(0.01)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err[-2000:]
    assert "SIGTERM" in out
    assert "rig closed" in out
    assert (journals[0].parent / "match.mat").exists()
