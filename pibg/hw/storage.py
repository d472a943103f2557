"""Disk space for journals and records, and a clear error when the disk is full.

A Pi's SD card fills up. Whatever writes records wraps the write in :func:`guarded` (or checks
first with :func:`check_space`), so a full disk reaches the caller as one
:class:`StorageFullError` naming the file and what to do, instead of a bare ``OSError`` deep in a
traceback. ``StorageFullError`` is both a :class:`~pibg.exc.HardwareError` and an ``OSError``
(with the original ``errno``), so either kind of handler catches it.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from pibg.exc import HardwareError

#: Below this much free space the journal directory is reported as (nearly) full.
MIN_FREE_BYTES = 100 * 1024 * 1024
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class StorageFullError(HardwareError, OSError):
    """The disk holding the journals and records is full (or read-only, or failing)."""

    def __init__(self, message: str, err: int | None = None, filename: str | None = None):
        super().__init__(message)
        self.errno = err
        self.filename = filename
        self.strerror = message

    def __str__(self) -> str:
        return self.strerror or ""


class DiskUsage(NamedTuple):
    total: int
    used: int
    free: int


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(
    directory: str | os.PathLike[str],
    usage: Callable[[str], DiskUsage] | None = None,
) -> int:
    """Free bytes on the file system that holds ``directory`` (or would hold it)."""
    probe = usage or (lambda p: DiskUsage(*shutil.disk_usage(p)))
    return probe(str(_existing(Path(directory)))).free


def check_space(
    directory: str | os.PathLike[str],
    min_free: int = MIN_FREE_BYTES,
    usage: Callable[[str], DiskUsage] | None = None,
) -> int:
    """:returns: free bytes. :raises StorageFullError: fewer than ``min_free`` are left."""
    free = free_bytes(directory, usage)
    if free < min_free:
        raise StorageFullError(
            f"only {free // (1024 * 1024)} MB free for {directory} (need "
            f"{min_free // (1024 * 1024)} MB): delete old records or move [records] directory",
            errno.ENOSPC,
            str(directory),
        )
    return free


@contextmanager
def guarded(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn a full/read-only disk inside the block into :class:`StorageFullError`.

    >>> try:
    ...     with guarded("records/x.jsonl"):
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ... except OSError as exc:
    ...     print(type(exc).__name__, exc.errno == errno.ENOSPC, str(exc)[:40])
    StorageFullError True disk full writing records/x.jsonl: No sp
    """
    try:
        yield
    except StorageFullError:
        raise
    except OSError as exc:
        if exc.errno in _FULL:
            what = "disk full"
        elif exc.errno == errno.EROFS:
            what = "file system is read-only"
        elif exc.errno == errno.EIO:
            what = "I/O error (failing SD card?)"
        else:
            raise
        raise StorageFullError(
            f"{what} writing {os.fspath(path)}: {exc.strerror or exc}; free some space "
            "(old records) or move [records] directory, then restart pibg",
            exc.errno,
            os.fspath(path),
        ) from exc


def append_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    writer: Callable[[Path, str], None] | None = None,
) -> None:
    """Append ``text`` to ``path`` and flush it to disk; failures as in :func:`guarded`."""

    def _write(p: Path, t: str) -> None:
        with p.open("a", encoding="utf-8") as f:
            f.write(t)
            f.flush()
            os.fsync(f.fileno())

    with guarded(path):
        (writer or _write)(Path(path), text)
