"""The change detector and the calibrate/read commands."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pibg.__main__ import main
from pibg.sim import SimScene, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.motion import MotionDetector

DATA = Path(__file__).resolve().parents[1] / "data" / "vision"


def test_motion_states() -> None:
    d = MotionDetector()
    still = np.full((240, 320, 3), 90, np.uint8)
    assert [d.update(still) for _ in range(4)][-1] == "stable"
    arm = still.copy()
    arm[120:, 140:200] = 200  # reaches in from the bottom edge
    states = [d.update(arm) for _ in range(5)]
    assert states[0] == "moving" and states[-1] == "hand"
    moved = still.copy()
    moved[100:120, 100:120] = 200  # a checker moved: not touching the edge
    states = [d.update(moved) for _ in range(5)]
    assert states[-1] == "stable"


def _corners_arg() -> str:
    return ";".join(f"{x:.1f},{y:.1f}" for x, y in sim_corners())


def test_calibrate_then_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = tmp_path / "start.png"
    cv2.imwrite(str(start), render(SimScene(START_POINTS)))
    cal = tmp_path / "board.toml"
    assert main(["calibrate", str(start), "-o", str(cal), "--corners", _corners_arg()]) == 0
    frame = tmp_path / "frame.png"
    pts = (0, -2, 0, 0, -2, 4, 2, 2, 0, 0, 0, -4, 3, 0, 0, 0, -2, 0, -5, 2, 0, 0, 0, 2)
    cv2.imwrite(str(frame), render(SimScene(pts, seed=3)))
    capsys.readouterr()
    assert main(["read", str(frame), "--calibration", str(cal), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["points"] == list(pts) and out["readable"] is True
    assert main(["read", str(frame), "--calibration", str(cal)]) == 0
    text = capsys.readouterr().out
    assert "BAR" in text and "O = White" in text


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = tmp_path / "start.png"
    cv2.imwrite(str(start), render(SimScene(START_POINTS)))
    assert main(["calibrate", str(start), "-o", str(tmp_path / "x.toml"),
                 "--corners", "1,1;2,2;3,3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "corners" in err
    assert main(["calibrate", "--source", "camera", "--config", str(tmp_path / "none.toml"),
                 "-o", str(tmp_path / "x.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "none.toml: no such configuration file" in err
    assert main(["read", str(start), "--calibration", str(tmp_path / "none.toml")]) == 2


def test_a_missing_or_unreadable_image_is_named_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(tmp_path / "nope.png"), "--calibration",
                 str(DATA / "sim_walnut.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no image at" in err and "nope.png" in err
    junk = tmp_path / "junk.png"
    junk.write_text("not an image")
    assert main(["calibrate", str(junk), "-o", str(tmp_path / "x.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not a PNG or JPEG image" in err and "junk.png" in err
