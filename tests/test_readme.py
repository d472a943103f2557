"""The README's Python examples run as shown."""

from __future__ import annotations

import doctest
import itertools
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples() -> None:
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_readme_stays_a_five_minute_read() -> None:
    """About 150 lines for the person with a board and a Pi: what pibg is, the two set-up
    commands first, the rig, calibrating, playing, the commands, and the current figures (one
    table, and the current tables of the vision and referee-fault benchmarks). Measurements'
    detail and history belong in docs/benchmarks.md."""
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail to docs/"
    heads = [ln for ln in lines if ln.startswith("## ")]
    assert heads[0] == "## Try it (no board or camera needed)"
    assert {"## Building the rig", "## Calibrating", "## Playing", "## Commands",
            "## Figures"} <= set(heads)
    tables = sum(1 for a, b in itertools.pairwise(lines)
                 if a.startswith("| ") and b.startswith("|---"))
    assert tables == 4, "the commands, the figures, reading a board, the referee's faults"
    assert "session" not in text.lower()
