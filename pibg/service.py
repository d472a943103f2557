"""Talking to systemd: ``sd_notify`` without dependencies, and the watchdog heartbeat.

The unit (``systemd/pibg.service``) is ``Type=notify`` with ``WatchdogSec=30``. The main loop
owns a :class:`ServiceNotifier` and calls :meth:`ServiceNotifier.frame` for every camera frame
that arrived and :meth:`ServiceNotifier.tick` once per loop turn:

* ``READY=1`` is sent once, when the first frame arrives (so ``systemctl start`` waits for a
  working camera, within ``TimeoutStartSec``);
* ``WATCHDOG=1`` is sent every ``WATCHDOG_USEC / 2`` but only while frames keep arriving: a
  camera that has been silent for ``stall_after`` seconds stops the pings, and systemd
  restarts the service (``Restart=on-failure`` covers watchdog timeouts);
* ``STATUS=...`` shows a line in ``systemctl status``.

Outside systemd (no ``NOTIFY_SOCKET``) everything is a no-op, so the same loop runs on a laptop.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)


def sd_notify(state: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``state`` (``"READY=1"``, ``"WATCHDOG=1\\nSTATUS=..."``) to systemd.

    :returns: ``False`` when not running under systemd; never raises for a vanished socket.
    """
    env = os.environ if environ is None else environ
    addr = env.get("NOTIFY_SOCKET")
    if not addr:
        return False
    if addr.startswith("@"):
        addr = "\0" + addr[1:]  # abstract namespace socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(addr)
            sock.sendall(state.encode())
    except OSError as exc:
        log.warning("sd_notify(%r) failed: %s", state.split("\n")[0], exc)
        return False
    return True


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between watchdog pings (half of ``WATCHDOG_USEC``), or ``None`` if disabled.

    ``WATCHDOG_PID``, when set, must be this process (systemd's rule for forked children).
    """
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2e6 if value > 0 else None


class ServiceNotifier:
    """READY once frames arrive, watchdog pings only while they keep arriving.

    :param stall_after: seconds without a frame after which pings stop.
    :param clock: monotonic seconds (tests inject a fake).
    :param send: the notify function (tests inject a recorder).
    """

    def __init__(
        self,
        *,
        stall_after: float = 10.0,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        send: Callable[[str], bool] | None = None,
    ) -> None:
        env = dict(os.environ if environ is None else environ)
        self.interval = watchdog_interval(env)
        self.stall_after = stall_after
        self._clock = clock
        self._send = send or (lambda state: sd_notify(state, env))
        self.ready = False
        self._last_frame: float | None = None
        self._last_ping = float("-inf")
        self._status = ""

    def frame(self) -> None:
        """A camera frame arrived: the first one makes the service READY."""
        self._last_frame = self._clock()
        if not self.ready:
            self.ready = True
            self._send("READY=1")
        self.tick()

    def tick(self) -> None:
        """Ping the watchdog if one is due and the camera is alive."""
        if self.interval is None or not self.ready or self._last_frame is None:
            return
        now = self._clock()
        if now - self._last_frame > self.stall_after:
            return  # let systemd's watchdog restart us: the camera is gone
        if now - self._last_ping >= self.interval:
            self._last_ping = now
            self._send("WATCHDOG=1")

    def status(self, text: str) -> None:
        """A one-line state for ``systemctl status`` (sent only when it changes)."""
        line = " ".join(text.split())
        if line != self._status:
            self._status = line
            self._send(f"STATUS={line}")

    def stopping(self) -> None:
        self._send("STOPPING=1")
