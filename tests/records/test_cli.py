"""``pibg export | import | score | stats`` end to end, and their one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.__main__ import main
from pibg.gnubg_oracle import random_match
from pibg.journal import Journal

from .conftest import DATA


def _journal(tmp_path: Path, seed: int = 7, name: str = "m.jsonl") -> Path:
    path = tmp_path / name
    events, _ = random_match(seed)
    with Journal.open(path) as j:
        for ev in events:
            j.append(ev, ts="2026-11-22T16:00:00Z")
    return path


def test_import_then_export_gives_gnubgs_file_back(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = DATA / "m001_5pt.mat"
    journal = tmp_path / "m001.jsonl"
    assert main(["import", str(src), "-o", str(journal)]) == 0
    assert "3 games, score 1-6" in capsys.readouterr().out
    out = tmp_path / "back.mat"
    assert main(["export", str(journal), "--format", "mat", "-o", str(out)]) == 0
    assert out.read_text() == src.read_text()  # the .mat's EventDate becomes the journal's ts
    assert main(["export", str(journal), "--format", "sgf"]) == 0
    sgf = capsys.readouterr().out
    assert sgf.startswith("(;FF[4]GM[6]") and "PW[erin]PB[judy]" in sgf


def test_import_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = _journal(tmp_path)
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(journal)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not empty" in err


def test_import_bad_mat_exits_2_with_one_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_text(" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/4\n")
    assert main(["import", "--strict", str(bad), "-o", str(tmp_path / "j.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pibg import: error: ") and "bad.mat: line 5:" in err
    assert "\n" not in err
    assert not (tmp_path / "j.jsonl").exists()
    # read as gnubg reads it, the illegal play is kept as written, with a warning
    assert main(["import", str(bad), "-o", str(tmp_path / "j.jsonl")]) == 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("pibg import: warning: ") and "bad.mat: line 5: white 31: 8/5 6/4: " \
        "not a legal play" in err


def test_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m051_5pt.mat"), "-o", str(journal)]) == 0
    capsys.readouterr()
    assert main(["score", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "erin (white)" in out and "judy (black)" in out and "5-point match" in out
    assert "(Crawford)" in out and "games:" in out


def test_score_of_a_game_in_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.jsonl"
    events, _ = random_match(3, length=5)
    with Journal.open(path) as j:
        for ev in events[:40]:
            j.append(ev)
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "in progress: cube" in out


def test_stats_over_several_journals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _journal(tmp_path, 1, "a.jsonl")
    b = _journal(tmp_path, 2, "b.jsonl")
    assert main(["stats", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "chi-square" in out and "p = " in out and "rolls" in out


def test_corrupt_journal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _journal(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"not json"
    path.write_bytes(b"\n".join(lines))
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "m.jsonl: line 3: corrupt line" in err and "\n" not in err
    assert main(["export", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such journal" in capsys.readouterr().err


def test_import_sgf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m005.jsonl"
    assert main(["import", str(DATA / "m005_3pt.sgf"), "-o", str(journal)]) == 0
    assert "score 3-1" in capsys.readouterr().out
    assert main(["export", str(journal), "--format", "mat"]) == 0
    out = capsys.readouterr().out
    assert out == (DATA / "m005_3pt.mat").read_text().split("\n", 2)[2]  # no EventDate
