"""What the camera saw: the value types that vision hands to the referee.

Pure and immutable. A region (a point, the bar or a tray for one colour) is read as a small
distribution over counts, so the referee can weigh each legal play's result against what was
seen ("vision proposes, rules dispose").

Counts on points are *signed* and seen from White: + White, - Black; index 0 of
``BoardObservation.points`` is White's 1-point. Bar and tray counts are per colour.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Owner = Literal["center", "white", "black"]


@dataclass(frozen=True, slots=True)
class RegionRead:
    """One region's reading: the likelihood of each count.

    ``likelihoods`` holds ``(count, probability)`` pairs, most likely first; counts not listed
    are taken as having probability ``floor``. For points the counts are signed.
    """

    likelihoods: tuple[tuple[int, float], ...]
    floor: float = 1e-4

    @classmethod
    def certain(cls, count: int) -> RegionRead:
        return cls(((count, 1.0),))

    @classmethod
    def from_mapping(cls, probs: Mapping[int, float], floor: float = 1e-4) -> RegionRead:
        items = sorted(probs.items(), key=lambda kv: (-kv[1], abs(kv[0])))
        return cls(tuple((int(k), float(v)) for k, v in items), floor)

    @property
    def count(self) -> int:
        """The most likely count."""
        return self.likelihoods[0][0] if self.likelihoods else 0

    @property
    def confidence(self) -> float:
        """The probability of the most likely count."""
        return self.likelihoods[0][1] if self.likelihoods else 0.0

    def prob(self, count: int) -> float:
        for k, p in self.likelihoods:
            if k == count:
                return max(p, self.floor)
        return self.floor

    def log_prob(self, count: int) -> float:
        return math.log(self.prob(count))


@dataclass(frozen=True, slots=True)
class DieRead:
    """One die on the playing surface: its value and where it lies in the image."""

    value: int
    x: float
    y: float
    flat: bool = True
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class CubeRead:
    """The doubling cube: its value (1 while centred at the start, its face then showing 64)
    and where it lies."""

    value: int
    owner: Owner
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class BoardObservation:
    """One camera frame, read.

    ``readable`` is False when a hand or arm covers the board or the frame is blurred by motion;
    ``reason`` then says why and the regions must not be trusted.
    """

    points: tuple[RegionRead, ...]
    bar_white: RegionRead = field(default_factory=lambda: RegionRead.certain(0))
    bar_black: RegionRead = field(default_factory=lambda: RegionRead.certain(0))
    off_white: RegionRead = field(default_factory=lambda: RegionRead.certain(0))
    off_black: RegionRead = field(default_factory=lambda: RegionRead.certain(0))
    dice: tuple[DieRead, ...] = ()
    cube: CubeRead | None = None
    readable: bool = True
    reason: str | None = None

    @classmethod
    def unreadable(cls, reason: str) -> BoardObservation:
        return cls(points=tuple(RegionRead.certain(0) for _ in range(24)), readable=False,
                   reason=reason)

    @classmethod
    def exact(
        cls,
        points: tuple[int, ...] | list[int],
        bar: tuple[int, int] = (0, 0),
        off: tuple[int, int] = (0, 0),
        dice: tuple[DieRead, ...] = (),
        cube: CubeRead | None = None,
    ) -> BoardObservation:
        """An observation with certainty everywhere (``bar``/``off`` are (white, black))."""
        if len(points) != 24:
            raise ValueError(f"need 24 signed point counts, got {len(points)}")
        return cls(
            points=tuple(RegionRead.certain(int(c)) for c in points),
            bar_white=RegionRead.certain(bar[0]),
            bar_black=RegionRead.certain(bar[1]),
            off_white=RegionRead.certain(off[0]),
            off_black=RegionRead.certain(off[1]),
            dice=dice,
            cube=cube,
        )

    def signed_points(self) -> tuple[int, ...]:
        return tuple(r.count for r in self.points)

    def flat_dice(self) -> tuple[int, ...] | None:
        """The roll shown, if exactly two dice lie flat and none is cocked; else None."""
        if len(self.dice) != 2 or not all(d.flat for d in self.dice):
            return None
        return (self.dice[0].value, self.dice[1].value)

    def to_json(self) -> dict[str, Any]:
        """The ``pibg read --json`` form."""
        conf = {
            "points": [round(r.confidence, 4) for r in self.points],
            "bar": {"white": round(self.bar_white.confidence, 4),
                    "black": round(self.bar_black.confidence, 4)},
            "off": {"white": round(self.off_white.confidence, 4),
                    "black": round(self.off_black.confidence, 4)},
            "dice": [round(d.confidence, 4) for d in self.dice],
            "cube": None if self.cube is None else round(self.cube.confidence, 4),
        }
        out: dict[str, Any] = {
            "points": list(self.signed_points()),
            "bar": {"white": self.bar_white.count, "black": self.bar_black.count},
            "off": {"white": self.off_white.count, "black": self.off_black.count},
            "dice": [{"value": d.value, "x": round(d.x, 1), "y": round(d.y, 1), "flat": d.flat}
                     for d in self.dice],
            "cube": None if self.cube is None else {"value": self.cube.value,
                                                    "owner": self.cube.owner},
            "readable": self.readable,
            "confidence": conf,
        }
        if self.reason:
            out["reason"] = self.reason
        return out
