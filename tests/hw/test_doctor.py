"""``pibg doctor`` with injected probes, mock pins, a fake Pico and image folders."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from pibg.__main__ import main
from pibg.config import Config, parse_config
from pibg.doctor import (
    CheckResult,
    check_calibration,
    check_camera,
    check_cube_model,
    check_dice_model,
    check_disk,
    check_pins,
    check_place_model,
    check_serial,
    check_spot_model,
    exit_code,
    format_report,
    run_checks,
)
from pibg.hw.mock import FakePico, MockTransport
from pibg.hw.storage import DiskUsage


def write_config(tmp_path: Path, extra: str = "") -> Path:
    frames = tmp_path / "frames"
    frames.mkdir(exist_ok=True)
    cv2.imwrite(str(frames / "0001.png"), np.zeros((48, 64, 3), np.uint8))
    (tmp_path / "cal.json").write_text('{"corners": []}')
    path = tmp_path / "pibg.toml"
    path.write_text(
        "[camera]\nsource = 'folder'\npath = 'frames'\n"
        "[vision]\ncalibration = 'cal.json'\n"
        f"[records]\ndirectory = '{tmp_path / 'records'}'\n" + extra
    )
    return path


def test_all_good(tmp_path: Path, mock_factory: MockFactory) -> None:
    with FakePico(tmp_path / "dev") as pico:
        path = write_config(tmp_path, f"[serial]\nport = '{pico.port}'\n")
        results = run_checks(
            path, probes={"buttons": functools.partial(check_pins, pin_factory=mock_factory)}
        )
    report = format_report(results)
    assert exit_code(results) == 0, report
    assert [r.name for r in results] == [
        "config",
        "camera",
        "buttons",
        "serial",
        "calibration",
        "dice model",
        "dice-finding model",
        "place model",
        "cube model",
        "disk",
    ]
    assert "✓ camera       folder: got a 64x48 frame" in report
    assert "via MockFactory" in report and "pibg-pico firmware 1.0, 28 LEDs" in report
    assert "✗" not in report


def test_failures_say_how_to_fix(tmp_path: Path) -> None:
    cfg = parse_config(
        f"[camera]\nsource='opencv'\npath='{tmp_path}/none.avi'\n"
        f"[vision]\ncalibration='{tmp_path}/nope.json'\n"
        f"[serial]\nport='{tmp_path}/ttyACM9'\n",
        tmp_path / "x.toml",
    )
    cam = check_camera(cfg)
    assert not cam.ok and "no such file" in cam.detail and "[camera] device / path" in cam.fix
    ser = check_serial(cfg)
    assert not ser.ok and "cannot open serial port" in ser.detail and "dialout" in ser.fix
    cal = check_calibration(cfg)
    assert not cal.ok and "pibg calibrate" in cal.fix
    (tmp_path / "nope.json").write_text("{broken")
    assert "unreadable" in check_calibration(cfg).detail


def test_serial_without_firmware(tmp_path: Path) -> None:
    mock = MockTransport()
    for _ in range(4):
        mock.expect("HELLO 1", [])  # plain MicroPython REPL: never answers
    cfg = parse_config("[serial]\nport = '/dev/ttyACM0'\n")
    res = check_serial(cfg, transport_factory=lambda p: mock)
    assert not res.ok and "flash the firmware" in res.fix and mock.closed


def test_pins(mock_factory: MockFactory) -> None:
    ok = check_pins(Config(), pin_factory=mock_factory)
    assert ok.ok and "confirm=GPIO17" in ok.detail
    from gpiozero import Button

    busy = Button(22, pin_factory=mock_factory)
    res = check_pins(Config(), pin_factory=mock_factory)
    assert not res.ok and "double on GPIO22" in res.detail and "lgpio" in res.fix
    busy.close()


def test_disk(tmp_path: Path) -> None:
    cfg = parse_config(f"[records]\ndirectory = '{tmp_path}/rec'\n")
    assert check_disk(cfg).ok
    full = check_disk(cfg, usage=lambda p: DiskUsage(10, 10, 5 * 1024 * 1024))
    assert not full.ok and "only 5 MB free" in full.detail
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    cfg2 = parse_config(f"[records]\ndirectory = '{ro}/rec'\n")
    if os.geteuid() != 0:  # root may write anywhere
        assert not check_disk(cfg2).ok


def test_bad_config_and_crashing_probe(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nsorce = 'sim'\n")

    def boom(cfg: Config) -> CheckResult:
        raise RuntimeError("probe bug")

    ok = lambda cfg: CheckResult("x", True, "fine")  # noqa: E731
    results = run_checks(
        bad, probes={"camera": boom, "buttons": ok, "serial": ok, "calibration": ok,
                     "dice model": ok, "dice-finding model": ok, "place model": ok,
                     "cube model": ok, "disk": ok}
    )
    assert not results[0].ok and "'sorce'" in results[0].detail
    assert not results[1].ok and "check crashed: RuntimeError: probe bug" in results[1].detail
    assert exit_code(results) == 1


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path)
    code = main(["doctor", "--config", str(path), "--skip", "buttons", "--skip", "serial"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("✓") == 8 and "serial" not in out
    (tmp_path / "cal.json").unlink()
    assert main(["doctor", "--config", str(path), "--skip", "buttons", "--skip", "serial"]) == 1
    assert "✗ calibration" in capsys.readouterr().out


@pytest.mark.parametrize(("check", "name", "works"), [
    (check_dice_model, "dice_net.onnx", "reads a drawn five"),
    (check_spot_model, "dice_spot_net.onnx", "finds a drawn die"),
    (check_place_model, "place_net.onnx", "finds the 30 checkers"),
    (check_cube_model, "cube_net.onnx", "reads a drawn 32"),
])
def test_network_checks(check: Callable[..., CheckResult], name: str, works: str,
                        tmp_path: Path) -> None:
    good = check(Config())
    assert good.ok and f"{name}: {works}" in good.detail
    broken = tmp_path / name
    broken.write_bytes(b"garbage")
    bad = check(Config(), model=broken)
    assert not bad.ok and "not a readable ONNX network" in bad.detail
    assert "reinstall pibg" in bad.fix
    missing = check(Config(), model=tmp_path / "gone.onnx")
    assert not missing.ok and "missing" in missing.detail


def test_a_network_in_another_ones_place_is_named_not_crashed_on() -> None:
    """The die-face network where the checker-place one belongs (and the other way round)
    gives a one-line error naming the file, not a reshape traceback."""
    from pibg.vision import dice_net, place_net

    swapped = check_place_model(Config(), model=dice_net.MODEL)
    assert not swapped.ok and "gives 7 scores a crop, not 3" in swapped.detail
    swapped = check_dice_model(Config(), model=place_net.MODEL)
    assert not swapped.ok and "gives 3 scores a crop, not 7" in swapped.detail
    swapped = check_cube_model(Config(), model=place_net.MODEL)
    assert not swapped.ok and "gives 3 scores a crop, not 7" in swapped.detail
    swapped = check_spot_model(Config(), model=dice_net.MODEL)
    assert not swapped.ok and "does not map a whole view to its dice" in swapped.detail
    assert f"{dice_net.MODEL}" in swapped.detail and "reinstall pibg" in swapped.fix
