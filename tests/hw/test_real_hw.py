"""Smoke tests on real hardware; skipped anywhere else (gpiozero's ``test_real_pins.py`` idea).

On the Pi: ``python -m pytest -m pi tests/hw/test_real_hw.py`` (service stopped). The Pico
test also runs on any computer with a flashed Pico plugged in when ``PIBG_REAL_PICO=1``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pibg.config import Config

MODEL = Path("/proc/device-tree/model")
ON_PI = MODEL.exists() and "Raspberry Pi" in MODEL.read_text(errors="replace")

pi_only = pytest.mark.skipif(not ON_PI, reason="needs a Raspberry Pi")


@pytest.mark.pi
@pi_only
def test_pi_camera_delivers_a_locked_frame() -> None:
    from pibg.camera.picam import PiCamera2Source

    with PiCamera2Source(size=(1280, 960), fps=5) as cam:
        frame = cam.read(timeout=3)
        lores = cam.read_lores()
        assert frame.shape == (960, 1280, 3)
        assert lores is not None and lores.shape == (240, 320)
        assert cam.locked["AeEnable"] is False


@pytest.mark.pi
@pi_only
def test_button_pins_with_the_real_factory() -> None:
    from pibg.doctor import check_pins

    result = check_pins(Config())
    assert result.ok, f"{result.detail} / {result.fix}"


@pytest.mark.pi
@pytest.mark.skipif(
    not ON_PI and os.environ.get("PIBG_REAL_PICO") != "1",
    reason="needs a Pico with the pibg firmware (PIBG_REAL_PICO=1 off the Pi)",
)
def test_real_pico_answers_and_shows() -> None:
    from pibg.effects import GREEN, Effects
    from pibg.exc import LinkDownError
    from pibg.hw.link import resolve_port
    from pibg.hw.output import open_pico_output

    try:
        resolve_port("auto")
    except LinkDownError as exc:
        pytest.skip(str(exc))
    with open_pico_output(Config().serial) as out:
        out.show(Effects.build({0: GREEN, 27: GREEN}, display=["pibg test", "LED 1 + status"]))
        assert out.link is not None and out.link.wait_synced(5)
        assert out.link.device is not None and out.link.device.leds == 28
