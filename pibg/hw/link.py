"""Host side of the serial link to the Pico that drives the LED strip and the display.

Three layers, each testable alone:

* :class:`SerialTransport` — bytes in and out of a pyserial port (a device path, a
  ``/dev/serial/by-id/...`` link or a URL such as ``loop://``); failures become
  :class:`~pibg.exc.LinkDownError`. :class:`pibg.hw.mock.MockTransport` is the scripted stand-in.
* :class:`Link` — framing and stop-and-wait: one command, wait for the reply with the same
  sequence number, resend on timeout (3 retries of 300 ms), then ``LinkDownError``. Device events
  (``0 EVT BOOT``) seen while waiting are recorded.
* :class:`PicoLink` — a thread that owns the port and pushes the *latest desired state*
  (a mailbox: callers never wait for the device), sends a heartbeat, reconnects with back-off
  after an unplug, and re-sends everything after a reconnect or a device reboot.

The wire format and the device side live in :mod:`pibg.hw.pico_protocol`.

>>> from pibg.hw.mock import MockTransport
>>> mock = MockTransport()
>>> mock.expect("HELLO 1", ["OK HELLO pibg-pico 1.0 leds=28 rows=4 maxbri=64"])
>>> Link(mock).hello().leds
28
>>> mock.assert_done()
"""

from __future__ import annotations

import contextlib
import glob
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from pibg.exc import HardwareError, LinkDownError
from pibg.hw import pico_protocol as proto

log = logging.getLogger(__name__)

#: Where udev puts stable names for the Pico; the MicroPython USB descriptor starts with this.
BY_ID_GLOB = "/dev/serial/by-id/usb-MicroPython*"
FALLBACK_GLOB = "/dev/ttyACM*"
MAX_SEQ = 9999


class Transport(Protocol):
    """What :class:`Link` needs from a port."""

    def write(self, data: bytes) -> None: ...

    def readline(self, timeout: float) -> bytes:
        """One line including ``\\n``, or ``b""`` if none arrived within ``timeout`` seconds."""
        ...

    def close(self) -> None: ...


class DeviceCommandError(HardwareError, ValueError):
    """The device answered ``ERR``: the command was understood as wrong, resending won't help."""


def resolve_port(port: str) -> str:
    """The device path for ``port``; ``auto`` picks the Pico's by-id link, then ``/dev/ttyACM*``.

    :raises LinkDownError: ``auto`` and nothing is plugged in.
    """
    if port != "auto":
        return port
    for pattern in (BY_ID_GLOB, FALLBACK_GLOB):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    raise LinkDownError(
        f"no Pico found ({BY_ID_GLOB} or {FALLBACK_GLOB}): plug it in, or set [serial] port"
    )


