"""The package is typed strictly as a whole (``mypy``, run by ``scripts/test.sh``, reads this
configuration): no module is left out of strict checking, and any per-module section names
modules that exist."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _mypy() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return config


def test_the_whole_package_is_strict() -> None:
    config = _mypy()
    assert config["strict"] is True and config["files"] == ["pibg"]


def test_no_section_relaxes_a_module_or_names_one_that_does_not_exist() -> None:
    overrides = _mypy().get("overrides", [])
    assert isinstance(overrides, list)
    for section in overrides:
        modules = section["module"]
        for name in [modules] if isinstance(modules, str) else modules:
            assert importlib.util.find_spec(name.removesuffix(".*")) is not None, name
        relaxed = {k: v for k, v in section.items() if k != "module" and v is False}
        assert not relaxed, (section["module"], relaxed)
