"""``pibg import`` of other writers' files (warnings, ``--strict``, notes in the journal), and
``pibg import``/``export`` when the file system fails: one line, exit 2, nothing left behind,
a retry that works."""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from pathlib import Path

import pytest

from pibg.__main__ import main
from pibg.events import Moved, Noted
from pibg.journal import Journal
from pibg.matfile import dumps_mat, parse_mat, read_mat
from pibg.record import match_record
from pibg.sgf import dumps_sgf, parse_sgf

from .conftest import DATA

WRITERS = DATA / "writers"


def test_import_warns_names_the_line_and_keeps_a_note(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.jsonl"
    assert main(["import", str(WRITERS / "xg_concedes.mat"), "-o", str(out)]) == 0
    cap = capsys.readouterr()
    assert cap.err.startswith("pibg import: warning: ") and "xg_concedes.mat: line 11: " in cap.err
    assert "1 warnings" in cap.out
    with Journal.open(out, readonly=True) as journal:
        notes = [e for e in journal.events() if isinstance(e, Noted)]
    assert len(notes) == 1 and notes[0].text.startswith("line 11: white rolled 11")


def test_import_strict_refuses_in_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.jsonl"
    assert main(["import", "--strict", str(WRITERS / "xg_concedes.mat"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 11: white 11: (no move)" in err
    assert "a legal move exists" in err and not out.exists()


def test_export_into_a_missing_folder_is_one_line_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(journal)]) == 0
    capsys.readouterr()
    for fmt in ("mat", "sgf"):
        target = tmp_path / "missing" / "dir" / f"x.{fmt}"
        assert main(["export", str(journal), "--format", fmt, "-o", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot write: No such file or directory" in err
        assert "Traceback" not in err


def _full_disk(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Every write past the first ``after`` bytes fails as on a full disk."""
    real = os.write
    written = [0]

    def write(fd: int, data: bytes) -> int:
        if written[0] + len(data) > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written[0] += len(data)
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


def test_export_on_a_full_disk_leaves_no_temp_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    journal = tmp_path / "m.jsonl"
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(journal)]) == 0
    out = tmp_path / "out"
    out.mkdir()
    capsys.readouterr()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", full)
        assert main(["export", str(journal), "-o", str(out / "x.mat")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert list(out.iterdir()) == []


def test_import_on_a_full_disk_leaves_nothing_and_a_retry_works(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "m.jsonl"
    with monkeypatch.context() as m:
        _full_disk(m, after=2000)
        assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o", str(out)]) == 0
    assert "3 games" in capsys.readouterr().out


def test_import_into_a_missing_folder(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(DATA / "m005_3pt.mat"), "-o",
                 str(tmp_path / "no" / "m.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No such file or directory" in err


def test_dice_not_seen_and_doubt_travel_through_sgf_and_mat() -> None:
    """A play whose dice the referee inferred keeps them in the .mat (gnubg needs them) and
    says so in an SGF comment, which pibg reads back."""
    events = read_mat(DATA / "m005_3pt.mat")
    k = [i for i, e in enumerate(events) if isinstance(e, Moved)][3]
    ev = events[k]
    assert isinstance(ev, Moved)
    events[k] = replace(ev, dice_seen=False, flag="hand over the board")
    sgf = dumps_sgf(events)
    assert "C[dice not seen: inferred from the board\nin doubt: hand over the board]" in sgf
    back = [e for e in parse_sgf(sgf) if isinstance(e, Moved)]
    assert (back[3].dice_seen, back[3].flag) == (False, "hand over the board")
    assert all(e.dice_seen and not e.flag for i, e in enumerate(back) if i != 3)
    mat = dumps_mat(events)
    assert mat == dumps_mat(read_mat(DATA / "m005_3pt.mat"))  # the dice are written as usual
    assert [(e.dice, e.result) for e in parse_mat(mat) if isinstance(e, Moved)] == [
        (e.dice, e.result) for e in back]
    assert match_record(events).games[0].actions[3].comment.startswith("dice not seen")
