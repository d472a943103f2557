"""The SGF writer against the SGF gnubg itself wrote for the same matches."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pibg.exc import RecordError
from pibg.gnubg_oracle import random_match
from pibg.match import replay
from pibg.matfile import read_mat
from pibg.position import Color
from pibg.sgf import dumps_sgf, parse_sgf, read_sgf, to_letter, write_sgf

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


# --- reading --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["m005_3pt", "m051_5pt"])
def test_gnubg_sgf_reads_as_its_mat(name: str) -> None:
    assert read_sgf(DATA / f"{name}.sgf") == read_mat(DATA / f"{name}.mat")


def test_all_golden_sgf_read_as_their_mat(golden_matches: list) -> None:
    for mat, events, _ in golden_matches:
        assert read_sgf(mat.with_suffix(".sgf")) == events, mat.name


@pytest.mark.parametrize("seed", range(8))
def test_random_matches_round_trip_through_sgf(seed: int) -> None:
    events, _ = random_match(seed)
    text = dumps_sgf(events)
    back = parse_sgf(text)
    assert dumps_sgf(back) == text
    assert replay(back).score == replay(events).score


SGF_BAD = [
    ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]\n;W[31hehf])", 2, "illegal play"),
    ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]\n;W[31hefe]\n;B[zz])", 3,
     "expected dice and point pairs"),
    ("(;FF[4]GM[1]PW[a])", 1, "expected GM[6]"),
    ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:1]PW[a]PB[b]\n;W[31hefe])", 1, "score is 0-1"),
    ("(;FF[4]GM[6]MI[length:3]PW[a\n", 1, "unterminated"),
    ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]RE[B+7R]\n;W[31hefe])", 1,
     "1, 2 or 3 times"),
    ("(;GM[6]MI[length:3]\n;W[31hefe]\n;B[double]\n;W[take]\n;B[double])", 5,
     "does not fit the match"),
]


@pytest.mark.parametrize(("text", "line", "what"), SGF_BAD)
def test_malformed_sgf_names_file_line_and_expectation(text: str, line: int, what: str) -> None:
    with pytest.raises(RecordError) as info:
        parse_sgf(text, "bad.sgf")
    msg = str(info.value)
    assert msg.startswith(f"bad.sgf: line {line}: "), msg
    assert what in msg and "\n" not in msg
