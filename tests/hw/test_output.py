"""Rendering Effects: recorders, the fan-out output, full-disk errors."""

from __future__ import annotations

import errno
import io
import time
from pathlib import Path

import pytest

from pibg.config import SerialConfig
from pibg.effects import AMBER, GREEN, RED, Animation, Effects
from pibg.exc import HardwareError
from pibg.hw.display import ConsoleDisplay, display_rows
from pibg.hw.leds import blink_mask, frame_hex
from pibg.hw.mock import FakePico, RecordingDisplay, RecordingLedStrip
from pibg.hw.output import EffectsOutput, open_pico_output
from pibg.hw.storage import (
    DiskUsage,
    StorageFullError,
    append_text,
    check_space,
    free_bytes,
    guarded,
)


def test_recording_sinks_and_assertions() -> None:
    leds, display = RecordingLedStrip(), RecordingDisplay()
    out = EffectsOutput(leds, display)
    a = Effects.build({5: RED}, display=["ILLEGAL MOVE"])
    b = Effects.build({5: RED, 27: AMBER}, display=["ILLEGAL MOVE"])
    for fx in (a, a, b):
        out.show(fx)
    leds.assert_frames([{5: RED}, {5: RED, 27: AMBER}])
    display.assert_screens([("ILLEGAL MOVE",)])
    with pytest.raises(AssertionError, match="LED frames"):
        leds.assert_frames([{5: RED}])
    out.close()
    out.close()


def test_failing_sink_does_not_stop_others() -> None:
    class Broken:
        def show(self, effects: Effects) -> None:
            raise OSError("i2c gone")

    leds = RecordingLedStrip()
    out = EffectsOutput(Broken(), leds)
    out.show(Effects.build({1: GREEN}))
    out.show(Effects.build({2: GREEN}))
    leds.assert_frames([{1: GREEN}, {2: GREEN}])


def test_frame_and_blink_encoding() -> None:
    fx = Effects.build({0: (300, -5, 16)}, blink={1, 2})  # type: ignore[dict-item]
    assert frame_hex(fx.leds).startswith("FF0010000000")
    assert blink_mask(fx.blink) == "6"
    with pytest.raises(ValueError):
        frame_hex(fx.leds[:3])


def test_display_rows_and_console() -> None:
    assert display_rows(["a" * 30, "ü ✓"]) == ("a" * 21, "? +", "", "")
    buf = io.StringIO()
    con = ConsoleDisplay(buf)
    con.show(Effects.build(display=["GAMMON!"]))
    con.show(Effects.build(display=["GAMMON!"]))
    assert buf.getvalue().count("GAMMON!") == 1


def test_open_pico_output_end_to_end(tmp_path: Path) -> None:
    statuses: list[str] = []
    with FakePico(tmp_path) as pico:
        with open_pico_output(
            SerialConfig(port=pico.port, brightness=200), on_status=statuses.append
        ) as out:
            fx = Effects.build(
                {23: GREEN}, display=["Black wins", "a gammon"], animation=Animation.GAMMON
            )
            out.show(fx)
            assert out.link is not None and out.link.wait_synced(5)
            assert pico.leds()[23] == GREEN and pico.device.anim == "gammon"
            assert pico.device.brightness == 64  # capped in firmware
            assert pico.text()[:2] == ("Black wins", "a gammon")
        assert out.link.status == "closed"
    assert statuses[0].startswith("connected to")


def test_show_is_bounded_when_nothing_is_plugged_in(tmp_path: Path) -> None:
    with open_pico_output(SerialConfig(port=str(tmp_path / "none"))) as out:
        t0 = time.monotonic()
        for i in range(200):
            out.show(Effects.build({i % 28: RED}))
        assert time.monotonic() - t0 < 0.5


def test_full_disk_is_a_clear_error(tmp_path: Path) -> None:
    def full_writer(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    target = tmp_path / "records" / "match.jsonl"
    with pytest.raises(StorageFullError) as err:
        append_text(target, "{}\n", writer=full_writer)
    exc = err.value
    assert isinstance(exc, HardwareError) and isinstance(exc, OSError)
    assert exc.errno == errno.ENOSPC and exc.filename == str(target)
    assert str(exc).startswith(f"disk full writing {target}") and "\n" not in str(exc)

    def ro_writer(path: Path, text: str) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    with pytest.raises(StorageFullError, match="read-only"):
        append_text(target, "x", writer=ro_writer)
    with pytest.raises(PermissionError), guarded(target):  # other errors pass unchanged
        raise PermissionError(errno.EACCES, "denied")


def test_append_text_and_space_checks(tmp_path: Path) -> None:
    f = tmp_path / "log.txt"
    append_text(f, "one\n")
    append_text(f, "two\n")
    assert f.read_text() == "one\ntwo\n"
    assert free_bytes(tmp_path / "not" / "yet") > 0
    tiny = lambda p: DiskUsage(100, 90, 10 * 1024 * 1024)  # noqa: E731
    with pytest.raises(StorageFullError, match="only 10 MB free"):
        check_space(tmp_path, usage=tiny)
    assert check_space(tmp_path, min_free=1024, usage=tiny) == 10 * 1024 * 1024
