"""What the command line advises works, and what it says names the real problem: the
calibrate command ``pibg run`` and ``pibg doctor`` give runs on a rig (here a camera that is an
image folder), ``pibg doctor`` without a configuration says how to make one, and ``pibg score``
on a file that is not a journal says so in one line."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import cv2
import pytest

from pibg.__main__ import main
from pibg.config import load_config
from pibg.doctor import check_calibration, check_config
from pibg.sim import SimScene, render
from pibg.vision.geometry import START_POINTS

DATA = Path(__file__).resolve().parent / "data" / "records"


@pytest.fixture()
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A configuration whose camera shows the starting position (an image folder), with no
    calibration yet; it is the default configuration ($PIBG_CONFIG)."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), render(SimScene(START_POINTS)))
    cfg = tmp_path / "pibg.toml"
    cfg.write_text(f"[camera]\nsource = 'folder'\npath = '{frames}'\n"
                   f"[vision]\ncalibration = '{tmp_path / 'cal' / 'calibration.toml'}'\n"
                   f"[records]\ndirectory = '{tmp_path / 'records'}'\n")
    (tmp_path / "cal").mkdir()
    monkeypatch.setenv("PIBG_CONFIG", str(cfg))
    return cfg


def _advised(text: str) -> list[str]:
    m = re.search(r"[`'](pibg calibrate [^`']+)[`']", text)
    assert m, text
    return shlex.split(m.group(1))[1:]


def test_the_calibrate_command_pibg_run_advises_works_on_the_rig(
        rig: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--no-buttons", "--no-pico"]) == 2
    argv = _advised(capsys.readouterr().err)
    assert "--source" in argv and "camera" in argv
    assert main(argv) == 0
    cal = load_config(rig).vision.calibration
    assert cal.exists() and f"calibrated: {cal}" in capsys.readouterr().out


def test_the_calibrate_command_doctor_advises_works_on_the_rig(
        rig: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIBG_CONFIG")  # named by --config: the advice must name it too
    cfg = load_config(rig)
    res = check_calibration(cfg)
    assert not res.ok and "starting position" in res.fix and "empty board" not in res.fix
    argv = _advised(res.fix)
    assert argv[argv.index("--config") + 1] == str(rig)
    assert main(argv) == 0
    assert check_calibration(cfg).ok


def test_calibrate_from_the_camera_refuses_an_image_too(rig: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "--source", "camera", "frame.png"]) == 2
    assert "takes no IMAGE" in capsys.readouterr().err


def test_doctor_without_a_configuration_says_how_to_make_one(tmp_path: Path) -> None:
    missing = tmp_path / "pibg.toml"
    res, _ = check_config(missing)
    assert not res.ok and "fix the file" not in res.fix
    assert f"cp {Path(__file__).parents[1] / 'pibg' / 'data' / 'pibg.example.toml'}" in res.fix
    assert str(missing) in res.fix
    missing.write_text("[match]\nlength = 'five'\n")
    res, _ = check_config(missing)
    assert not res.ok and f"edit {missing}" in res.fix


@pytest.mark.parametrize("name, text", [
    ("README.md", "# pibg\n\nA referee.\n"),
    ("notes.txt", "hello"),   # one line, no newline: once "incomplete and skipped"
    ("data.jsonl", '{"a": 1}\n'),
    ("m005_3pt.mat", (DATA / "m005_3pt.mat").read_text()),
    ("m005_3pt.sgf", (DATA / "m005_3pt.sgf").read_text()),
])
@pytest.mark.parametrize("command", ["score", "stats", "export"])
def test_a_file_that_is_not_a_journal_is_said_to_be_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
        command: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert main([command, str(path)]) == 2
    out = capsys.readouterr()
    assert out.err.count("\n") == 1 and f"{path}: not a journal" in out.err
    assert "incomplete" not in out.err + out.out
    if path.suffix in (".mat", ".sgf"):
        assert "pibg import" in out.err


def test_a_journal_is_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(journal)]) == 0
    assert main(["score", str(journal)]) == 0
    assert "3-point match" in capsys.readouterr().out