class SerialTransport:
    """A pyserial port as a :class:`Transport`. Opens exclusively so a second pibg fails loudly.

    :raises LinkDownError: the port cannot be opened.
    """

    def __init__(self, url: str, baud: int = 115200, *, exclusive: bool = True) -> None:
        import serial  # local: keeps ``import pibg.hw.link`` cheap

        self.url = url
        self._serial_exc = serial.SerialException
        self._buf = bytearray()
        try:
            kwargs = {"exclusive": True} if exclusive and "://" not in url else {}
            self._ser = serial.serial_for_url(url, baudrate=baud, timeout=0.1, **kwargs)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkDownError(f"cannot open serial port {url}: {exc}") from exc
        self._closed = False

    def write(self, data: bytes) -> None:
        try:
            self._ser.write(data)
            self._ser.flush()
        except (self._serial_exc, OSError) as exc:
            raise LinkDownError(f"serial port {self.url} failed while writing: {exc}") from exc

    def readline(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[: nl + 1])
                del self._buf[: nl + 1]
                return line
            if len(self._buf) > 4 * proto.MAX_LINE:  # a stream without newlines: drop it
                self._buf.clear()
            remaining = deadline - time.monotonic()
            try:
                waiting = self._ser.in_waiting
                if remaining <= 0 and not waiting:
                    return b""
                self._ser.timeout = max(0.0, remaining)
                chunk = self._ser.read(max(1, waiting))
            except (self._serial_exc, OSError, TypeError) as exc:
                raise LinkDownError(f"serial port {self.url} failed while reading: {exc}") from exc
            if not chunk and remaining <= 0:
                return b""
            self._buf += chunk

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(self._serial_exc, OSError):
            self._ser.close()


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What the device said in answer to ``HELLO``."""

    firmware: str
    leds: int
    rows: int
    max_brightness: int

    @classmethod
    def parse(cls, reply: str) -> DeviceInfo:
        """From ``HELLO pibg-pico 1.0 leds=28 rows=4 maxbri=64``.

        :raises DeviceCommandError: not a pibg-pico answer.
        """
        words = reply.split()
        if len(words) < 3 or words[:2] != ["HELLO", "pibg-pico"]:
            raise DeviceCommandError(f"not a pibg Pico: HELLO answered {reply!r}: flash the "
                                     "pibg firmware with hardware/pico/flash.sh")
        kv = dict(w.split("=", 1) for w in words[3:] if "=" in w)
        try:
            return cls(
                words[2],
                int(kv.get("leds", 28)),
                int(kv.get("rows", 4)),
                int(kv.get("maxbri", 255)),
            )
        except ValueError:
            raise DeviceCommandError(f"malformed HELLO answer {reply!r}: flash the pibg "
                                     "firmware again with hardware/pico/flash.sh") from None


class Link:
    """Stop-and-wait commands over a :class:`Transport`.

    :param on_event: called with the text after ``EVT`` for each device event (``"BOOT 1.0"``).
    """

    def __init__(
        self,
        transport: Transport,
        *,
        timeout: float = 0.3,
        retries: int = 3,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.transport = transport
        self.timeout = timeout
        self.retries = retries
        self.on_event = on_event
        self._seq = 0
        #: Set when the device announced a (re)boot; the owner clears it after re-sending state.
        self.boot_seen = False

    def _next_seq(self) -> int:
        self._seq = self._seq % MAX_SEQ + 1
        return self._seq

    def request(self, cmd: str, args: str = "") -> str:
        """Send one command and return the text after ``OK``.

        :raises DeviceCommandError: the device answered ``ERR``.
        :raises LinkDownError: no valid answer after the retries, or the port failed.
        """
        seq = self._next_seq()
        frame = proto.encode(seq, cmd, args)
        for _attempt in range(self.retries + 1):
            self.transport.write(frame)
            deadline = time.monotonic() + self.timeout
            while (remaining := deadline - time.monotonic()) > 0:
                reply = self._receive(remaining)
                if reply is None or reply[0] != seq:
                    continue
                _, status, rest = reply
                if status == "OK":
                    return rest
                if status == "ERR":
                    raise DeviceCommandError(f"device rejected {cmd}: {rest}")
        raise LinkDownError(
            f"no answer to {cmd} after {self.retries + 1} tries of {self.timeout:g} s"
        )

    def poll(self, timeout: float = 0.0) -> None:
        """Read and dispatch any pending device events (replies nobody waits for are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            self._receive(max(0.0, deadline - time.monotonic()))
            if time.monotonic() >= deadline:
                return

    def _receive(self, timeout: float) -> tuple[int, str, str] | None:
        line = self.transport.readline(timeout)
        if not line:
            return None
        frame = proto.decode(line)
        if frame is None:
            log.debug("ignoring line from device: %r", line[:80])
            return None
        if frame[0] == 0 and frame[1] == "EVT":
            if frame[2].startswith("BOOT"):
                self.boot_seen = True
            if self.on_event is not None:
                self.on_event(frame[2])
            return None
        return frame

    def hello(self) -> DeviceInfo:
        """Greet the device. :raises LinkDownError, DeviceCommandError:"""
        return DeviceInfo.parse(self.request("HELLO", str(proto.PROTO)))


# --- the background link --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PicoState:
    """Everything the Pico should show. Each field maps to one idempotent command."""

    frame: str = "000000" * proto.N_LEDS
    blink: str = "0"
    blink_ms: int = 400
    anim: str = "none"
    brightness: int = 48
    text: tuple[str, ...] = ("",) * proto.ROWS

    def commands(self, sent: PicoState | None) -> list[tuple[str, str, str]]:
        """``(part, CMD, args)`` for each part that differs from ``sent`` (all if ``None``)."""
        out: list[tuple[str, str, str]] = []
        if sent is None or sent.brightness != self.brightness:
            out.append(("brightness", "BRI", str(self.brightness)))
        if sent is None or sent.frame != self.frame:
            out.append(("frame", "FRAME", self.frame))
        if sent is None or (sent.blink, sent.blink_ms) != (self.blink, self.blink_ms):
            out.append(("blink", "BLINK", f"{self.blink} {self.blink_ms}"))
        if sent is None or sent.anim != self.anim:
            out.append(("anim", "ANIM", self.anim))
        for row, line in enumerate(self.text):
            if sent is None or row >= len(sent.text) or sent.text[row] != line:
                out.append((f"text{row}", "TXT", f"{row} {line}".rstrip()))
        return out


@dataclass
class _Stats:
    connects: int = 0
    commands: int = 0
    failures: int = 0
    last_error: str = ""
    errors: list[str] = field(default_factory=list)


class PicoLink:
    """Keeps the Pico showing :attr:`desired`, whatever happens to the cable.

    ``update(...)``/``submit(state)`` only store the new state and wake the thread, so the main
    loop never waits on the device. The thread connects (``port`` re-resolved each time, so a
    replugged Pico at a new ``/dev/ttyACM*`` is found), says ``HELLO``, pushes the whole state,
    then only the parts that change, with a ``PING`` every ``heartbeat`` seconds so both sides
    notice a dead link. After an unplug it retries with back-off (``backoff`` doubling up to
    ``max_backoff``), and after a reconnect or ``EVT BOOT`` it re-sends everything.

    :param transport_factory: opens a :class:`Transport` for a port path; defaults to
        :class:`SerialTransport`. Tests pass mocks here.
    :param on_status: called (from the link thread) when the link comes up or goes down.
    :param on_event: device events other than BOOT, e.g. ``"BTN 2 DOWN"``.
    """

    def __init__(
        self,
        port: str = "auto",
        baud: int = 115200,
        *,
        brightness: int = 48,
        transport_factory: Callable[[str], Transport] | None = None,
        on_status: Callable[[str], None] | None = None,
        on_event: Callable[[str], None] | None = None,
        heartbeat: float = 1.0,
        backoff: float = 0.1,
        max_backoff: float = 2.0,
        timeout: float = 0.3,
        retries: int = 3,
    ) -> None:
        self.port = port
        self.baud = baud
        self._factory = transport_factory or (lambda path: SerialTransport(path, baud))
        self.on_status = on_status
        self.on_event = on_event
        self.heartbeat = heartbeat
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.retries = retries
        self.stats = _Stats()
        self.device: DeviceInfo | None = None
        self.status: str = "starting"
        self._lock = threading.Lock()
        self._desired = PicoState(brightness=brightness)
        self._sent: PicoState | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._synced = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    # -- caller side (never blocks on the device) --

    @property
    def desired(self) -> PicoState:
        with self._lock:
            return self._desired

    @property
    def connected(self) -> bool:
        return self.device is not None

    def submit(self, state: PicoState) -> None:
        with self._lock:
            self._desired = state
        self._wake.set()

    def update(self, **parts: object) -> None:
        """Replace some fields of the desired state: ``link.update(frame=..., text=...)``."""
        with self._lock:
            self._desired = replace(self._desired, **parts)  # type: ignore[arg-type]
        self._wake.set()

    def wait_synced(self, timeout: float) -> bool:
        """Block until the device shows the desired state (for tests and ``pibg doctor``)."""
        deadline = time.monotonic() + timeout
        with self._synced:
            while not (self.device is not None and self._sent == self._desired):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._synced.wait(remaining)
            return True

    def start(self) -> PicoLink:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pibg-pico-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread and release the port; safe to call twice."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> PicoLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the thread --

    def _set_status(self, status: str) -> None:
        if status == self.status:
            return
        self.status = status
        log.info("pico link: %s", status)
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:  # a status display must not kill the link
                log.exception("on_status callback failed")

    def _run(self) -> None:
        delay = self.backoff
        link: Link | None = None
        while not self._stop.is_set():
            if link is None:
                try:
                    link = self._connect()
                    delay = self.backoff
                except Exception as exc:  # the link thread must survive anything
                    if not isinstance(exc, HardwareError):
                        log.warning("pico link: unexpected error: %s", exc, exc_info=True)
                    self._note_failure(exc)
                    self._set_status(f"down: {exc} (retry in {delay:.1f} s)")
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.max_backoff)
                    continue
            try:
                self._serve(link)
            except Exception as exc:  # reconnect rather than die
                if not isinstance(exc, LinkDownError):
                    log.warning("pico link: unexpected error: %s", exc, exc_info=True)
                self._note_failure(exc)
                self._set_status(f"down: {exc}")
                link.transport.close()
                link = None
                with self._lock:
                    self.device = None
                    self._sent = None
        if link is not None:
            link.transport.close()
        with self._lock:
            self.device = None
        self._set_status("closed")

    def _note_failure(self, exc: Exception) -> None:
        self.stats.failures += 1
        self.stats.last_error = str(exc)

    def _connect(self) -> Link:
        path = resolve_port(self.port)
        transport = self._factory(path)
        link = Link(transport, timeout=self.timeout, retries=self.retries, on_event=self._event)
        try:
            info = link.hello()
        except Exception:
            transport.close()
            raise
        link.boot_seen = False
        with self._lock:
            self.device = info
            self._sent = None
        self.stats.connects += 1
        self._set_status(f"connected to {path} (firmware {info.firmware})")
        return link

    def _event(self, text: str) -> None:
        if self.on_event is not None and not text.startswith("BOOT"):
            try:
                self.on_event(text)
            except Exception:
                log.exception("on_event callback failed")

    def _serve(self, link: Link) -> None:
        """Push changes until idle for ``heartbeat`` seconds, then ping once."""
        last_io = time.monotonic()
        while not self._stop.is_set():
            if link.boot_seen:
                link.boot_seen = False
                log.info("pico rebooted: re-sending the whole state")
                with self._lock:
                    self._sent = None
            with self._lock:
                desired, sent = self._desired, self._sent
            todo = desired.commands(sent)
            if todo:
                self._push(link, desired, todo)
                last_io = time.monotonic()
                continue
            self._wake.wait(0.05)
            self._wake.clear()
            link.poll(0.0)
            if time.monotonic() - last_io >= self.heartbeat:
                link.request("PING")
                last_io = time.monotonic()

    def _push(self, link: Link, desired: PicoState, todo: list[tuple[str, str, str]]) -> None:
        base = self._sent or PicoState(
            frame="", blink="", anim="", brightness=-1, text=("\0",) * len(desired.text)
        )
        for part, cmd, args in todo:
            try:
                link.request(cmd, args)
                self.stats.commands += 1
            except DeviceCommandError as exc:  # sending it again would not help: note and move on
                self.stats.errors.append(str(exc))
                log.warning("%s", exc)
            if part.startswith("text"):
                row = int(part[4:])
                text = list(base.text)
                text[row] = desired.text[row]
                base = replace(base, text=tuple(text))
            elif part == "blink":
                base = replace(base, blink=desired.blink, blink_ms=desired.blink_ms)
            else:
                base = replace(base, **{part: getattr(desired, part)})
            if link.boot_seen:
                return  # the device lost everything mid-way: start again from scratch
        with self._synced:
            self._sent = base
            self._synced.notify_all()


__all__ = [
    "DeviceCommandError",
    "DeviceInfo",
    "Link",
    "PicoLink",
    "PicoState",
    "SerialTransport",
    "Transport",
    "resolve_port",
]
