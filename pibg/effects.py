"""What the referee asks the outside world to show: LED colours, display lines, sounds.

Pure values. The referee returns an :class:`Effects` after every event; the hardware layer
(``pibg.hw``) renders it on the LED strip and display, the web page shows it too. Each
``Effects`` is the *whole* desired state, so rendering it twice is harmless (idempotent).

LED layout (28 LEDs, one strip): index 0..23 = points 1..24 numbered from White's side,
24 = bar, 25 = White's tray, 26 = Black's tray, 27 = status LED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

N_LEDS = 28
LED_BAR = 24
LED_TRAY_WHITE = 25
LED_TRAY_BLACK = 26
LED_STATUS = 27
DISPLAY_LINES = 4
DISPLAY_WIDTH = 21  # characters per line on a 128x64 SSD1306 with the 6x8 font

RGB = tuple[int, int, int]
OFF: RGB = (0, 0, 0)
RED: RGB = (255, 0, 0)
GREEN: RGB = (0, 255, 0)
BLUE: RGB = (0, 0, 255)
AMBER: RGB = (255, 140, 0)
WHITE_LIGHT: RGB = (255, 255, 255)
PURPLE: RGB = (160, 0, 255)


class Sound(StrEnum):
    NONE = "none"
    ILLEGAL = "illegal"
    ASK = "ask"
    GAME_WON = "game_won"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    MATCH_WON = "match_won"


class Animation(StrEnum):
    NONE = "none"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    MATCH = "match"


@dataclass(frozen=True, slots=True)
class Effects:
    """The whole state the LEDs and the display should show now."""

    leds: tuple[RGB, ...] = field(default_factory=lambda: (OFF,) * N_LEDS)
    blink: frozenset[int] = frozenset()
    display: tuple[str, ...] = ()
    sound: Sound = Sound.NONE
    animation: Animation = Animation.NONE

    def __post_init__(self) -> None:
        if len(self.leds) != N_LEDS:
            raise ValueError(f"Effects needs {N_LEDS} LED colours, got {len(self.leds)}")
        if any(not 0 <= i < N_LEDS for i in self.blink):
            raise ValueError(f"blink index out of 0..{N_LEDS - 1}: {sorted(self.blink)}")

    @classmethod
    def build(
        cls,
        lit: dict[int, RGB] | None = None,
        display: tuple[str, ...] | list[str] = (),
        blink: frozenset[int] | set[int] = frozenset(),
        sound: Sound = Sound.NONE,
        animation: Animation = Animation.NONE,
    ) -> Effects:
        leds = [OFF] * N_LEDS
        for i, colour in (lit or {}).items():
            leds[i] = colour
        lines = tuple(line[:DISPLAY_WIDTH] for line in display)[:DISPLAY_LINES]
        return cls(tuple(leds), frozenset(blink), lines, sound, animation)


def point_led(point_from_white: int) -> int:
    """LED index of a point numbered 1..24 from White's side (25 = bar for either side)."""
    if point_from_white == 25 or point_from_white == 0:
        return LED_BAR
    if not 1 <= point_from_white <= 24:
        raise ValueError(f"point {point_from_white} is not 1..24")
    return point_from_white - 1
