"""Dice, single checker moves, plays, and gnubg's play notation.

Points in moves are numbered from the mover's side: 1..24, ``BAR`` = 25, ``OFF`` = 0.
Notation follows gnubg's ``FormatMove``: moves sorted by source, a checker's consecutive steps
joined (``13/5``) unless it hits on the way (``13/7*/5``), identical moves counted
(``8/5(2)``), ``bar`` and ``off`` spelt out, ``*`` after a hit.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pibg.exc import InvalidDiceError, InvalidMoveError
from pibg.position import BAR, OFF, Point, Position


@dataclass(frozen=True, slots=True)
class Dice:
    """Two dice as rolled. ``steps`` is what they let a player move (four steps for doubles).

    >>> Dice(6, 6).steps
    (6, 6, 6, 6)
    """

    a: int
    b: int

    def __post_init__(self) -> None:
        for d in (self.a, self.b):
            if not isinstance(d, int) or not 1 <= d <= 6:
                raise InvalidDiceError(f"a die shows 1-6, got {d!r}")

    @classmethod
    def of(cls, dice: Sequence[int] | Dice) -> Dice:
        if isinstance(dice, Dice):
            return dice
        if len(dice) != 2:
            raise InvalidDiceError(f"need two dice, got {list(dice)!r}")
        try:
            a, b = (int(d) for d in dice)
        except (TypeError, ValueError) as exc:
            raise InvalidDiceError(f"dice must be numbers 1-6, got {list(dice)!r}") from exc
        return cls(a, b)

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    @property
    def steps(self) -> tuple[int, ...]:
        return (self.a,) * 4 if self.a == self.b else (self.a, self.b)

    @property
    def high(self) -> int:
        return max(self.a, self.b)

    @property
    def low(self) -> int:
        return min(self.a, self.b)

    def __str__(self) -> str:
        return f"{self.high}{self.low}"


#: the 21 different throws, each once (high die first; 1-1, 2-1, 2-2, 3-1, ...)
ALL_THROWS: tuple[Dice, ...] = tuple(Dice(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1))


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """One checker moving one die's worth (or less, when bearing off): ``src`` to ``dst``."""

    src: Point
    dst: Point

    def __post_init__(self) -> None:
        if not (1 <= self.src <= BAR) or not (OFF <= self.dst <= 24) or self.dst >= self.src:
            raise InvalidMoveError(f"no such move: {_fmt_point(self.src)}/{_fmt_point(self.dst)}")

    def __str__(self) -> str:
        return f"{_fmt_point(self.src)}/{_fmt_point(self.dst)}"


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn's moves and the position they lead to (the mover still on roll).

    ``moves`` are single steps in the order they were played; ``hits`` marks, for each step,
    whether it hit a blot. Two plays with the same ``result`` are the same play.
    """

    moves: tuple[Move, ...]
    hits: tuple[bool, ...]
    result: Position

    def __str__(self) -> str:
        return format_moves(self.moves, self.hits)

    @property
    def points(self) -> tuple[Point, ...]:
        """Every point the play touches, from the mover's side (25 = bar, 0 = off)."""
        return tuple(sorted({p for m in self.moves for p in (m.src, m.dst)}, reverse=True))


def _fmt_point(p: int) -> str:
    if p == BAR:
        return "bar"
    if p == OFF:
        return "off"
    return str(p)


def format_moves(moves: Sequence[Move], hits: Sequence[bool] | None = None) -> str:
    """gnubg notation for single steps ``moves`` (``hits[i]``: step i hit a blot).

    As gnubg's ``FormatMove``: steps sorted by source (highest first), a checker's steps joined
    unless it hits on the way, identical moves counted, ``*`` once on each point hit.

    >>> format_moves([Move(8, 5), Move(6, 5)])
    '8/5 6/5'
    >>> format_moves([Move(13, 7), Move(7, 5)], [True, False])
    '13/7*/5'
    """
    if not moves:
        return ""
    flags = list(hits) if hits is not None else [False] * len(moves)
    hit_points = {m.dst for m, h in zip(moves, flags, strict=True) if h}
    order = sorted(range(len(moves)), key=lambda i: (-moves[i].src, -moves[i].dst))
    chains: list[list[int]] = [[moves[i].src, moves[i].dst] for i in order]
    active = [True] * len(chains)
    for i in range(len(chains)):
        if not active[i]:
            continue
        for j in range(i + 1, len(chains)):
            if active[j] and chains[i][-1] == chains[j][0]:
                if chains[i][-1] in hit_points:
                    chains[i].append(chains[j][-1])
                else:
                    chains[i][-1] = chains[j][-1]
                active[j] = False
    kept = [c for c, a in zip(chains, active, strict=True) if a]
    groups: list[list[int]] = []
    counts: list[int] = []
    for c in kept:
        if c in groups:
            counts[groups.index(c)] += 1
        else:
            groups.append(c)
            counts.append(1)
    marked: set[int] = set()
    parts = []
    for c, n in zip(groups, counts, strict=True):
        text = _fmt_point(c[0])
        for p in c[1:-1]:
            text += f"/{_fmt_point(p)}*"
            marked.add(p)
        text += f"/{_fmt_point(c[-1])}"
        if c[-1] in hit_points and c[-1] not in marked:
            text += "*"
            marked.add(c[-1])
        parts.append(text if n == 1 else f"{text}({n})")
    return " ".join(parts)


_TOKEN = re.compile(r"\s*(bar|off|\d+)(\*?)", re.IGNORECASE)
_PART = re.compile(r"^(?P<chain>(?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)(?:\((?P<n>\d)\))?$",
                   re.IGNORECASE)


def _parse_point(tok: str, text: str) -> int:
    low = tok.lower()
    if low == "bar":
        return BAR
    if low == "off":
        return OFF
    n = int(tok)
    if not 0 <= n <= 25:
        raise InvalidMoveError(f"bad play {text!r}: point {n} is not 0-25")
    return n


def parse_moves(text: str) -> tuple[tuple[int, int], ...]:
    """Parse gnubg notation into ``(src, dst)`` segments, one per written hop.

    ``13/7*/5`` gives ``((13, 7), (7, 5))``; ``8/5(2)`` gives ``((8, 5), (8, 5))``. A hop may
    span several dice (``13/5`` with 4-4); :func:`pibg.rules.resolve` splits it into steps.

    :raises InvalidMoveError: text that is not in this notation.
    """
    segments: list[tuple[int, int]] = []
    body = text.strip()
    if not body:
        return ()
    for part in body.replace(",", " ").split():
        m = _PART.match(part)
        if not m:
            raise InvalidMoveError(
                f"bad play {text!r}: {part!r} is not like '24/18', 'bar/22', '6/off' or '8/5(2)'"
            )
        pts = [_parse_point(t, text) for t, _ in _TOKEN.findall(m.group("chain"))]
        repeat = int(m.group("n") or 1)
        if repeat < 1 or repeat > 4:
            raise InvalidMoveError(f"bad play {text!r}: repeat count must be 1-4")
        hops = []
        for src, dst in itertools.pairwise(pts):
            if src == OFF or dst == BAR or dst >= src:
                raise InvalidMoveError(
                    f"bad play {text!r}: {_fmt_point(src)}/{_fmt_point(dst)} does not move forward"
                )
            hops.append((src, dst))
        segments.extend(hops * repeat)
    if len(segments) > 4:
        raise InvalidMoveError(f"bad play {text!r}: more than four moves")
    return tuple(segments)

