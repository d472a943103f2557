"""``pibg read``: without ``--white-home`` the side is found as ``pibg calibrate`` finds it
(in the starting position) or the read is refused, never read from a guessed side; and a
calibration that does not fit the frame is said not to fit, not taken for a hand."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from pibg.__main__ import main
from pibg.sim import SimScene, render, sim_corners
from pibg.vision.geometry import START_POINTS

from .conftest import DATA


def _corners(c: np.ndarray) -> str:
    return ";".join(f"{x:.0f},{y:.0f}" for x, y in c)


def _read(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["read", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def start() -> np.ndarray:
    return render(SimScene(START_POINTS))


def test_the_side_is_found_in_the_starting_position(tmp_path: Path, start: np.ndarray,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Turned half round, White's home lies top-left: the old default (bottom-right) put
    every point in the wrong place."""
    upright, turned = tmp_path / "upright.png", tmp_path / "turned.png"
    cv2.imwrite(str(upright), start)
    cv2.imwrite(str(turned), cv2.rotate(start, cv2.ROTATE_180))
    c = sim_corners()
    h, w = start.shape[:2]
    c180 = np.array([(w - 1 - x, h - 1 - y) for x, y in c])[[2, 3, 0, 1]]
    code, truth, _ = _read(capsys, str(upright), "--corners", _corners(c),
                           "--white-home", "bottom-right")
    assert code == 0
    code, found, _ = _read(capsys, str(turned), "--corners", _corners(c180))
    assert code == 0 and found == truth
    _, guessed, _ = _read(capsys, str(turned), "--corners", _corners(c180),
                          "--white-home", "bottom-right")
    assert guessed != truth  # what reading from the guessed side gave


def test_any_other_position_needs_white_home(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    points = [0] * 24
    points[0], points[2], points[4], points[5], points[7] = 2, 3, 3, 4, 3
    points[23], points[20], points[18], points[16], points[12] = -2, -4, -3, -3, -3
    frame = tmp_path / "mid.png"
    cv2.imwrite(str(frame), render(SimScene(points)))
    code, out, err = _read(capsys, str(frame), "--corners", _corners(sim_corners()))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--white-home" in err and "starting position" in err
    code, out, _ = _read(capsys, str(frame), "--corners", _corners(sim_corners()),
                         "--white-home", "bottom-right")
    assert code == 0 and out


def test_a_calibration_that_does_not_fit_is_not_a_hand(tmp_path: Path, start: np.ndarray,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    cal = str(DATA / "sim_walnut.toml")
    moved = tmp_path / "moved.png"
    shift = np.float64([[1, 0, 0], [0, 1, 60]])  # the camera moved: the board 60 px lower
    cv2.imwrite(str(moved), cv2.warpAffine(start, shift, start.shape[1::-1],
                                           borderMode=cv2.BORDER_REPLICATE))
    code, out, _ = _read(capsys, str(moved), "--calibration", cal)
    assert code == 0
    assert "the calibration does not fit this frame" in out and "hand" not in out
    hand = tmp_path / "hand.png"
    cv2.imwrite(str(hand), render(SimScene(START_POINTS, hand=True)))
    code, out, _ = _read(capsys, str(hand), "--calibration", cal)
    assert code == 0 and "hand or arm" in out and "does not fit" not in out
