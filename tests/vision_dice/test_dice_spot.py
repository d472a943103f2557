"""The dice-finding network (pibg.vision.dice_spot): where on the top-down view dice lie."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pibg.exc import VisionError
from pibg.vision.dice_read import draw_die
from pibg.vision.dice_spot import MODEL, STRIDE, spot_map, spots

GREEN = (40, 110, 60)


def _board(dice: list[tuple[int, int, int]], size: int = 16) -> np.ndarray:
    view = np.full((256, 352, 3), GREEN, np.uint8)
    for value, x, y in dice:
        die = draw_die(value, size=size, angle=20.0, background=GREEN)
        h, w = die.shape[:2]
        view[y - h // 2:y - h // 2 + h, x - w // 2:x - w // 2 + w] = die
    return view


def test_the_network_finds_each_die_at_its_centre_and_nothing_on_the_bare_board() -> None:
    at = [(3, 80, 90), (5, 250, 170)]
    found = spots(_board(at), 0.3)
    assert len(found) == 2
    for (_, x, y), (fx, fy, p) in zip(sorted(at, key=lambda d: d[1]),
                                      sorted(found), strict=True):
        assert abs(fx - x) <= STRIDE and abs(fy - y) <= STRIDE and p >= 0.3
    assert spots(_board([]), 0.3) == []
    assert [s[2] for s in found] == sorted((s[2] for s in found), reverse=True)


def test_the_map_covers_the_view_cut_to_sixteens_and_a_tiny_view_gives_none() -> None:
    heat = spot_map(_board([])[:250, :340])
    assert heat.shape == (240 // STRIDE, 336 // STRIDE)
    assert float(heat.min()) >= 0.0 and float(heat.max()) <= 1.0
    assert spots(np.zeros((10, 30, 3), np.uint8), 0.3) == []
    grey = spot_map(np.full((64, 64), 128, np.uint8))
    assert grey.shape == (16, 16)


def test_a_missing_model_says_how_to_make_it(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match=r"missing.*dice_find_net/train\.py"):
        spot_map(_board([]), tmp_path / "none.onnx")
    assert MODEL.is_file()
