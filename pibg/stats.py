"""Dice statistics over the physical rolls a journal recorded, with a test of fairness.

Every die counts: both dice of each ``roll`` event and the one die each player throws in an
``opening_roll`` (ties included: they were thrown too). Rolls later undone still count, since
the dice were really thrown. The test is Pearson's chi-square on the six faces (5 degrees of
freedom); its p-value comes from the regularised incomplete gamma function, in pure Python.

>>> round(chi2_sf(11.0705, 5), 4)
0.05
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pibg.events import Event, OpeningRoll, Reread, Rolled
from pibg.position import Color

FACES = (1, 2, 3, 4, 5, 6)


# --- special functions ------------------------------------------------------------------------


def _gamma_series(a: float, x: float) -> float:
    """P(a, x) by its power series (good for x < a + 1)."""
    term = 1.0 / a
    total = term
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_cfrac(a: float, x: float) -> float:
    """Q(a, x) by Lentz's continued fraction (good for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def gammainc_lower(a: float, x: float) -> float:
    """The regularised lower incomplete gamma function P(a, x).

    >>> round(gammainc_lower(1.0, 2.0), 6) == round(1 - math.exp(-2.0), 6)
    True
    """
    if a <= 0:
        raise ValueError(f"a must be positive, got {a}")
    if x <= 0:
        return 0.0
    if x < a + 1.0:
        return _gamma_series(a, x)
    return 1.0 - _gamma_cfrac(a, x)


