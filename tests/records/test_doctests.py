"""The examples in the records modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["pibg.events", "pibg.journal", "pibg.stats", "pibg.sgf",
                                  "pibg.matfile"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
