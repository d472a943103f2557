"""Dice statistics: the special functions against known values, the counts, the report."""

from __future__ import annotations

import math

import pytest

from pibg.events import OpeningRoll, Rolled
from pibg.moves import Dice
from pibg.position import Color
from pibg.stats import (
    chi2_cdf,
    chi2_isf,
    chi2_sf,
    dice_stats,
    gammainc_lower,
    gammainc_upper,
    ncx2_sf,
    rolls_to_detect,
)

# (x, df, upper tail) from standard chi-square tables / scipy.stats.chi2.sf
CHI2_TABLE = [
    (3.841459, 1, 0.05),
    (6.634897, 1, 0.01),
    (11.070498, 5, 0.05),
    (15.086272, 5, 0.01),
    (20.515006, 5, 0.001),
    (1.145476, 5, 0.95),
    (18.307038, 10, 0.05),
    (31.410433, 20, 0.05),
    (4.0, 2, math.exp(-2.0)),  # df 2 is exponential: sf = exp(-x/2)
]


@pytest.mark.parametrize(("x", "df", "p"), CHI2_TABLE)
def test_chi2_sf_known_values(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-5)
    assert chi2_cdf(x, df) == pytest.approx(1 - p, rel=1e-5, abs=1e-12)


def test_incomplete_gamma_identities() -> None:
    for x in (0.1, 0.5, 1.0, 2.5, 7.0, 30.0):
        assert gammainc_lower(1.0, x) == pytest.approx(1 - math.exp(-x), rel=1e-12)
        # P(1/2, x) = erf(sqrt(x))
        assert gammainc_lower(0.5, x) == pytest.approx(math.erf(math.sqrt(x)), rel=1e-10)
        for a in (0.5, 1.0, 2.5, 10.0):
            assert gammainc_lower(a, x) + gammainc_upper(a, x) == pytest.approx(1.0, abs=1e-12)
    # Q(a, x) for integer a is a Poisson tail: Q(3, 2) = e^-2 (1 + 2 + 2)
    assert gammainc_upper(3.0, 2.0) == pytest.approx(math.exp(-2) * 5, rel=1e-12)
    assert gammainc_lower(2.0, 0.0) == 0.0 and gammainc_upper(2.0, 0.0) == 1.0
    assert chi2_sf(200.0, 5) < 1e-40
    with pytest.raises(ValueError):
        gammainc_lower(0.0, 1.0)


def test_critical_value_and_power() -> None:
    assert chi2_isf(0.05, 5) == pytest.approx(11.0705, abs=1e-4)
    assert ncx2_sf(11.0705, 5, 0.0) == pytest.approx(0.05, rel=1e-4)
    # noncentrality 12.83 gives 80 % power at 5 % with 5 df (Cohen's tables)
    assert ncx2_sf(chi2_isf(0.05, 5), 5, 12.83) == pytest.approx(0.80, abs=0.005)
    assert 780 <= rolls_to_detect() <= 820
    assert rolls_to_detect(0.25) < rolls_to_detect(0.2) < rolls_to_detect(0.18)
    with pytest.raises(ValueError):
        rolls_to_detect(1 / 6)


def test_counts_and_fair_dice() -> None:
    events = [Rolled(Color.WHITE, Dice(a, b)) for a in range(1, 7) for b in range(1, 7)] * 10
    events += [OpeningRoll(6, 1), OpeningRoll(3, 3)]
    st = dice_stats(events)
    assert st.rolls == 360 and st.opening_dice == 4
    assert st.faces == (121, 120, 122, 120, 120, 121)
    assert st.doubles == 60 and st.doubles_rate == pytest.approx(1 / 6)
    assert st.p_value > 0.99 and st.doubles_p_value() == pytest.approx(1.0)
    assert st.by_player[Color.BLACK] == (1, 0, 1, 0, 0, 0)
    text = st.report()
    assert "no evidence the dice are unfair" in text and "802 rolls" in text


def test_loaded_die_is_detected() -> None:
    events = [Rolled(Color.WHITE, Dice(6, (k % 6) + 1)) for k in range(600)]
    st = dice_stats(events)
    assert st.p_value < 1e-10
    assert "check the dice" in st.report()


def test_no_rolls() -> None:
    st = dice_stats([])
    assert st.dice == 0 and st.p_value == 1.0
    assert "no dice recorded" in st.report()
