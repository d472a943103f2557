"""Shared fixtures. Data from ``../shared`` (beside the project root) is optional: tests that
need it skip with that reason, since a user's clone has none."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

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


def live_config_file(folder: Path, records: Path | None = None, match: str = "length = 3",
                     web: str = "[web]\nenabled = false\n") -> Path:
    """A ``pibg.toml`` in ``folder`` for the live loop under test: the ``[match]`` lines
    given, nothing to wait for, records in ``records`` (``folder/records`` by default), the
    ``web`` table given (none: the default page), and a file standing in for the
    calibration."""
    cal = folder / "cal.toml"
    cal.write_text("# stands in for a calibration\n")
    path = folder / "pibg.toml"
    path.write_text(f'[match]\n{match}\n[vision]\ncalibration = "{cal}"\n'
                    f'stable_seconds = 0.0\n{web}'
                    f'[records]\ndirectory = "{records or folder / "records"}"\n')
    return path


def live_config(folder: Path, records: Path | None = None) -> Any:
    """:func:`live_config_file` loaded: a 3-point match, no web page."""
    from pibg.config import load_config

    return load_config(live_config_file(folder, records))


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
