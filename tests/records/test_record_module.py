"""The match record and its two codecs: ``pibg.record`` holds what ``.mat`` and SGF share, and
the files they write are the user's to read (``0644``), as the journal is."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest

import pibg
from pibg.__main__ import main
from pibg.record import FILE_MODE, write_atomic

from .conftest import DATA

PACKAGE = Path(pibg.__file__).parent
SHARED = {"MatchRecord", "GameRecord", "Action", "match_record", "apply_steps", "write_atomic",
          "decode_text", "resolve_any_order"}


def _module(name: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))


def _defined(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _imported_from(tree: ast.Module) -> set[str]:
    return {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_the_shared_record_lives_in_record_py_and_the_codecs_are_siblings() -> None:
    assert _defined(_module("record")) >= SHARED
    for codec in ("matfile", "sgf"):
        tree = _module(codec)
        assert not SHARED & _defined(tree), codec
        assert "pibg.record" in _imported_from(tree), codec
    assert "pibg.matfile" not in _imported_from(_module("sgf"))
    assert "pibg.sgf" not in _imported_from(_module("matfile"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_write_atomic_makes_a_new_file_0644_and_keeps_an_old_files_mode(tmp_path: Path) -> None:
    new = tmp_path / "new.mat"
    write_atomic(new, "x\n")
    assert _mode(new) == FILE_MODE == 0o644
    old = tmp_path / "old.mat"
    old.write_text("old\n")
    os.chmod(old, 0o640)
    write_atomic(old, "y\n")
    assert old.read_text() == "y\n" and _mode(old) == 0o640


@pytest.fixture()
def journal(tmp_path: Path) -> Path:
    out = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(out)]) == 0
    return out


def test_export_and_import_write_files_everyone_can_read(tmp_path: Path, journal: Path) -> None:
    assert _mode(journal) == 0o644
    for fmt in ("mat", "sgf"):
        out = tmp_path / f"m.{fmt}"
        assert main(["export", str(journal), "--format", fmt, "-o", str(out)]) == 0
        assert _mode(out) == 0o644, fmt
