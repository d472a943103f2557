"""Keep the camera coming back: :class:`RetryingSource` reopens a lost camera with back-off.

A ribbon cable that works loose or a USB camera that resets must not end a match. The wrapper
closes the failed source, then tries to build and open a new one after 0.5 s, 1 s, 2 s ...
(capped), telling ``on_status`` what is going on. ``read(timeout)`` never blocks much longer
than ``timeout``: while the camera is down it raises
:class:`~pibg.exc.CameraUnavailableError` at the deadline so the main loop can keep serving
buttons and the display (and stop feeding the systemd watchdog if it stays down for long).
A finite source's :class:`~pibg.camera.base.EndOfFrames` is passed through, not retried.

Clock and sleep are injected, so tests run without waiting.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self, TypeVar

from pibg.camera.base import EndOfFrames, Frame, FrameSource
from pibg.exc import CameraUnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")


class RetryingSource:
    """A :class:`FrameSource` that rebuilds its inner source after failures.

    :param make: builds a new, unopened inner source.
    :param on_status: called with a one-line state whenever the camera goes down or comes back.
    """

    def __init__(
        self,
        make: Callable[[], FrameSource],
        *,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        on_status: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._make = make
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.on_status = on_status
        self._clock = clock
        self._sleep = sleep
        self._inner: FrameSource | None = None
        self._opened = False
        self._delay = backoff
        self._next_attempt = 0.0
        self.failures = 0
        self.reopens = 0
        self.last_error: str = ""
        self.status = "closed"

    @property
    def is_down(self) -> bool:
        return self._opened and self._inner is None

    def open(self) -> None:
        """Open the camera; a failure is reported and retried on the next read, not raised."""
        if self._opened:
            return
        self._opened = True
        self._next_attempt = self._clock()
        with contextlib.suppress(CameraUnavailableError):
            self._ensure(self._clock())

    def read(self, timeout: float = 2.0) -> Frame:
        return self._call(lambda src: src.read(timeout), timeout)

    def read_lores(self) -> Frame | None:
        return self._call(lambda src: src.read_lores(), 2.0)

    def close(self) -> None:
        self._opened = False
        inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()
        self._set_status("closed")

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- internals --

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            if self.on_status is not None:
                try:
                    self.on_status(status)
                except Exception:
                    log.exception("camera status callback failed")

    def _call(self, fn: Callable[[FrameSource], T], timeout: float) -> T:
        if not self._opened:
            raise CameraUnavailableError("camera is not open (call open() first)")
        deadline = self._clock() + timeout
        while True:
            inner = self._ensure(deadline)
            try:
                return fn(inner)
            except EndOfFrames:
                raise
            except CameraUnavailableError as exc:
                self._lost(exc)
                if self._clock() >= deadline:
                    raise

    def _ensure(self, deadline: float) -> FrameSource:
        while self._inner is None:
            now = self._clock()
            if self._next_attempt > now:
                if self._next_attempt > deadline:
                    self._sleep(max(0.0, deadline - now))
                    raise CameraUnavailableError(
                        f"camera unavailable ({self.last_error}); "
                        f"retrying in {self._next_attempt - self._clock():.1f} s"
                    )
                self._sleep(self._next_attempt - now)
            try:
                source = self._make()
                source.open()
            except CameraUnavailableError as exc:
                self._failed(exc)
                if self._clock() >= deadline:
                    raise
                continue
            if self.failures:
                self.reopens += 1
            self._inner = source
            self._delay = self.backoff
            self._set_status("camera ok")
        return self._inner

    def _lost(self, exc: CameraUnavailableError) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            try:
                inner.close()
            except Exception:
                log.exception("closing the lost camera failed")
        self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        self.failures += 1
        self.last_error = str(exc)
        self._next_attempt = self._clock() + self._delay
        self._set_status(f"camera lost: {exc}; retrying every {self._delay:.1f} s")
        log.warning("camera lost (%s); next try in %.1f s", exc, self._delay)
        self._delay = min(self._delay * 2, self.max_backoff)
