"""The players' buttons on the Pi's GPIO (gpiozero), turned into :class:`ButtonEvent` values.

Callbacks run on gpiozero's threads, so they do nothing but put events on a
:class:`queue.Queue`; the main loop takes them off (``panel.events.get_nowait()``) and feeds the
referee. Each button connects its BCM pin to GND (internal pull-up: pressed = low).

Meanings (a *long* press is held for ``hold_time``, 1 s by default):

=========  ==========================  ==============================================
button     short press                 long press
=========  ==========================  ==============================================
confirm    ``CONFIRM`` the move         ``RESYNC``: accept the board as it is now
undo       ``UNDO`` / demand correction ``SHOW_LAST``: show the last move again
double     ``DOUBLE``: offer the cube   ``NONE`` (reserved)
take       ``TAKE``                     ``BEAVER`` (money games with beavers on)
drop       ``DROP`` (pass)              ``NONE`` (reserved)
=========  ==========================  ==============================================

A long press is reported once, as soon as it has been held long enough (gpiozero's
``when_held``, or :meth:`ButtonPanel.poll`), and the release that follows reports nothing.

Debouncing is our own, time-injected logic (:class:`Debouncer`): gpiozero's ``bounce_time`` is
not emulated by ``MockPin``, so it could not be tested, and the lgpio and RPi.GPIO backends
treat it differently. After an accepted edge, edges within ``bounce_time`` are ignored;
:meth:`ButtonPanel.poll` reconciles a release that fell inside that window.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType
from typing import Any, Self

from pibg.config import ButtonsConfig
from pibg.exc import HardwareError

log = logging.getLogger(__name__)


class ButtonName(StrEnum):
    CONFIRM = "confirm"
    UNDO = "undo"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"


class Press(StrEnum):
    SHORT = "short"
    LONG = "long"


class Action(StrEnum):
    """What a press asks the referee to do."""

    CONFIRM = "confirm"
    RESYNC = "resync"
    UNDO = "undo"
    SHOW_LAST = "show_last"
    DOUBLE = "double"
    TAKE = "take"
    BEAVER = "beaver"
    DROP = "drop"
    NONE = "none"


#: The documented map from (button, press) to action.
ACTIONS: dict[tuple[ButtonName, Press], Action] = {
    (ButtonName.CONFIRM, Press.SHORT): Action.CONFIRM,
    (ButtonName.CONFIRM, Press.LONG): Action.RESYNC,
    (ButtonName.UNDO, Press.SHORT): Action.UNDO,
    (ButtonName.UNDO, Press.LONG): Action.SHOW_LAST,
    (ButtonName.DOUBLE, Press.SHORT): Action.DOUBLE,
    (ButtonName.DOUBLE, Press.LONG): Action.NONE,
    (ButtonName.TAKE, Press.SHORT): Action.TAKE,
    (ButtonName.TAKE, Press.LONG): Action.BEAVER,
    (ButtonName.DROP, Press.SHORT): Action.DROP,
    (ButtonName.DROP, Press.LONG): Action.NONE,
}


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """One press: which button, short or long, what it means, and when (monotonic seconds)."""

    button: ButtonName
    press: Press
    action: Action
    at: float

    @property
    def long(self) -> bool:
        return self.press is Press.LONG

    @property
    def referee_button(self) -> str:
        """The button name :class:`pibg.referee.Press` expects (a long take is ``beaver``).

        ``referee.Press(ev.at, ev.referee_button, ev.long)``
        """
        return "beaver" if self.action is Action.BEAVER else self.button.value


class Debouncer:
    """Press/release edges of one button in, short and long presses out; time is passed in.

    >>> d = Debouncer(bounce_time=0.05, hold_time=1.0)
    >>> d.edge(True, 0.0), d.edge(False, 0.01), d.edge(True, 0.02)  # contact bounce
    (None, None, None)
    >>> d.edge(False, 0.30)
    <Press.SHORT: 'short'>
    >>> d.edge(True, 1.0), d.held(2.1), d.edge(False, 2.5)
    (None, <Press.LONG: 'long'>, None)
    """

    def __init__(self, bounce_time: float = 0.05, hold_time: float = 1.0) -> None:
        self.bounce_time = bounce_time
        self.hold_time = hold_time
        self.down = False
        self.since = float("-inf")
        self.long_sent = False

    def edge(self, pressed: bool, now: float) -> Press | None:
        """A raw edge; returns the press it completes (on release), if any."""
        if pressed == self.down or now - self.since < self.bounce_time:
            return None
        pressed_at, self.since, self.down = self.since, now, pressed
        if pressed:
            self.long_sent = False
            return None
        if self.long_sent:
            return None
        return Press.LONG if now - pressed_at >= self.hold_time else Press.SHORT

    def held(self, now: float) -> Press | None:
        """``LONG`` once the button has been down ``hold_time`` (call it when in doubt)."""
        if self.down and not self.long_sent and now - self.since >= self.hold_time:
            self.long_sent = True
            return Press.LONG
        return None

    def settle(self, pressed: bool, now: float) -> Press | None:
        """Reconcile with the pin's current level once the bounce window is over."""
        if pressed != self.down and now - self.since >= self.bounce_time:
            return self.edge(pressed, now)
        return self.held(now)


