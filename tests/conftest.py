"""Shared fixtures. Data from ``../shared`` (beside the project root) is optional: tests that
need it skip with that reason, since a user's clone has none."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs ../shared/{'/'.join(parts)} (reference data not in a user's clone)")
    return path


@pytest.fixture
def shared():
    """``shared("golden", "movegen.jsonl")``: a path under ../shared, or skip the test."""
    return shared_path


class _RaiseOnError(logging.Handler):
    """Any ERROR logged during a test fails it (python-chess's RaiseLogHandler)."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR and not getattr(record, "expected", False):
            raise AssertionError(f"ERROR logged: {record.getMessage()}")


@pytest.fixture(autouse=True)
def _fail_on_error_log():
    handler = _RaiseOnError()
    root = logging.getLogger("pibg")
    root.addHandler(handler)
    yield
    root.removeHandler(handler)
