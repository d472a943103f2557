"""A face read with a pip too few is read again on its pips' grid (``_completed``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from pibg.vision.dice_config import DEFAULT_CONFIG, _Fit
from pibg.vision.dice_read import _completed, draw_die, read_die

STEP = 10.0
CENTRE = (40.0, 40.0)


def _cell(i: int, j: int, angle: float = 0.0) -> tuple[float, float]:
    a = math.radians(angle)
    return (CENTRE[0] + STEP * (i * math.cos(a) - j * math.sin(a)),
            CENTRE[1] + STEP * (i * math.sin(a) + j * math.cos(a)))


def _map(spots: list[tuple[float, float]], level: float = 60.0) -> npt.NDArray[np.float32]:
    """A colour-distance map: the face 0, each spot a pip-sized bump."""
    yy, xx = np.mgrid[0:80, 0:80].astype(np.float32)
    out = np.zeros((80, 80), np.float32)
    for x, y in spots:
        out += level * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * 2.5**2))
    return out


def _fit(value: int, cells: list[tuple[int, int]], angle: float = 0.0) -> _Fit:
    return _Fit(value, 0.05, CENTRE, STEP, angle,
                pips=tuple(_cell(i, j, angle) for i, j in cells))


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_washed_middle_pip_makes_a_two_a_three(angle: float) -> None:
    two = _fit(2, [(-1, -1), (1, 1)], angle)
    faint_middle = _map([_cell(-1, -1, angle), _cell(1, 1, angle)]) \
        + _map([_cell(0, 0, angle)], level=30.0)
    assert _completed(2, two, faint_middle, DEFAULT_CONFIG) == 3


def test_two_washed_corners_make_a_two_a_four() -> None:
    two = _fit(2, [(-1, -1), (1, 1)])
    dist = _map([_cell(-1, -1), _cell(1, 1)]) + _map([_cell(1, -1), _cell(-1, 1)], level=35.0)
    assert _completed(2, two, dist, DEFAULT_CONFIG) == 4


def test_a_plain_middle_leaves_a_two() -> None:
    two = _fit(2, [(-1, -1), (1, 1)])
    assert _completed(2, two, _map([_cell(-1, -1), _cell(1, 1)]), DEFAULT_CONFIG) == 2


@pytest.mark.parametrize("level", [15.0, 40.0])
def test_a_streak_of_light_across_the_face_adds_no_pip(level: float) -> None:
    """Light across the middle lights the middle and the plain cells beside it alike: no
    pattern holding the middle has those cells plain."""
    two = _fit(2, [(-1, -1), (1, 1)])
    streak = [(CENTRE[0] + t, CENTRE[1]) for t in np.linspace(-14.0, 14.0, 15)]
    dist = _map([_cell(-1, -1), _cell(1, 1)]) + _map(streak, level=level)
    assert _completed(2, two, dist, DEFAULT_CONFIG) == 2


def test_a_faint_spot_is_no_pip() -> None:
    four = _fit(4, [(-1, -1), (1, -1), (-1, 1), (1, 1)])
    dist = _map([_cell(i, j) for i in (-1, 1) for j in (-1, 1)]) \
        + _map([_cell(0, 0)], level=8.0)
    assert _completed(4, four, dist, DEFAULT_CONFIG) == 4


@pytest.mark.parametrize("value", [1, 6])
def test_a_one_and_a_six_are_left_alone(value: int) -> None:
    fit = _fit(value, [(0, 0)] if value == 1 else [(-1, -1)])
    dist = _map([_cell(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)])
    assert _completed(value, fit, dist, DEFAULT_CONFIG) == value
    assert _completed(3, None, dist, DEFAULT_CONFIG) == 3


def test_read_die_finds_a_middle_pip_under_a_glare_streak() -> None:
    """A red three with white pips, its middle pip run into by a white streak of glare: the
    pips found one by one make a two."""
    die = draw_die(3, size=48, angle=0.0, face=(40, 30, 190), pip=(235, 235, 235),
                   background=(200, 200, 200))
    h = die.shape[0]
    c = h // 2
    streak = die.copy()
    cv2.line(streak, (c - 3, c + 1), (c + 14, c - 13), (235, 235, 235), 3, cv2.LINE_AA)
    assert read_die(die)[0] == 3
    assert read_die(streak)[0] == 3