class ButtonPanel:
    """The wired buttons, each a ``gpiozero.Button``, reporting to :attr:`events`.

    :param pins: button name -> BCM pin (``ButtonsConfig.pins()``).
    :param pin_factory: passed to every ``gpiozero.Button`` (``MockFactory()`` in tests).
    :param events: the queue to fill; a new one by default.
    :param clock: monotonic seconds; tests inject a fake.
    :raises HardwareError: a pin cannot be used (no GPIO access, pin busy, no pin factory).
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        *,
        hold_time: float = 1.0,
        bounce_time: float = 0.05,
        pin_factory: Any = None,
        events: queue.Queue[ButtonEvent] | None = None,
        clock: Callable[[], float] = time.monotonic,
        actions: Mapping[tuple[ButtonName, Press], Action] = ACTIONS,
    ) -> None:
        from gpiozero import Button  # local: importing pibg.hw must not pick a pin factory
        from gpiozero.exc import GPIOZeroError

        self.events: queue.Queue[ButtonEvent] = events if events is not None else queue.Queue()
        self.hold_time = hold_time
        self.clock = clock
        self.actions = dict(actions)
        self._lock = threading.Lock()
        self._debounce: dict[ButtonName, Debouncer] = {}
        self.buttons: dict[ButtonName, Any] = {}
        self._closed = False
        try:
            for name, pin in pins.items():
                key = ButtonName(name)
                button = Button(
                    pin,
                    pull_up=True,
                    bounce_time=None,
                    hold_time=hold_time,
                    pin_factory=pin_factory,
                )
                self.buttons[key] = button
                self._debounce[key] = Debouncer(bounce_time, hold_time)
                button.when_pressed = self._callback(key, True)
                button.when_released = self._callback(key, False)
                button.when_held = self._held_callback(key)
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            self.close()
            raise HardwareError(
                f"cannot use GPIO pin {pin} for the {name} button: {exc} "
                "(on the Pi: GPIOZERO_PIN_FACTORY=lgpio, user in group gpio, pin not in use)"
            ) from exc

    @classmethod
    def from_config(cls, config: ButtonsConfig, **kwargs: Any) -> ButtonPanel:
        return cls(
            config.pins(), hold_time=config.hold_time, bounce_time=config.bounce_time, **kwargs
        )

    def _callback(self, key: ButtonName, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            with self._lock:
                press = self._debounce[key].edge(pressed, self.clock())
            self._emit(key, press)

        return on_edge

    def _held_callback(self, key: ButtonName) -> Callable[[], None]:
        def on_held() -> None:
            with self._lock:
                press = self._debounce[key].held(self.clock() + 0.1 * self.hold_time)
            self._emit(key, press)

        return on_held

    def _emit(self, key: ButtonName, press: Press | None) -> None:
        if press is None:
            return
        event = ButtonEvent(key, press, self.actions.get((key, press), Action.NONE), self.clock())
        log.debug("button %s", event)
        self.events.put(event)

    def poll(self) -> None:
        """Catch up on holds and on releases hidden by the bounce window; cheap, call it often."""
        now = self.clock()
        for key, button in list(self.buttons.items()):
            try:
                pressed = bool(button.is_pressed)
            except Exception:  # a closed device: nothing to reconcile
                continue
            with self._lock:
                press = self._debounce[key].settle(pressed, now)
            self._emit(key, press)

    def get(self, timeout: float | None = None) -> ButtonEvent | None:
        """The next event, or ``None`` if none came within ``timeout`` (0 = don't wait)."""
        try:
            if timeout == 0:
                return self.events.get_nowait()
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        """Release the pins; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for button in self.buttons.values():
            button.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class PicoButtons:
    """Buttons wired to the Pico instead of the Pi (``BUTTON_PINS`` in the firmware).

    The firmware reports raw level changes as ``EVT BTN <n> DOWN|UP``; pass :meth:`handle` as
    the link's ``on_event``. Button ``n`` is ``names[n]``; debouncing and long presses are the
    same as for :class:`ButtonPanel` (call :meth:`poll` to report holds while still held).
    """

    def __init__(
        self,
        names: tuple[str, ...] = ("confirm", "undo", "double", "take", "drop"),
        *,
        hold_time: float = 1.0,
        bounce_time: float = 0.05,
        events: queue.Queue[ButtonEvent] | None = None,
        clock: Callable[[], float] = time.monotonic,
        actions: Mapping[tuple[ButtonName, Press], Action] = ACTIONS,
    ) -> None:
        self.names = tuple(ButtonName(n) for n in names)
        self.events: queue.Queue[ButtonEvent] = events if events is not None else queue.Queue()
        self.clock = clock
        self.actions = dict(actions)
        self._lock = threading.Lock()
        self._debounce = {n: Debouncer(bounce_time, hold_time) for n in self.names}

    def handle(self, text: str) -> None:
        """One device event, e.g. ``"BTN 0 DOWN"``; anything else is ignored."""
        words = text.split()
        if len(words) != 3 or words[0] != "BTN" or words[2] not in ("DOWN", "UP"):
            return
        try:
            key = self.names[int(words[1])]
        except (ValueError, IndexError):
            log.debug("ignoring event for an unknown Pico button: %r", text)
            return
        with self._lock:
            press = self._debounce[key].edge(words[2] == "DOWN", self.clock())
        self._emit(key, press)

    def poll(self) -> None:
        now = self.clock()
        for key, deb in self._debounce.items():
            with self._lock:
                press = deb.held(now)
            self._emit(key, press)

    def _emit(self, key: ButtonName, press: Press | None) -> None:
        if press is not None:
            action = self.actions.get((key, press), Action.NONE)
            self.events.put(ButtonEvent(key, press, action, self.clock()))
