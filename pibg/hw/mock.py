"""Stand-ins for the rig's hardware, shipped in the package (as gpiozero ships ``MockFactory``).

* :class:`MockTransport` — a scripted serial port for :class:`pibg.hw.link.Link`, after
  python-chess's ``engine.MockTransport``: ``expect("PING")`` ... ``assert_done()``.
* :class:`RecordingLedStrip` / :class:`RecordingDisplay` — record what the referee asked to
  show; ``assert_frames([...])`` after gpiozero's ``MockPin.assert_states``.
* :class:`FakePico` — a thread on the master side of a pty pair running the real device core
  (:class:`pibg.hw.pico_protocol.Device`), reachable at a stable by-id style path; it can drop
  replies, reboot, and be unplugged and plugged in again.

Laptop demo: ``with FakePico(tmpdir) as pico: PicoLink(pico.port).start()``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from pibg.effects import N_LEDS, RGB, Effects
from pibg.exc import LinkDownError
from pibg.hw import pico_protocol as proto

# --- a scripted transport -------------------------------------------------------------------


class MockTransport:
    """A :class:`~pibg.hw.link.Transport` that checks each command against a script.

    ``expect(command, replies)``: the next frame the host writes must carry ``command``
    (``"CMD args"`` without sequence number and CRC; shell wildcards allowed, so
    ``"FRAME *"`` matches any frame). Each reply (``"OK"``, ``"ERR 2 bad"``) is then sent back
    with the host's sequence number; an empty list sends nothing (a lost answer).
    ``event("BOOT 1.0")`` queues an unsolicited ``0 EVT ...`` line; ``unplug()`` makes every
    further call raise :class:`~pibg.exc.LinkDownError`.

    Mismatches are collected (the link may run in a thread) and reported by :meth:`assert_done`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[tuple[str, list[str]]] = deque()
        self._outbox: deque[bytes] = deque()
        self.written: list[str] = []
        self.errors: list[str] = []
        self.unplugged = False
        self.closed = False

    def expect(self, command: str, replies: Sequence[str] = ("OK",)) -> None:
        with self._lock:
            self._script.append((command, list(replies)))

    def event(self, text: str) -> None:
        with self._lock:
            self._outbox.append(proto.encode(0, "EVT", text))

    def send_raw(self, line: bytes) -> None:
        """Queue any bytes for the host to read (garbage, a bad CRC, a stale reply)."""
        with self._lock:
            self._outbox.append(line)

    def unplug(self) -> None:
        self.unplugged = True

    def write(self, data: bytes) -> None:
        if self.unplugged:
            raise LinkDownError("mock transport unplugged")
        frame = proto.decode(data)
        with self._lock:
            if frame is None:
                self.errors.append(f"host wrote an invalid frame {data!r}")
                return
            seq, cmd, args = frame
            text = f"{cmd} {args}".rstrip()
            self.written.append(text)
            if not self._script:
                self.errors.append(f"unexpected command {text!r}")
                return
            want, replies = self._script.popleft()
            if not fnmatch.fnmatchcase(text, want):
                self.errors.append(f"expected {want!r}, got {text!r}")
                return
            for reply in replies:
                self._outbox.append(proto.encode(seq, reply))

    def readline(self, timeout: float) -> bytes:
        if self.unplugged:
            raise LinkDownError("mock transport unplugged")
        with self._lock:
            if self._outbox:
                return self._outbox.popleft()
        time.sleep(min(timeout, 0.001))
        return b""

    def close(self) -> None:
        self.closed = True

    def assert_done(self) -> None:
        """:raises AssertionError: a mismatch happened or expectations are left."""
        with self._lock:
            problems = list(self.errors)
            if self._script:
                problems.append(f"expected but not sent: {[c for c, _ in self._script]}")
        if problems:
            raise AssertionError("; ".join(problems))


# --- recording sinks ------------------------------------------------------------------------

FrameSpec = Sequence[RGB] | Mapping[int, RGB]


def _as_frame(spec: FrameSpec) -> tuple[RGB, ...]:
    if isinstance(spec, Mapping):
        leds: list[RGB] = [(0, 0, 0)] * N_LEDS
        for i, colour in spec.items():
            leds[i] = colour
        return tuple(leds)
    return tuple(spec)


