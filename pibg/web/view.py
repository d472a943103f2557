""":class:`LiveView`: what the web page shows, held between the main loop and the server.

The main loop calls :meth:`LiveView.update` after every referee step (with the camera frame
and its reading when it has them); server threads read :meth:`LiveView.state_json` and wait
for changes with :meth:`LiveView.wait`. ``update`` does almost nothing on the caller's thread
(it stores references and wakes waiters): the JSON, the SVG and the JPEG are built lazily, at
most once per change, by whichever server thread asks first.

The frame passed to ``update`` is kept by reference: do not write into it afterwards (pass a
copy if the camera reuses its buffer).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pibg.events import Event
from pibg.observation import BoardObservation
from pibg.referee import RefereeState, Step
from pibg.web.snapshot import snapshot
from pibg.web.svg import board_svg

#: Draws the reading on a frame: (frame, observation) -> a new BGR image (see overlay.py).
Overlay = Callable[[np.ndarray[Any, Any], BoardObservation | None], np.ndarray[Any, Any]]

SAY_LINES = 30


@dataclass(frozen=True)
class Versions:
    """Change counters: ``state`` when the referee's view changed, ``frame`` on a new frame."""

    state: int
    frame: int


def _state_key(step: Step) -> tuple[object, ...]:
    st: RefereeState = step.state
    return (st.events, st.mode, st.message, st.dice, st.verdict, st.last_points, st.match,
            step.effects.display)


