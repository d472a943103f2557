"""The SGF writer against the SGF gnubg itself wrote for the same matches."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pibg.gnubg_oracle import random_match
from pibg.matfile import read_mat
from pibg.position import Color
from pibg.sgf import dumps_sgf, to_letter, write_sgf

from .conftest import DATA

_ROOT_PROPS = ("GM", "MI", "PW", "PB", "RU", "RE")


def _essence(sgf: str) -> list[tuple[dict[str, str], list[str]]]:
    """Per game: the root properties that matter and the move/cube nodes, analysis removed."""
    games = []
    for tree in re.findall(r"\(;(.*?)\)\s*(?=\(;|$)", sgf, re.S):
        root = {}
        for prop in _ROOT_PROPS:
            m = re.search(rf"(?<![A-Z]){prop}((?:\[[^\]]*\])+)", tree.split("\n;")[0])
            if m:
                root[prop] = m.group(1)
        nodes = re.findall(r"\n;([WB]\[[^\]]*\])", tree)
        games.append((root, nodes))
    return games


@pytest.mark.parametrize("name", ["m005_3pt", "m051_5pt"])
def test_same_nodes_as_gnubg(name: str) -> None:
    mine = dumps_sgf(read_mat(DATA / f"{name}.mat"), "2026-11-22")
    theirs = (DATA / f"{name}.sgf").read_text()
    assert _essence(mine) == _essence(theirs)


def test_all_golden_sgf(golden_matches: list) -> None:
    for mat, _, record in golden_matches:
        theirs = mat.with_suffix(".sgf").read_text()
        mine = dumps_sgf(record)
        ess_mine, ess_theirs = _essence(mine), _essence(theirs)
        assert ess_mine == ess_theirs, mat.name


def test_letters() -> None:
    assert to_letter(1, Color.WHITE) == "a" and to_letter(24, Color.WHITE) == "x"
    assert to_letter(1, Color.BLACK) == "x" and to_letter(24, Color.BLACK) == "a"
    assert to_letter(25, Color.WHITE) == "y" and to_letter(0, Color.BLACK) == "z"


def test_names_are_escaped_and_file_is_written_atomically(tmp_path: Path) -> None:
    events, _ = random_match(4)
    from dataclasses import replace

    from pibg.events import MatchStarted

    first = events[0]
    assert isinstance(first, MatchStarted)
    events[0] = MatchStarted(replace(first.settings, white="A]nn\\"))
    text = dumps_sgf(events)
    assert "PW[A\\]nn\\\\]" in text
    out = tmp_path / "m.sgf"
    write_sgf(events, out)
    assert out.read_text() == text
    buf = io.StringIO()
    write_sgf(events, buf)
    assert buf.getvalue() == text
    assert [p.name for p in tmp_path.iterdir()] == ["m.sgf"]