class RecordingLedStrip:
    """An LED strip that remembers every distinct frame it was asked to show.

    ``assert_frames([{3: RED}, {}])`` checks the history; a mapping lists only lit LEDs.
    Consecutive identical frames are recorded once (rendering is idempotent).
    """

    def __init__(self) -> None:
        self.frames: list[tuple[RGB, ...]] = []
        self.blinks: list[frozenset[int]] = []
        self.closed = False

    def show(self, effects: Effects) -> None:
        if not self.frames or self.frames[-1] != effects.leds or self.blinks[-1] != effects.blink:
            self.frames.append(effects.leds)
            self.blinks.append(effects.blink)

    def assert_frames(self, expected: Sequence[FrameSpec]) -> None:
        want = [_as_frame(f) for f in expected]
        if self.frames != want:
            raise AssertionError(f"LED frames {_lit(self.frames)} != expected {_lit(want)}")

    def close(self) -> None:
        self.closed = True


def _lit(frames: Sequence[tuple[RGB, ...]]) -> list[dict[int, RGB]]:
    return [{i: c for i, c in enumerate(f) if c != (0, 0, 0)} for f in frames]


class RecordingDisplay:
    """A display that remembers every distinct screen (tuple of lines) it showed."""

    def __init__(self) -> None:
        self.screens: list[tuple[str, ...]] = []
        self.closed = False

    def show(self, effects: Effects) -> None:
        if not self.screens or self.screens[-1] != effects.display:
            self.screens.append(effects.display)

    def assert_screens(self, expected: Sequence[Sequence[str]]) -> None:
        want = [tuple(s) for s in expected]
        if self.screens != want:
            raise AssertionError(f"screens {self.screens} != expected {want}")

    def close(self) -> None:
        self.closed = True


# --- a fake Pico on a pty -------------------------------------------------------------------

BY_ID_NAME = "usb-MicroPython_Board_in_FS_mode_e6614c311b000000-if00"


class FakePico:
    """The Pico firmware's protocol core on the master end of a pty.

    The host opens :attr:`port`, a symlink in ``directory`` named like the udev by-id link,
    which follows the device across :meth:`unplug`/:meth:`replug` (as ``/dev/serial/by-id``
    does; the pty behind it changes, as ``/dev/ttyACM*`` may). Unplugging closes the pty, so the
    host's pyserial raises the same error as for a yanked USB device.

    :param drop_replies: how many replies to swallow (the host must retry).
    """

    def __init__(
        self, directory: str | os.PathLike[str], *, drop_replies: int = 0, boot_on_plug: bool = True
    ) -> None:
        self.directory = Path(directory)
        self.port = str(self.directory / BY_ID_NAME)
        self.device = proto.Device()
        self.drop_replies = drop_replies
        self.boot_on_plug = boot_on_plug
        self.received: list[bytes] = []
        self.plugs = 0
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._closed = False

    # -- lifetime --

    def start(self) -> FakePico:
        self.replug()
        return self

    def __enter__(self) -> FakePico:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.unplug()

    def unplug(self) -> None:
        """Pull the cable: the pty disappears mid-whatever, and so does the by-id link."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def replug(self, *, fresh: bool = True) -> None:
        """Plug in again. ``fresh`` resets the device (a real replug power-cycles the Pico)."""
        if self._master is not None:
            self.unplug()
        if fresh:
            self.device = proto.Device()
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        self._master, self._slave = master, slave
        self.directory.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        os.symlink(os.ttyname(slave), self.port)
        self.plugs += 1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-pico", daemon=True)
        self._thread.start()
        if self.boot_on_plug:
            self.send(self.device.boot_event())

    def reboot(self) -> None:
        """Reset the MCU without unplugging: state is lost and ``EVT BOOT`` is sent."""
        with self._lock:
            self.device = proto.Device()
        self.send(self.device.boot_event())

    # -- what it shows --

    @property
    def connected(self) -> bool:
        return self._master is not None

    def now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def leds(self) -> tuple[RGB, ...]:
        """LED colours as sent (before brightness and blinking)."""
        d = self.device.leds
        return tuple((d[3 * i], d[3 * i + 1], d[3 * i + 2]) for i in range(self.device.n_leds))

    def text(self) -> tuple[str, ...]:
        return tuple(self.device.text)

    def send(self, data: bytes) -> None:
        """Bytes from the device to the host (events, garbage)."""
        master = self._master
        if master is not None:
            with contextlib.suppress(OSError):
                os.write(master, data)

    # -- the device loop --

    def _run(self) -> None:
        master = self._master
        assert master is not None
        stop = self._stop
        buf = b""
        while not stop.is_set():
            try:
                ready, _, _ = select.select([master], [], [], 0.02)
                if not ready:
                    continue
                chunk = os.read(master, 1024)
            except OSError:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._handle(line + b"\n")

    def _handle(self, line: bytes) -> None:
        with self._lock:
            self.received.append(line)
            reply = self.device.handle(line, self.now_ms())
            if reply is None:
                return
            if self.drop_replies > 0:
                self.drop_replies -= 1
                return
        self.send(reply)
