"""Everything that shows the referee's :class:`~pibg.effects.Effects`, behind one ``show()``.

For the main loop::

    with open_pico_output(config.serial, on_status=print) as out:
        ...
        out.show(effects)          # returns at once; the link thread does the I/O

``show`` never raises and never waits for a device: a sink that fails is logged (once per
kind of failure) and the others still get the effects. Sinks: :class:`~pibg.hw.leds.PicoLedStrip`,
:class:`~pibg.hw.display.PicoDisplay`, :class:`~pibg.hw.display.ConsoleDisplay`, the recorders
in :mod:`pibg.hw.mock`, or anything with ``show(effects)``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol, Self

from pibg.config import SerialConfig
from pibg.effects import Effects
from pibg.hw.display import PicoDisplay
from pibg.hw.leds import PicoLedStrip
from pibg.hw.link import PicoLink, Transport

log = logging.getLogger(__name__)


class Sink(Protocol):
    def show(self, effects: Effects) -> None: ...


class EffectsOutput:
    """Fans one ``Effects`` out to several sinks; closes what it owns.

    :param owned: objects with ``close()`` released by :meth:`close` (e.g. the link).
    """

    def __init__(
        self, *sinks: Sink, owned: tuple[Any, ...] = (), link: PicoLink | None = None
    ) -> None:
        self.sinks = list(sinks)
        #: The Pico link behind the sinks, if any (its ``status``, ``stats``, ``wait_synced``).
        self.link = link
        self._owned = list(owned)
        self._failing: set[tuple[int, str]] = set()
        self.last: Effects | None = None
        self.closed = False

    def show(self, effects: Effects) -> None:
        self.last = effects
        for k, sink in enumerate(self.sinks):
            try:
                sink.show(effects)
            except Exception as exc:  # a display fault must never stop the referee
                key = (k, type(exc).__name__)
                if key not in self._failing:
                    self._failing.add(key)
                    log.warning("output %r failed: %s", sink, exc, exc_info=True)

    def close(self) -> None:
        """Close owned objects (in reverse order); safe to call twice."""
        if self.closed:
            return
        self.closed = True
        for obj in reversed(self._owned):
            try:
                obj.close()
            except Exception:
                log.exception("closing %r failed", obj)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_pico_output(
    config: SerialConfig,
    *,
    on_status: Callable[[str], None] | None = None,
    on_event: Callable[[str], None] | None = None,
    transport_factory: Callable[[str], Transport] | None = None,
    extra: tuple[Sink, ...] = (),
) -> EffectsOutput:
    """Start a :class:`PicoLink` for ``[serial]`` and return an output feeding its strip and
    display (plus ``extra`` sinks). Nothing here waits for the Pico: it may be plugged in later.
    """
    link = PicoLink(
        config.port,
        config.baud,
        brightness=config.brightness,
        transport_factory=transport_factory,
        on_status=on_status,
        on_event=on_event,
    ).start()
    return EffectsOutput(PicoLedStrip(link), PicoDisplay(link), *extra, owned=(link,), link=link)
