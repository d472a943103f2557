"""Render the referee's :class:`~pibg.effects.Effects` on the LED strip.

The strip has 28 LEDs (24 points, bar, two trays, status; see :mod:`pibg.effects`), driven by
the Pico. :class:`PicoLedStrip` turns an ``Effects`` into the ``FRAME``/``BLINK``/``ANIM``
parts of the desired device state and hands them to a :class:`~pibg.hw.link.PicoLink` mailbox:
``show()`` returns at once whatever the cable does. Brightness is applied by the firmware
(``BRI``, capped at 25 %), so colours here are the full-scale ones the referee chose.

>>> from pibg.effects import Effects, RED
>>> frame_hex(Effects.build({0: RED}).leds)[:12]
'FF0000000000'
>>> blink_mask(frozenset({0, 27}))
'8000001'
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Protocol

from pibg.effects import N_LEDS, RGB, Effects
from pibg.hw.link import PicoLink

log = logging.getLogger(__name__)


class LedStrip(Protocol):
    """Anything that can show the LED part of an ``Effects``."""

    def show(self, effects: Effects) -> None: ...

    def close(self) -> None: ...


def _clamp(v: int) -> int:
    return 0 if v < 0 else 255 if v > 255 else int(v)


def frame_hex(leds: Sequence[RGB]) -> str:
    """``RRGGBB`` per LED, upper-case, as the ``FRAME`` command wants."""
    if len(leds) != N_LEDS:
        raise ValueError(f"a frame needs {N_LEDS} colours, got {len(leds)}")
    return "".join(f"{_clamp(r):02X}{_clamp(g):02X}{_clamp(b):02X}" for r, g, b in leds)


def blink_mask(blink: Iterable[int]) -> str:
    """The blinking LEDs as a hex bit mask (bit i = LED i)."""
    mask = 0
    for i in blink:
        if not 0 <= i < N_LEDS:
            raise ValueError(f"blink index {i} is not 0..{N_LEDS - 1}")
        mask |= 1 << i
    return f"{mask:X}"


class PicoLedStrip:
    """The LED strip on the Pico, fed through a running :class:`PicoLink`.

    :param blink_ms: half-period of blinking LEDs.
    """

    def __init__(self, link: PicoLink, *, blink_ms: int = 400) -> None:
        self.link = link
        self.blink_ms = blink_ms

    def show(self, effects: Effects) -> None:
        self.link.update(
            frame=frame_hex(effects.leds),
            blink=blink_mask(effects.blink),
            blink_ms=self.blink_ms,
            anim=effects.animation.value,
        )

    def off(self) -> None:
        self.show(Effects())

    def close(self) -> None:
        """The strip does not own the link; closing is a no-op kept for symmetry."""
