"""Fixtures for the rig tests: gpiozero's MockFactory, fake Picos on pty pairs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from pibg.hw.mock import FakePico


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as the default pin factory (gpiozero's own test fixture)."""
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def fake_pico(tmp_path: Path) -> Iterator[FakePico]:
    with FakePico(tmp_path / "by-id") as pico:
        yield pico
