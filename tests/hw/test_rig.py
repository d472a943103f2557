"""The Rig as the main loop uses it: sim camera, mock pins, a fake Pico, systemd recorder."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from pibg.camera import EndOfFrames
from pibg.camera.replay import FrameListSource
from pibg.config import parse_config
from pibg.effects import RED, Effects
from pibg.exc import HardwareError
from pibg.hw.buttons import Action
from pibg.hw.mock import FakePico, RecordingLedStrip
from pibg.hw.rig import Rig
from pibg.service import ServiceNotifier


def black(scene: object, size: tuple[int, int]) -> np.ndarray:
    return np.zeros((size[1], size[0], 3), np.uint8)


def test_rig_main_loop_pieces(tmp_path: Path, mock_factory: MockFactory) -> None:
    sent: list[str] = []
    notifier = ServiceNotifier(environ={"WATCHDOG_USEC": "2000000"}, send=sent.append)
    leds = RecordingLedStrip()
    statuses: list[tuple[str, str]] = []
    with FakePico(tmp_path) as pico:
        cfg = parse_config(f"[camera]\nsource='sim'\nsize=[64,48]\n[serial]\nport='{pico.port}'\n")
        with Rig(
            cfg,
            camera_kwargs={"scenes": ["a", "b"], "render": black},
            pin_factory=mock_factory,
            notifier=notifier,
            extra_sinks=(leds,),
            on_status=lambda part, text: statuses.append((part, text)),
        ) as rig:
            assert "READY=1" not in sent  # not READY before a frame
            frame = rig.read_frame()
            assert frame is not None and frame.shape == (48, 64, 3)
            assert [s for s in sent if not s.startswith("STATUS=")] == ["READY=1", "WATCHDOG=1"]
            mock_factory.pin(17).drive_low()
            mock_factory.pin(17).drive_high()  # within bounce_time: settled by the next poll
            time.sleep(0.06)
            events = rig.button_events()
            assert [e.action for e in events] == [Action.CONFIRM]
            assert rig.button_events() == []
            fx = Effects.build({4: RED}, display=["ILLEGAL MOVE"])
            rig.show(fx)
            leds.assert_frames([{4: RED}])
            assert rig.output.link is not None and rig.output.link.wait_synced(5)
            assert pico.leds()[4] == RED and pico.text()[0] == "ILLEGAL MOVE"
            lores = rig.read_lores()
            assert lores is not None and lores.shape == (240, 320)
            with pytest.raises(EndOfFrames):
                rig.read_frame()
            rig.tick()
        assert sent[-1] == "STOPPING=1"
        assert ("camera", "camera ok") in statuses
        assert any(part == "pico" and text.startswith("connected") for part, text in statuses)
        assert any(s.startswith("STATUS=camera: camera ok") for s in sent)
    rig.close()


def test_rig_without_pico_or_buttons_and_a_lost_camera() -> None:
    class Dying(FrameListSource):
        reads = 0

        def _read(self, timeout: float) -> np.ndarray:
            Dying.reads += 1
            if Dying.reads > 1:
                from pibg.exc import CameraUnavailableError

                raise CameraUnavailableError("ribbon loose")
            return super()._read(timeout)

    src = Dying([np.zeros((4, 4, 3), np.uint8)], loop=True)
    with Rig(
        parse_config(""),
        camera=src,
        buttons=False,
        pico=False,
        notifier=ServiceNotifier(environ={}, send=lambda s: True),
    ) as rig:
        assert rig.read_frame() is not None
        assert rig.read_frame(timeout=0.2) is None  # down: None, the loop goes on
        assert rig.status["camera"].startswith("camera lost: ribbon loose")
        assert rig.button_events() == []
        rig.show(Effects())


def test_rig_closes_what_it_opened_when_buttons_fail(mock_factory: MockFactory) -> None:
    from gpiozero import Button

    busy = Button(17, pin_factory=mock_factory)
    cfg = parse_config("[camera]\nsource='sim'\n")
    rig = Rig(
        cfg,
        camera_kwargs={"scenes": ["x"], "render": black},
        pin_factory=mock_factory,
        pico=False,
        notifier=ServiceNotifier(environ={}, send=lambda s: True),
    )
    with pytest.raises(HardwareError, match="GPIO pin 17"):
        rig.open()
    assert rig.camera is not None and rig.camera.status == "closed"
    busy.close()


def test_rig_with_buttons_on_the_pico(tmp_path: Path) -> None:
    with FakePico(tmp_path) as pico:
        cfg = parse_config(f"[serial]\nport='{pico.port}'\n[buttons]\nbounce_time=0.0\n")
        with Rig(
            cfg,
            camera=FrameListSource([np.zeros((4, 4, 3), np.uint8)]),
            buttons=False,
            pico_buttons=("confirm", "undo"),
            notifier=ServiceNotifier(environ={}, send=lambda s: True),
        ) as rig:
            assert rig.output.link is not None and rig.output.link.wait_synced(5)
            pico.send(pico.device.button_event(1, "DOWN"))
            pico.send(pico.device.button_event(1, "UP"))
            deadline = time.monotonic() + 3
            events = []
            while not events and time.monotonic() < deadline:
                events = rig.button_events()
                time.sleep(0.02)
            assert [e.action for e in events] == [Action.UNDO]
