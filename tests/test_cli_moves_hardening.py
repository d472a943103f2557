"""Issue 39: ``pibg moves --batch`` answers every line, however bad: strict dice, no crash on
huge numbers or deep nesting, and a long line is never echoed back whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = "4HPwATDgc/ABMA"


def test_bad_lines_get_error_lines_and_the_batch_goes_on():
    lines = [
        json.dumps({"position_id": START, "dice": [3, 1]}),
        '{"position_id": "4HPwATDgc/ABMA", "dice": [1e400, 1]}',
        "[" * 100_000,
        json.dumps({"position_id": START, "dice": [True, 1]}),
        json.dumps({"position_id": START, "dice": [3.5, 1]}),
        json.dumps({"position_id": START, "dice": [3, 1, 2]}),
        json.dumps({"position_id": START, "dice": "x" * 3_000_000}),
        '{"position_id": "' + "A" * 3_000_000 + '", "dice": [3, 1]}',
        "\xff\xfe not utf-8",
        json.dumps({"position_id": START, "dice": [6, 5]}),
    ]
    text = "\n".join(lines) + "\n"
    done = subprocess.run([sys.executable, "-m", "pibg", "moves", "--batch"], input=text.encode(
        "utf-8", "surrogateescape"), capture_output=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert len(out) == len(lines)
    assert "plays" in out[0] and "plays" in out[-1]
    for i in range(1, 6):
        assert "error" in out[i] and f"line {i + 1}" in out[i]["error"], out[i]
    assert "two integers 1-6" in out[3]["error"] and "two integers 1-6" in out[4]["error"]
    assert "too long" in out[6]["error"] and "too long" in out[7]["error"]
    assert max(len(x["error"]) for x in out[1:-1]) < 300  # no line echoed whole
    assert "error" in out[8]


def test_strict_dice_in_the_answer_function():
    from pibg.commands.moves import plays_json
    from pibg.exc import PibgError

    for dice in ([True, 1], [3.5, 1], [0, 1], [7, 1], ["3", "1"], [3]):
        try:
            plays_json(START, dice)
        except PibgError as exc:
            assert "two integers 1-6" in str(exc)
        else:
            raise AssertionError(f"{dice!r} was taken as a roll")
