"""``pibg moves``: text, --json and --batch as issue 2 specifies them."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from pibg.__main__ import main
from pibg.position import Position
from pibg.rules import legal_plays, resolve


def test_json_lists_every_play_with_the_mover_still_on_roll(capsys):
    assert main(["moves", "4HPwATDgc/ABMA", "3", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"plays"}
    want = {p.result.position_id() for p in legal_plays(Position.start(), (3, 1))}
    assert {p["position_id"] for p in out["plays"]} == want
    point_made = resolve(Position.start(), (3, 1), "8/5 6/5").result.position_id()
    assert {"play": "8/5 6/5", "position_id": point_made} in out["plays"]


def test_no_legal_play_gives_an_empty_list(capsys):
    # White on the bar against Black's closed home board (White's points 19-24)
    closed = Position.from_signed([0] * 12 + [14] + [0] * 5 + [-2] * 6, bar=(1, 0),
                                  off=(0, 3))
    assert main(["moves", closed.position_id(), "6", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"plays": []}


@pytest.mark.parametrize("args", [["bad", "3", "1"], ["4HPwATDgc/ABMA", "7", "1"],
                                  ["4HPwATDgc/ABMA", "3"]])
def test_bad_input_exits_2_with_one_line(args):
    run = subprocess.run([sys.executable, "-m", "pibg", "moves", *args], capture_output=True,
                         text=True)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "error" in run.stderr


def test_batch_answers_every_line_in_order(monkeypatch, capsys):
    lines = [
        {"position_id": "4HPwATDgc/ABMA", "dice": [6, 6]},
        {"position_id": "xx", "dice": [1, 2]},
        {"position_id": "4HPwATDgc/ABMA", "dice": [1, 9]},
        {"position_id": "4HPwATDgc/ABMA", "dice": [2, 1]},
    ]
    text = "\n".join(json.dumps(x) for x in lines) + "\nnot json\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main(["moves", "--batch"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == 5
    assert len(out[0]["plays"]) == len(legal_plays(Position.start(), (6, 6)))
    assert "error" in out[1] and "Position ID" in out[1]["error"]
    assert "error" in out[2] and "1-6" in out[2]["error"]
    assert len(out[3]["plays"]) == len(legal_plays(Position.start(), (2, 1)))
    assert "error" in out[4] and "line 5" in out[4]["error"]


def test_text_output_shows_board_and_plays(capsys):
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    out = capsys.readouterr().out
    assert "8/5 6/5" in out and "pips O 167" in out