def gammainc_upper(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    if a <= 0:
        raise ValueError(f"a must be positive, got {a}")
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _gamma_series(a, x)
    return _gamma_cfrac(a, x)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (the p-value)."""
    return gammainc_upper(df / 2.0, x / 2.0)


def chi2_cdf(x: float, df: int) -> float:
    return gammainc_lower(df / 2.0, x / 2.0)


def chi2_isf(p: float, df: int) -> float:
    """The critical value: the x with ``chi2_sf(x, df) == p`` (bisection)."""
    lo, hi = 0.0, 1.0
    while chi2_sf(hi, df) > p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if chi2_sf(mid, df) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def ncx2_sf(x: float, df: int, nc: float) -> float:
    """P(X >= x) for a noncentral chi-square (a Poisson mixture of central ones)."""
    if nc <= 0:
        return chi2_sf(x, df)
    half = nc / 2.0
    total = 0.0
    # sum over Poisson weights around the mode, both ways, until they vanish
    mode = int(half)
    for direction in (1, -1):
        j = mode if direction == 1 else mode - 1
        while j >= 0:
            w = math.exp(-half + j * math.log(half) - math.lgamma(j + 1)) if half > 0 else 0.0
            total += w * chi2_sf(x, df + 2 * j)
            if w < 1e-17 and abs(j - mode) > 5:
                break
            j += direction
    return min(1.0, total)


def rolls_to_detect(face_probability: float = 0.2, alpha: float = 0.05,
                    power: float = 0.8) -> int:
    """How many two-dice rolls the chi-square test needs to catch a loaded die.

    The load: one face comes up with ``face_probability`` (1/5 instead of 1/6 by default), the
    other five share the rest. Returns the rolls (two dice each) at which the test at level
    ``alpha`` finds it with probability ``power``.
    """
    if not 0 < face_probability < 1 or face_probability == 1 / 6:
        raise ValueError("face_probability must be in (0, 1) and not 1/6")
    other = (1 - face_probability) / 5
    w2 = 6 * ((face_probability - 1 / 6) ** 2 + 5 * (other - 1 / 6) ** 2)
    crit = chi2_isf(alpha, 5)
    lo, hi = 0.0, 1.0
    while ncx2_sf(crit, 5, hi) < power:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if ncx2_sf(crit, 5, mid) < power:
            lo = mid
        else:
            hi = mid
    dice = hi / w2
    return math.ceil(dice / 2)


# --- the statistics -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiceStats:
    """Counts and the fairness test. ``faces[k]`` counts face ``k + 1``."""

    rolls: int
    opening_dice: int
    faces: tuple[int, ...]
    doubles: int
    by_player: dict[Color, tuple[int, ...]]

    @property
    def dice(self) -> int:
        return sum(self.faces)

    @property
    def doubles_rate(self) -> float:
        return self.doubles / self.rolls if self.rolls else 0.0

    @property
    def chi2(self) -> float:
        n = self.dice
        if not n:
            return 0.0
        expected = n / 6
        return sum((c - expected) ** 2 / expected for c in self.faces)

    @property
    def p_value(self) -> float:
        return chi2_sf(self.chi2, 5) if self.dice else 1.0

    def doubles_p_value(self) -> float:
        """Chi-square (1 df) p-value of the doubles count against the fair 1/6."""
        if not self.rolls:
            return 1.0
        exp_d = self.rolls / 6
        exp_n = self.rolls - exp_d
        x = (self.doubles - exp_d) ** 2 / exp_d + (self.rolls - self.doubles - exp_n) ** 2 / exp_n
        return chi2_sf(x, 1)

    def report(self, alpha: float = 0.05) -> str:
        """A plain-text report."""
        n = self.dice
        lines = [f"rolls: {self.rolls} (+ {self.opening_dice} opening-roll dice), "
                 f"dice counted: {n}"]
        if not n:
            lines.append("no dice recorded")
            return "\n".join(lines)
        lines.append("face   count   share  expected")
        for face, count in zip(FACES, self.faces, strict=True):
            lines.append(f"  {face}   {count:6d}  {count / n:6.1%}    {1 / 6:6.1%}")
        for player, counts in sorted(self.by_player.items(), key=lambda kv: kv[0].label):
            faces = zip(FACES, counts, strict=True)
            lines.append(f"{player.label}: " + " ".join(f"{f}:{c}" for f, c in faces))
        if self.rolls:
            lines.append(f"doubles: {self.doubles}/{self.rolls} = {self.doubles_rate:.1%} "
                         f"(fair: 16.7%, p = {self.doubles_p_value():.3f})")
        verdict = ("no evidence the dice are unfair" if self.p_value >= alpha
                   else "the faces are uneven beyond chance at the "
                        f"{alpha:.0%} level: check the dice")
        lines.append(f"chi-square = {self.chi2:.2f} (5 df), p = {self.p_value:.4f}: {verdict}")
        need = rolls_to_detect()
        lines.append(f"to catch a die showing one face 1/5 of the time (fair: 1/6) this test "
                     f"needs about {need} rolls (80% power, 5% level); "
                     f"{'enough recorded' if self.rolls >= need else 'not enough yet'}")
        return "\n".join(lines)


def dice_stats(events: Iterable[Event]) -> DiceStats:
    """Count the dice of every ``roll`` and ``opening_roll`` event."""
    faces = [0] * 6
    players: dict[Color, list[int]] = {}
    rolls = doubles = opening = 0

    def count(player: Color, die: int, n: int = 1) -> None:
        if 1 <= die <= 6:
            faces[die - 1] += n
            players.setdefault(player, [0] * 6)[die - 1] += n

    last: Rolled | None = None
    for ev in events:
        if isinstance(ev, Reread) and last is not None:  # the recorded roll was misread
            doubles -= last.dice.is_double
            count(last.player, last.dice.a, -1)
            count(last.player, last.dice.b, -1)
            ev = last = Rolled(ev.player, ev.dice)
            rolls -= 1
        if isinstance(ev, Rolled):
            last = ev
            rolls += 1
            doubles += ev.dice.is_double
            count(ev.player, ev.dice.a)
            count(ev.player, ev.dice.b)
        elif isinstance(ev, OpeningRoll):
            count(Color.WHITE, ev.white)
            count(Color.BLACK, ev.black)
            opening += 2
    return DiceStats(rolls, opening, tuple(faces), doubles,
                     {k: tuple(v) for k, v in players.items()})
