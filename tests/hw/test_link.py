"""The host side of the Pico link: stop-and-wait over mocks, loop:// and a fake Pico on a pty."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import serial

from pibg.effects import GREEN, RED, Effects
from pibg.exc import LinkDownError
from pibg.hw import pico_protocol as proto
from pibg.hw.display import PicoDisplay
from pibg.hw.leds import PicoLedStrip, frame_hex
from pibg.hw.link import (
    DeviceCommandError,
    Link,
    PicoLink,
    PicoState,
    SerialTransport,
    resolve_port,
)
from pibg.hw.mock import FakePico, MockTransport

HELLO = "OK HELLO pibg-pico 1.0 leds=28 rows=4 maxbri=64"


def test_link_request_ok_err_and_retry() -> None:
    mock = MockTransport()
    mock.expect("HELLO 1", [HELLO])
    mock.expect("PING", [])  # answer lost
    mock.expect("PING", ["OK"])  # the retry
    mock.expect("LED 40 FFFFFF", ["ERR 3 LED index 0..27"])
    link = Link(mock, timeout=0.02)
    assert link.hello().firmware == "1.0"
    assert link.request("PING") == ""
    with pytest.raises(DeviceCommandError, match="LED index"):
        link.request("LED", "40 FFFFFF")
    mock.assert_done()


def test_link_gives_up_with_linkdown() -> None:
    mock = MockTransport()
    for _ in range(4):
        mock.expect("PING", [])
    with pytest.raises(LinkDownError, match="no answer to PING after 4 tries"):
        Link(mock, timeout=0.01).request("PING")
    mock.assert_done()


def test_link_ignores_garbage_stale_replies_and_records_boot() -> None:
    mock = MockTransport()
    events: list[str] = []
    link = Link(mock, timeout=0.05, on_event=events.append)
    mock.send_raw(b"AT+CGMI\r\n")
    mock.send_raw(proto.encode(4242, "OK"))  # a stale reply to an old command
    mock.event("BOOT 1.0")
    mock.send_raw(proto.encode(1, "OK").replace(b"OK", b"OX"))  # corrupted: CRC fails
    mock.expect("PING", ["OK"])
    assert link.request("PING") == ""
    assert link.boot_seen and events == ["BOOT 1.0"]
    mock.assert_done()


def test_mock_transport_reports_mismatch() -> None:
    mock = MockTransport()
    mock.expect("PING")
    mock.write(proto.encode(1, "CLR"))
    with pytest.raises(AssertionError, match="expected 'PING', got 'CLR'"):
        mock.assert_done()


def test_serial_transport_over_loop_url() -> None:
    t = SerialTransport("loop://")
    t.write(proto.encode(3, "PING"))
    assert proto.decode(t.readline(0.5)) == (3, "PING", "")
    assert t.readline(0.05) == b""
    t.close()
    t.close()


def test_serial_transport_bad_port() -> None:
    with pytest.raises(LinkDownError, match="cannot open serial port /nonexistent"):
        SerialTransport("/nonexistent/ttyACM9")


def test_resolve_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_port("/dev/ttyACM3") == "/dev/ttyACM3"
    monkeypatch.setattr("pibg.hw.link.BY_ID_GLOB", str(tmp_path / "usb-MicroPython*"))
    monkeypatch.setattr("pibg.hw.link.FALLBACK_GLOB", str(tmp_path / "ttyACM*"))
    with pytest.raises(LinkDownError, match="no Pico found"):
        resolve_port("auto")
    (tmp_path / "ttyACM0").touch()
    assert resolve_port("auto") == str(tmp_path / "ttyACM0")
    (tmp_path / "usb-MicroPython_x-if00").touch()
    assert resolve_port("auto").endswith("usb-MicroPython_x-if00")


def test_state_commands_only_send_changes() -> None:
    a = PicoState()
    assert [c for _, c, _ in a.commands(None)] == ["BRI", "FRAME", "BLINK", "ANIM"] + ["TXT"] * 4
    b = PicoState(text=("ILLEGAL", "", "", ""))
    assert b.commands(a) == [("text0", "TXT", "0 ILLEGAL")]
    assert b.commands(b) == []


def test_link_over_real_pty_with_dropped_reply(fake_pico: FakePico) -> None:
    fake_pico.drop_replies = 1
    t = SerialTransport(fake_pico.port)
    link = Link(t, timeout=0.1)
    try:
        assert link.hello().leds == 28
        link.request("FRAME", frame_hex(Effects.build({3: RED}).leds))
        assert fake_pico.leds()[3] == RED
        # the dropped reply was re-sent with the same seq: the command ran once
        assert sum(b" HELLO " in r for r in fake_pico.received) == 2
        assert fake_pico.device.commands == 2
    finally:
        t.close()


def test_second_exclusive_open_fails(fake_pico: FakePico) -> None:
    t = SerialTransport(fake_pico.port)
    try:
        with pytest.raises(LinkDownError, match="lock"):
            SerialTransport(fake_pico.port)
    finally:
        t.close()


def test_unplug_mid_message_raises_linkdown(fake_pico: FakePico) -> None:
    t = SerialTransport(fake_pico.port)
    link = Link(t, timeout=0.1)
    link.hello()
    fake_pico.unplug()
    with pytest.raises(LinkDownError):
        link.request("FRAME", "00" * 84)
    t.close()


def _wait(pred, timeout: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return False


def test_pico_link_renders_effects_and_survives_replug(fake_pico: FakePico) -> None:
    statuses: list[str] = []
    link = PicoLink(fake_pico.port, heartbeat=0.2, on_status=statuses.append, timeout=0.1)
    leds, display = PicoLedStrip(link), PicoDisplay(link)
    fx = Effects.build({0: RED, 23: GREEN}, display=["ILLEGAL MOVE", "13/7 needs a 6"], blink={0})
    with link:
        t0 = time.monotonic()
        leds.show(fx)
        display.show(fx)
        assert time.monotonic() - t0 < 0.05  # the caller never waits for the device
        assert link.wait_synced(5)
        assert fake_pico.leds()[0] == RED and fake_pico.leds()[23] == GREEN
        assert fake_pico.text() == ("ILLEGAL MOVE", "13/7 needs a 6", "", "")
        assert fake_pico.device.blink_mask == 1

        fake_pico.unplug()  # cable out: the device forgets everything
        assert _wait(lambda: not link.connected, 3)
        t0 = time.monotonic()
        for _ in range(20):  # refereeing goes on meanwhile; show() stays instant
            leds.show(fx)
        assert time.monotonic() - t0 < 0.05
        fake_pico.replug()
        t_plug = time.monotonic()
        assert link.wait_synced(5)
        assert time.monotonic() - t_plug < 5
        assert fake_pico.text()[0] == "ILLEGAL MOVE" and fake_pico.leds()[23] == GREEN
    assert link.stats.connects == 2
    assert any(s.startswith("down") for s in statuses) and statuses[-1] == "closed"
    link.close()  # twice is fine


def test_pico_link_resends_after_device_reboot(fake_pico: FakePico) -> None:
    with PicoLink(fake_pico.port, heartbeat=0.1, timeout=0.1) as link:
        PicoDisplay(link).show(Effects.build(display=["White to play"]))
        assert link.wait_synced(5)
        fake_pico.reboot()
        assert fake_pico.text()[0] == ""
        assert _wait(lambda: fake_pico.text()[0] == "White to play")


def test_pico_link_heartbeat_keeps_device_online(fake_pico: FakePico) -> None:
    with PicoLink(fake_pico.port, heartbeat=0.05, timeout=0.1) as link:
        assert link.wait_synced(5)
        n = len(fake_pico.received)
        assert _wait(lambda: len(fake_pico.received) >= n + 3, 2)
        assert b" PING*" in fake_pico.received[-1]
        assert not fake_pico.device.offline(fake_pico.now_ms())


def test_pico_link_with_nothing_plugged_in_keeps_retrying(tmp_path: Path) -> None:
    statuses: list[str] = []
    link = PicoLink(
        str(tmp_path / "missing"), on_status=statuses.append, backoff=0.01, max_backoff=0.02
    )
    with link:
        assert _wait(lambda: link.stats.failures >= 3, 3)
        link.update(text=("x", "", "", ""))  # still instant
    assert statuses[0].startswith("down: cannot open serial port")


def test_pico_link_with_mock_transport() -> None:
    mock = MockTransport()
    mock.expect("HELLO 1", [HELLO])
    mock.expect("BRI 48", ["OK BRI 48"])
    mock.expect("FRAME *", ["OK"])
    mock.expect("BLINK 0 400", ["OK"])
    mock.expect("ANIM none", ["OK"])
    for row in range(4):
        mock.expect(f"TXT {row}", ["OK"])
    mock.expect("PING", ["OK"])
    with PicoLink("mock", transport_factory=lambda _p: mock, heartbeat=0.05) as link:
        assert link.wait_synced(2)
        assert _wait(lambda: "PING" in mock.written)
    mock.assert_done()


def test_pyserial_unplug_error_is_what_we_catch(fake_pico: FakePico) -> None:
    s = serial.Serial(fake_pico.port, timeout=0.2)
    fake_pico.unplug()
    with pytest.raises((serial.SerialException, OSError)):
        s.read(10)
        s.write(b"x")
        s.read(10)
    s.close()


def test_unplug_mid_message_then_replug_restores_within_5s(fake_pico: FakePico) -> None:
    with PicoLink(fake_pico.port, heartbeat=0.2, timeout=0.1) as link:
        assert link.wait_synced(5)
        fake_pico.drop_replies = 1000  # the device stops answering: the host is mid-retry
        PicoDisplay(link).show(Effects.build(display=["White to play", "5-3"]))
        assert _wait(lambda: any(b" TXT 0 White" in r for r in fake_pico.received), 2)
        fake_pico.send(b"1 TXT 0 Whi")  # and half a line is on the wire when the cable goes
        fake_pico.unplug()
        fake_pico.drop_replies = 0
        fake_pico.replug()
        t0 = time.monotonic()
        assert link.wait_synced(5)
        assert time.monotonic() - t0 < 5
        assert fake_pico.text()[:2] == ("White to play", "5-3")


def test_idle_link_notices_reboot_before_the_next_ping(fake_pico: FakePico) -> None:
    with PicoLink(fake_pico.port, heartbeat=30, timeout=0.1) as link:
        PicoDisplay(link).show(Effects.build(display=["Black to play"]))
        assert link.wait_synced(5)
        fake_pico.reboot()
        assert _wait(lambda: fake_pico.text()[0] == "Black to play", 2)


def test_link_thread_survives_a_broken_transport_factory() -> None:
    calls = []

    def factory(path: str) -> MockTransport:
        calls.append(path)
        if len(calls) < 3:
            raise LinkDownError("not yet")  # then a working one
        mock = MockTransport()
        mock.expect("HELLO 1", [HELLO])
        for _ in range(30):
            mock.expect("*", ["OK"])
        return mock

    with PicoLink("x", transport_factory=factory, backoff=0.01, heartbeat=0.05) as link:
        assert link.wait_synced(3)
    assert len(calls) == 3 and link.stats.failures == 2


@pytest.mark.parametrize("reply", ["HELLO micropython 1.22", "HELLO pibg-pico 1.0 leds=many"])
def test_a_device_that_is_no_pibg_pico_is_told_to_be_flashed(reply: str) -> None:
    from pibg.hw.link import DeviceCommandError, DeviceInfo

    with pytest.raises(DeviceCommandError, match=r"hardware/pico/flash\.sh"):
        DeviceInfo.parse(reply)
