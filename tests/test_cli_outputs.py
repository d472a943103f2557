"""One spelling for where a command writes: ``-o``/``--out`` on every command that writes
files; the spellings of before (``--output``, ``--records``) still work, out of sight. A
journal already there is replaced only with ``--force`` (``demo``, ``import``), and
``web-replay`` takes ``--money`` as ``replay`` does."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from pibg.__main__ import build_parser, main
from pibg.sim import SimScene, render
from pibg.vision.geometry import START_POINTS

DATA = Path(__file__).resolve().parent / "data" / "records"

#: The commands that write files, and the spellings they had before ``-o/--out``.
WRITERS = {"demo": [], "replay": [], "web-replay": ["--records"], "calibrate": ["--output"],
           "import": ["--output"], "export": ["--output"]}


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings]


def test_every_command_that_writes_says_where_with_o_out() -> None:
    commands = _commands()
    writing = {name for name, p in commands.items()
               if any(a.dest in ("out", "output", "records") for a in _options(p))}
    assert writing == set(WRITERS)
    for name, parser in commands.items():
        shown = [s for a in _options(parser) if a.help != argparse.SUPPRESS
                 for s in a.option_strings]
        assert "--output" not in shown and "--records" not in shown, name
        if name in WRITERS:
            assert "-o" in shown and "--out" in shown, name
            assert "-o PATH, --out PATH" in parser.format_help(), name


@pytest.mark.parametrize("command, old", [(c, o) for c, olds in WRITERS.items() for o in olds])
def test_the_old_spellings_still_work(command: str, old: str) -> None:
    source = {"web-replay": ["sim"], "import": ["m.mat"], "export": ["m.jsonl"],
              "calibrate": ["frame.png"]}[command]
    args = build_parser().parse_args([command, *source, old, "x"])
    assert args.out == Path("x")
    assert build_parser().parse_args([command, *source, "-o", "y"]).out == Path("y")


def test_import_refuses_a_journal_unless_forced(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(out)]) == 0
    first = out.read_bytes()
    assert main(["import", str(DATA / "m001_5pt.mat"), "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_bytes() == first
    assert main(["import", str(DATA / "m001_5pt.mat"), "-o", str(out), "--force"]) == 0
    assert out.read_bytes() != first


def test_import_needs_o(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(DATA / "m005_3pt.mat")]) == 2
    assert "-o PATH" in capsys.readouterr().err


def test_demo_refuses_a_journal_unless_forced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import pibg.app
    import pibg.commands.play

    seen: list[bool] = []

    def fake_demo(out: Path) -> None:
        seen.append((out / "match.jsonl").exists())

    monkeypatch.setattr(pibg.app, "demo", fake_demo)
    monkeypatch.setattr(pibg.commands.play, "_report", lambda res: None)
    journal = tmp_path / "match.jsonl"
    journal.write_text('{"seq":1,"event":"match_start"}\n')
    assert main(["demo", "-o", str(tmp_path)]) == 2
    assert "--force" in capsys.readouterr().err and journal.exists() and seen == []
    assert main(["demo", "--out", str(tmp_path), "--force"]) == 0
    assert seen == [False], "the old journal was still there for the demo to resume"
    assert main(["demo", "-o", str(tmp_path / "new")]) == 0


def _first_event(folder: Path) -> dict[str, Any]:
    journal = next(folder.glob("*/match.jsonl"))
    event: dict[str, Any] = json.loads(journal.read_text().splitlines()[0])
    return event


def test_web_replay_plays_money_with_money(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), render(SimScene(START_POINTS)))
    out = tmp_path / "out"
    assert main(["web-replay", str(frames), "--money", "--exit", "--port", "0", "--delay", "0",
                 "-o", str(out)]) == 0
    assert _first_event(out)["settings"]["length"] == 0
    with pytest.raises(SystemExit) as exited:
        main(["web-replay", str(frames), "--money", "--match-length", "3"])
    assert exited.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
