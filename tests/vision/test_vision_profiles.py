"""The board profiles in calibration/profiles agree with the built-in ones."""

from __future__ import annotations

import tomllib
from dataclasses import asdict
from pathlib import Path

from pibg.vision.geometry import PROFILES

ROOT = Path(__file__).resolve().parents[2]


def test_profile_files_match_builtins() -> None:
    files = sorted((ROOT / "calibration" / "profiles").glob("*.toml"))
    assert {f.stem for f in files} == set(PROFILES)
    for f in files:
        assert tomllib.loads(f.read_text()) == asdict(PROFILES[f.stem])
