"""The whole rig for the main loop: camera, buttons, LEDs/display and systemd, from a Config.

One object to construct in ``app.py``; each part can be replaced for tests and laptop runs::

    with Rig(config) as rig:                       # opens everything; nothing blocks on the Pico
        while True:
            frame = rig.read_frame(timeout=1.0)    # None while the camera is down (retrying)
            for event in rig.button_events():      # ButtonEvent values, already debounced
                ...                                # -> referee
            rig.show(effects)                      # -> LED strip + OLED, returns at once
            rig.tick()                             # systemd watchdog (only while frames come)

``READY=1`` goes to systemd with the first frame. Camera and Pico status changes are logged,
kept in :attr:`Rig.status`, and shown in ``systemctl status``.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from pibg.camera import EndOfFrames, Frame, FrameSource, RetryingSource, make_source
from pibg.config import Config
from pibg.effects import Effects
from pibg.exc import CameraUnavailableError
from pibg.hw.buttons import ButtonEvent, ButtonPanel, PicoButtons
from pibg.hw.display import ConsoleDisplay
from pibg.hw.link import Transport
from pibg.hw.output import EffectsOutput, Sink, open_pico_output
from pibg.service import ServiceNotifier

log = logging.getLogger(__name__)


class Rig:
    """Camera + buttons + Pico output + service notifications.

    :param camera: a ready-made source instead of ``[camera]`` (it is still retried).
    :param camera_kwargs: passed to :func:`pibg.camera.make_source` (``scenes=``, ``render=``).
    :param pin_factory: gpiozero pin factory for the buttons (``MockFactory()`` off-Pi).
    :param buttons: ``False`` runs without GPIO buttons (a laptop).
    :param pico: ``False`` runs without the Pico (no serial port is opened).
    :param console: also print the display lines on stdout.
    :param extra_sinks: more outputs for the effects (the web page, a recorder ...).
    :param on_status: called with ``(part, text)`` whenever camera or Pico status changes.
    :param pico_buttons: names of buttons wired to the Pico (firmware ``BUTTON_PINS`` order),
        reported alongside the GPIO ones.
    """

    def __init__(
        self,
        config: Config,
        *,
        camera: FrameSource | Callable[[], FrameSource] | None = None,
        camera_kwargs: dict[str, Any] | None = None,
        pin_factory: Any = None,
        buttons: bool = True,
        pico: bool = True,
        console: bool = False,
        extra_sinks: tuple[Sink, ...] = (),
        transport_factory: Callable[[str], Transport] | None = None,
        notifier: ServiceNotifier | None = None,
        on_status: Callable[[str, str], None] | None = None,
        pico_buttons: tuple[str, ...] | None = None,
    ) -> None:
        self.config = config
        self.pico_buttons = (
            PicoButtons(
                pico_buttons,
                hold_time=config.buttons.hold_time,
                bounce_time=config.buttons.bounce_time,
            )
            if pico_buttons
            else None
        )
        self._camera_arg = camera
        self._camera_kwargs = camera_kwargs or {}
        self._pin_factory = pin_factory
        self._want_buttons = buttons
        self._want_pico = pico
        self._console = console
        self._extra = extra_sinks
        self._transport_factory = transport_factory
        self.notifier = notifier or ServiceNotifier()
        self.on_status = on_status
        self.status: dict[str, str] = {}
        self._status_lock = threading.Lock()
        self.camera: RetryingSource | None = None
        self.buttons: ButtonPanel | None = None
        self.output: EffectsOutput = EffectsOutput()
        self._closed = False

    # -- lifetime --

    def open(self) -> Self:
        """Open all parts. The camera and the Pico are retried in the background if absent.

        :raises HardwareError: the button pins cannot be claimed.
        :raises ConfigError: the camera configuration is impossible.
        """
        try:
            self.camera = RetryingSource(
                self._camera_maker(), on_status=lambda s: self._set_status("camera", s)
            )
            self.camera.open()
            if self._want_buttons:
                self.buttons = ButtonPanel.from_config(
                    self.config.buttons, pin_factory=self._pin_factory
                )
            sinks: tuple[Sink, ...] = self._extra
            if self._console:
                sinks = (ConsoleDisplay(), *sinks)
            if self._want_pico:
                self.output = open_pico_output(
                    self.config.serial,
                    on_status=lambda s: self._set_status("pico", s),
                    on_event=self.pico_buttons.handle if self.pico_buttons else None,
                    transport_factory=self._transport_factory,
                    extra=sinks,
                )
            else:
                self.output = EffectsOutput(*sinks)
        except BaseException:
            self.close()
            raise
        return self

    def _camera_maker(self) -> Callable[[], FrameSource]:
        given = self._camera_arg
        if given is None:
            make_source(self.config.camera, **self._camera_kwargs)  # config errors now
            return lambda: make_source(self.config.camera, **self._camera_kwargs)
        if isinstance(given, FrameSource):
            source = given
            return lambda: source
        return given

    def close(self) -> None:
        """Release everything (buttons, Pico link, camera); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.notifier.stopping()
        for part in (self.buttons, self.output, self.camera):
            if part is not None:
                try:
                    part.close()
                except Exception:
                    log.exception("closing %r failed", part)

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the loop's calls --

    def read_frame(self, timeout: float = 1.0) -> Frame | None:
        """The next frame, or ``None`` while the camera is down (it is being reopened).

        :raises EndOfFrames: a replayed source is exhausted (the run is over).
        """
        if self.camera is None:
            raise CameraUnavailableError("rig is not open")
        try:
            frame = self.camera.read(timeout)
        except EndOfFrames:
            raise
        except CameraUnavailableError:
            self.notifier.tick()
            return None
        self.notifier.frame()
        return frame

    def read_lores(self) -> Frame | None:
        """A small grey frame for change detection, or ``None`` while the camera is down."""
        if self.camera is None:
            return None
        try:
            return self.camera.read_lores()
        except EndOfFrames:
            raise
        except CameraUnavailableError:
            return None

    def button_events(self) -> list[ButtonEvent]:
        """All button presses since the last call (after debouncing), oldest first."""
        events: list[ButtonEvent] = []
        for source in (self.buttons, self.pico_buttons):
            if source is None:
                continue
            source.poll()
            while True:
                try:
                    events.append(source.events.get_nowait())
                except queue.Empty:
                    break
        events.sort(key=lambda e: e.at)
        return events

    def show(self, effects: Effects) -> None:
        """Render on the LEDs, the display and any extra sinks; never blocks, never raises."""
        self.output.show(effects)

    def tick(self) -> None:
        """Once per loop turn: feeds the systemd watchdog while frames keep arriving."""
        self.notifier.tick()

    def _set_status(self, part: str, text: str) -> None:
        with self._status_lock:
            self.status[part] = text
            summary = "; ".join(f"{k}: {v}" for k, v in sorted(self.status.items()))
        if not self._closed:  # after STOPPING=1 the parts closing down is no news
            self.notifier.status(summary)
        if self.on_status is not None:
            try:
                self.on_status(part, text)
            except Exception:
                log.exception("rig status callback failed")
