"""``pibg web-replay``: the page fed by a replayed source."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.__main__ import main
from pibg.app import Session
from pibg.commands.web import Controls, feed
from pibg.exc import PibgError
from pibg.script import observe_exact, table_script
from pibg.web import LiveView

from .conftest import match_events


def test_web_replay_referees_the_bundled_match(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["web-replay", "sim", "--no-camera", "--delay", "0", "--exit", "--port", "0",
                 "-o", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "the page is at http://127.0.0.1:" in out
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) == 1
    assert {p.name for p in folders[0].iterdir()} >= {"match.jsonl", "match.mat", "match.sgf"}


def test_web_replay_refuses_no_camera_for_a_folder(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web-replay", str(tmp_path), "--no-camera", "--port", "0", "--exit"]) == 2
    assert "--no-camera needs a sim source" in capsys.readouterr().err


def test_page_controls_reach_the_referee(tmp_path: Path) -> None:
    events = match_events()
    controls = Controls()
    with pytest.raises(PibgError, match="new match"):
        controls("new_match")
    controls("undo")
    view = LiveView()
    with Session(tmp_path / "m", events[0].settings) as session:  # type: ignore[attr-defined]
        view.update(session.step)
        frames = feed(table_script(events)[:12], session, view, observe=observe_exact,
                      controls=controls)
    assert frames > 0
    said = [line["text"] for line in view.snapshot()["say"]]
    assert "undo: nothing to take back" in said
    assert view.snapshot()["moves"], "the replay made no moves"
