"""Fixtures for the vision tests: a calibrated Vision on the synthetic board."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.sim import SimScene, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import Vision

DATA = Path(__file__).resolve().parents[1] / "data" / "vision"


@pytest.fixture(scope="session")
def sim_vision() -> Vision:
    """A Vision calibrated from a synthetic frame of the starting position (walnut board)."""
    return Vision.from_start_frame(render(SimScene(START_POINTS)), sim_corners())


@pytest.fixture(scope="session")
def sim_calibration_file() -> Path:
    return DATA / "sim_walnut.toml"
