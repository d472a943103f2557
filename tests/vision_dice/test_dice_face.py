"""The top face's outline (pibg.vision.dice_face) and the cocked-die decision built on it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from pibg.vision.dice import LAYOUTS, draw_die
from pibg.vision.dice_config import DiceConfig
from pibg.vision.dice_face import top_face

Image = npt.NDArray[Any]
Shared = Callable[..., Path]

EDGE = 36
CFG = DiceConfig()


def _face(img: Image, value: int, angle: float) -> tuple[float, float, float]:
    """top_face around the die's centre, the pips placed as draw_die places them."""
    c = (img.shape[1] - 1) / 2.0, (img.shape[0] - 1) / 2.0
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pips = tuple((float(p[0] + c[0]), float(p[1] + c[1]))
                 for p in np.asarray(LAYOUTS[value]) * 0.28 * EDGE @ rot.T)
    shape = top_face(img, c, angle, EDGE, pips, 0.1 * EDGE,
                     angles=tuple(angle + d for d in (-6.0, -3.0, 0.0, 3.0, 6.0)))
    return shape.half_u / EDGE, shape.half_v / EDGE, shape.aspect


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 20.0, 37.0])
@pytest.mark.parametrize("style", [((235, 235, 235), (20, 20, 20)),
                                   ((25, 25, 25), (240, 240, 240))])
def test_flat_face_is_a_square_of_the_die_edge(value: int, angle: float,
                                               style: tuple[Any, Any]) -> None:
    face, pip = style
    img = draw_die(value, size=EDGE, angle=angle, face=face, pip=pip, margin=0.5)
    u, v, aspect = _face(img, value, angle)
    assert 0.44 <= u <= 0.56 and 0.44 <= v <= 0.56
    assert aspect <= CFG.top_face_aspect_max


@pytest.mark.parametrize("value", [2, 4, 6])
def test_side_face_beside_a_flat_face_does_not_widen_it(value: int) -> None:
    """A flat die seen off the camera's axis shows a side face on one end: the nearer edge
    of each axis is still the top face's own."""
    img = draw_die(value, size=EDGE, margin=0.5)
    c = img.shape[0] // 2
    e = EDGE // 2
    side = np.array([[c - e, c + e], [c + e, c + e], [c + e + 4, c + e + 13],
                     [c - e + 4, c + e + 13]])
    cv2.fillConvexPoly(img, side.astype(np.int32), (150, 150, 150))
    u, v, aspect = _face(img, value, 0.0)
    assert aspect <= CFG.top_face_aspect_max
    assert max(u, v) <= 0.56


@pytest.mark.parametrize("value", [1, 2, 3, 5])
def test_foreshortened_face_is_not_square(value: int) -> None:
    """A leaning die's top face, squashed along the lean (here to cos 40 degrees)."""
    img = draw_die(value, size=EDGE, margin=0.5)
    h, w = img.shape[:2]
    squashed = cv2.resize(img, (w, round(h * np.cos(np.radians(40.0)))),
                          interpolation=cv2.INTER_AREA)
    pad = (h - squashed.shape[0]) // 2
    img = cv2.copyMakeBorder(squashed, pad, h - squashed.shape[0] - pad, 0, 0,
                             cv2.BORDER_REPLICATE)
    # the pips as seen (squashed too)
    c = (w - 1) / 2.0, (h - 1) / 2.0
    k = np.cos(np.radians(40.0))
    pips = tuple((float(c[0] + x * 0.28 * EDGE), float(c[1] + y * 0.28 * EDGE * k))
                 for x, y in LAYOUTS[value])
    shape = top_face(img, c, 0.0, EDGE, pips, 0.08 * EDGE)
    assert shape.aspect > CFG.top_face_aspect_max


# --- the shared renders (skipped where absent) ---------------------------------------------------


def test_opening_roll_of_the_rendered_game_is_read_flat(shared: Shared) -> None:
    """renders/game frame 1: the opening roll 6-4, black glossy dice on the tournament board
    (whose sides show pips in perspective), read through the whole vision stage."""
    from pibg.vision.pipeline import Vision

    frames = shared("renders", "game", "frames")
    start = frames / "m023g1_000.jpg"
    corners = json.loads(start.with_suffix(".json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(cv2.imread(str(start)), np.asarray(corners, np.float64))
    dice = vision.observe(cv2.imread(str(frames / "m023g1_001.jpg"))).dice
    assert sorted((d.value, d.flat) for d in dice) == [(4, True), (6, True)]