class LiveView:
    """Thread-safe holder of the latest referee step, camera frame and reading.

    >>> from pibg import referee
    >>> from pibg.events import MatchSettings
    >>> view = LiveView()
    >>> view.update(referee.new_match(MatchSettings(length=5)))
    >>> view.snapshot()["mode"], view.snapshot()["score"]["length"]
    ('setup', 5)
    """

    def __init__(self, *, jpeg_quality: int = 70, frame_width: int = 800,
                 clock: Callable[[], float] = time.time) -> None:
        self._cond = threading.Condition()
        self._step: Step | None = None
        self._key: tuple[object, ...] | None = None
        self._frame: np.ndarray[Any, Any] | None = None
        self._obs: BoardObservation | None = None
        self._overlay: Overlay | None = None
        self._state_v = 0
        self._frame_v = 0
        self._closed = False
        self._wakes = 0
        self._say: deque[dict[str, Any]] = deque(maxlen=SAY_LINES)
        self._cache_json: tuple[int, str] | None = None
        self._cache_jpeg: tuple[tuple[int, bool], bytes] | None = None
        self._jpeg_quality = jpeg_quality
        self._frame_width = frame_width
        self._clock = clock
        self._updated_at = 0.0
        self._alerts: tuple[str, ...] = ()

    # --- the main loop's side ---------------------------------------------------------------

    def update(self, step: Step, frame: np.ndarray[Any, Any] | None = None,
               obs: BoardObservation | None = None) -> None:
        """Show ``step`` (and ``frame``/``obs`` when given); wakes the page's listeners.

        Cheap: only a state that differs from the last one (or new lines said) counts as a
        change; passing the same ``step`` again with a new frame only updates the frame.
        """
        key = _state_key(step)
        now = self._clock()
        with self._cond:
            fresh = step is not self._step  # the same step shown again (a new frame only)
            self._step = step
            changed = key != self._key or (fresh and bool(step.say))
            for line in step.say if fresh else ():
                self._say.append({"t": now, "text": line})
            if changed:
                self._key = key
                self._state_v += 1
                self._updated_at = now
            if frame is not None:
                self._frame = frame
                self._obs = obs
                self._frame_v += 1
            elif obs is not None:
                self._obs = obs
            if changed or frame is not None:
                self._cond.notify_all()

    def set_alerts(self, alerts: tuple[str, ...]) -> None:
        """Standing problems to show above the display ("DISK FULL", "JOURNAL REPAIRED")."""
        with self._cond:
            if alerts == self._alerts:
                return
            self._alerts = alerts
            self._state_v += 1
            self._cond.notify_all()

    def set_overlay(self, overlay: Overlay | None) -> None:
        """How to draw the detected regions on the frame (see :mod:`pibg.web.overlay`)."""
        with self._cond:
            self._overlay = overlay
            self._cache_jpeg = None
            if self._frame is not None:  # no frame yet (no camera): nothing to draw again
                self._frame_v += 1
                self._cond.notify_all()

    # --- the server's side ------------------------------------------------------------------

    @property
    def versions(self) -> Versions:
        with self._cond:
            return Versions(self._state_v, self._frame_v)

    def wait(self, seen: Versions, timeout: float) -> Versions:
        """Block until the versions differ from ``seen`` (or ``timeout`` s, or :meth:`wake`)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            wakes = self._wakes
            while ((self._state_v, self._frame_v) == (seen.state, seen.frame)
                   and not self._closed and self._wakes == wakes):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return Versions(self._state_v, self._frame_v)

    def wake(self) -> None:
        """Wake every waiter (a server closing)."""
        with self._cond:
            self._wakes += 1
            self._cond.notify_all()

    def events(self) -> tuple[Event, ...]:
        """The match events the page shows now (the referee's, in order); none before the
        first step."""
        with self._cond:
            return () if self._step is None else self._step.state.events

    def snapshot(self) -> dict[str, Any]:
        """The page's data as a dict (see :func:`pibg.web.snapshot.snapshot`)."""
        result: dict[str, Any] = json.loads(self.state_json())
        return result

    def state_json(self) -> str:
        """The snapshot as JSON, with the board's SVG, the recent announcements and versions."""
        with self._cond:
            v = self._state_v
            if self._cache_json is not None and self._cache_json[0] == v:
                return self._cache_json[1]
            step, say, frame_v = self._step, list(self._say), self._frame_v
            obs, has_frame, at = self._obs, self._frame is not None, self._updated_at
            alerts = self._alerts
        if step is None:
            snap: dict[str, Any] = {"mode": "waiting", "board": None, "svg": ""}
        else:
            snap = snapshot(step.state, step.effects)
            snap["svg"] = board_svg(snap)
        snap["say"] = say
        snap["alerts"] = list(alerts)
        snap["version"] = v
        snap["updated_at"] = at
        snap["camera"] = {"frame": frame_v if has_frame else None,
                          "readable": None if obs is None else obs.readable,
                          "reason": None if obs is None else obs.reason}
        text = json.dumps(snap, separators=(",", ":"))
        with self._cond:
            if self._state_v == v:
                self._cache_json = (v, text)
        return text

    def frame_jpeg(self, overlay: bool = True) -> bytes | None:
        """The latest frame as JPEG (shrunk to ``frame_width``), the regions drawn when
        ``overlay``; ``None`` before the first frame."""
        import cv2

        with self._cond:
            key = (self._frame_v, overlay)
            if self._cache_jpeg is not None and self._cache_jpeg[0] == key:
                return self._cache_jpeg[1]
            frame, obs, draw = self._frame, self._obs, self._overlay
        if frame is None:
            return None
        img = frame
        if overlay and draw is not None:
            img = draw(frame, obs)
        elif overlay and obs is not None and not obs.readable:
            img = frame.copy()
            cv2.putText(img, f"unreadable: {obs.reason}"[:60], (12, 36),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 255), 2, cv2.LINE_AA)
        h, w = img.shape[:2]
        if w > self._frame_width:
            scale = self._frame_width / w
            img = cv2.resize(img, (self._frame_width, max(1, round(h * scale))),
                             interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self._jpeg_quality])
        if not ok:
            return None
        data = buf.tobytes()
        with self._cond:
            self._cache_jpeg = (key, data)
        return data

    def latest_frame(self) -> np.ndarray[Any, Any] | None:
        """The latest full-size frame (for the calibration page)."""
        with self._cond:
            return self._frame

    def close(self) -> None:
        """Release every waiter for good (the page's streams end)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
