"""Render the display lines of :class:`~pibg.effects.Effects` on the 128x64 SSD1306.

The OLED hangs off the Pico's I2C, so :class:`PicoDisplay` only turns the lines into the
``TXT`` rows of the desired device state (4 rows of 21 characters, printable ASCII) and hands
them to the :class:`~pibg.hw.link.PicoLink` mailbox; it never waits on the device.
:class:`ConsoleDisplay` shows the same rows on a terminal for laptop runs.

>>> display_rows(("ILLEGAL MOVE", "13/7 needs a 6 — ½"))
('ILLEGAL MOVE', '13/7 needs a 6 - ?', '', '')
"""

from __future__ import annotations

import sys
from typing import Protocol, TextIO

from pibg.effects import DISPLAY_LINES, DISPLAY_WIDTH, Effects
from pibg.hw import pico_protocol as proto
from pibg.hw.link import PicoLink

_REPLACEMENTS = {"✓": "+", "✗": "x", "×": "x", "–": "-", "—": "-", "’": "'", "…": "..."}


class Display(Protocol):
    def show(self, effects: Effects) -> None: ...

    def close(self) -> None: ...


def display_rows(
    lines: tuple[str, ...] | list[str], rows: int = DISPLAY_LINES, width: int = DISPLAY_WIDTH
) -> tuple[str, ...]:
    """Exactly ``rows`` lines of at most ``width`` printable ASCII characters.

    A few common typographic characters get ASCII stand-ins; anything else becomes ``?``.
    """
    out = []
    for line in list(lines)[:rows]:
        text = "".join(_REPLACEMENTS.get(ch, ch) for ch in line)
        out.append(proto.printable(text, width).rstrip())
    out += [""] * (rows - len(out))
    return tuple(out)


class PicoDisplay:
    """The OLED on the Pico, fed through a running :class:`PicoLink`."""

    def __init__(self, link: PicoLink) -> None:
        self.link = link

    def show(self, effects: Effects) -> None:
        self.link.update(text=display_rows(effects.display))

    def close(self) -> None:
        """The display does not own the link; nothing to release."""


class ConsoleDisplay:
    """Writes the rows to a stream (stdout by default) whenever they change."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self._last: tuple[str, ...] | None = None

    def show(self, effects: Effects) -> None:
        rows = display_rows(effects.display)
        if rows != self._last:
            self._last = rows
            border = "+" + "-" * DISPLAY_WIDTH + "+"
            body = "\n".join(f"|{r:<{DISPLAY_WIDTH}}|" for r in rows)
            print(f"{border}\n{body}\n{border}", file=self.stream, flush=True)

    def close(self) -> None:
        self._last = None
