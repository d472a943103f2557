"""The benchmarks' stand-ins for boards and lights not in ../shared (``benchmarks/restyle.py``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.conftest import ROOT


def _restyle() -> Any:
    spec = importlib.util.spec_from_file_location("restyle", ROOT / "benchmarks" / "restyle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_tone_restyle_bends_blue_and_red_and_leaves_start_frames(tmp_path: Path) -> None:
    values = np.arange(256, dtype=np.uint8)
    img = np.stack([values, values, values], -1).reshape(16, 16, 3)
    path = str(tmp_path / "frame.png")
    cv2.imwrite(path, img)
    style = _restyle().Restyle("bgr", 1.0, 1.25)
    np.testing.assert_array_equal(style.imread(path, start=True), img)
    toned = style.imread(path).reshape(-1, 3).astype(np.float64)
    v = values / 255.0
    np.testing.assert_array_equal(toned[:, 1], values)
    assert np.abs(toned[:, 0] - 255.0 * v ** 1.25).max() <= 0.5
    assert np.abs(toned[:, 2] - 255.0 * v ** 0.8).max() <= 0.5
    assert toned[128, 0] < 128 < toned[128, 2]  # a mid grey turns warmer


@pytest.mark.parametrize(("order", "light", "tone"), [("bgx", 1.0, 1.0), ("bgr", 0.0, 1.0),
                                                      ("bgr", 1.0, -1.0)])
def test_no_such_restyle_is_refused(order: str, light: float, tone: float) -> None:
    with pytest.raises(ValueError, match="no such restyle"):
        _restyle().Restyle(order, light, tone)
