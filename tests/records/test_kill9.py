"""Power cuts: a child appending events is SIGKILLed at random moments, 100+ times.

The child prints each ``seq`` once :meth:`Journal.append` has returned (the event is then
acknowledged). After every kill the parent reopens the journal: every acknowledged event must
be there, intact, and a torn last line must have been set aside. All runs share one journal,
so recovery is exercised again and again, as on a Pi whose power keeps failing (a fresh
journal every ``PER_JOURNAL`` runs keeps the files small enough to reread quickly).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pibg.journal import Journal

RUNS = int(os.environ.get("PIBG_KILL_RUNS", "100"))
PER_JOURNAL = 5

MAKE = '''
from pibg.events import IllegalFlagged
from pibg.position import Color

def make(seq):
    # sizes from a few bytes to 2 MB, so that kills land inside large writes too
    size = (seq * 7919) % 5
    n = (0, 10, 2_000, 200_000, 2_000_000)[size]
    return IllegalFlagged(Color.WHITE if seq % 2 else Color.BLACK, None, ("x" * n, str(seq)))
'''

CHILD = MAKE + '''
import sys
from pibg.journal import Journal
j = Journal.open(sys.argv[1])
print("ready", len(j), flush=True)
while True:
    seq = j.append(make(j.next_seq))
    print(seq, flush=True)
'''


@pytest.mark.slow
def test_sigkill_never_loses_an_acknowledged_event(tmp_path: Path) -> None:
    ns: dict[str, object] = {}
    exec(MAKE, ns)
    make = ns["make"]
    rng = random.Random(2026)
    acknowledged = 0
    total = 0
    torn = 0
    started = time.monotonic()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    for run in range(RUNS):
        if run % PER_JOURNAL == 0:
            path = tmp_path / f"power{run // PER_JOURNAL}.jsonl"
            total += acknowledged
            acknowledged = 0
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)],
                                 stdout=subprocess.PIPE, env=env, text=True)
        assert child.stdout is not None
        ready = child.stdout.readline().split()
        assert ready and ready[0] == "ready", f"run {run}: child did not start"
        time.sleep(rng.uniform(0.0, 0.04))
        child.send_signal(signal.SIGKILL)
        child.wait()
        for line in child.stdout.read().split():
            acknowledged = max(acknowledged, int(line))
        child.stdout.close()
        with Journal.open(path) as j:
            if j.recovery:
                torn += 1
            events = j.events()
        assert len(events) >= acknowledged, (
            f"run {run}: {acknowledged} events acknowledged but {len(events)} recovered")
        for seq, ev in enumerate(events, start=1):
            assert ev == make(seq), f"run {run}: event {seq} differs after recovery"  # type: ignore[operator]
    elapsed = time.monotonic() - started
    total += acknowledged
    print(f"\n{RUNS} SIGKILL runs, {total} events acknowledged and all recovered, {torn} torn "
          f"tails set aside, {elapsed:.1f} s")
    assert total > RUNS  # the child really was writing
    assert elapsed < 90


class _Disk:
    """Stands in for ``os`` inside :mod:`pibg.journal`: passes every call through, and keeps
    the journal file's contents twice: as written (the kernel's cache) and as last synced
    (what a power cut leaves; SIGKILL leaves the cache, so it cannot tell them apart)."""

    def __init__(self, real: object, path: Path) -> None:
        self._real, self._path = real, path
        self.cached = bytearray(path.read_bytes() if path.exists() else b"")
        self.durable = bytes(self.cached)
        self.acknowledged = 0
        self.checked = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def _ours(self, fd: int) -> bool:
        try:
            return os.path.samefile(f"/proc/self/fd/{fd}", self._path)
        except OSError:
            return False

    def write(self, fd: int, data: bytes) -> int:
        n = self._real.write(fd, data)  # type: ignore[attr-defined]
        if self._ours(fd):
            self.cached += bytes(data[:n])
        self.check()
        return n

    def ftruncate(self, fd: int, size: int) -> None:
        self._real.ftruncate(fd, size)  # type: ignore[attr-defined]
        if self._ours(fd):
            del self.cached[size:]
        self.check()

    def fsync(self, fd: int) -> None:
        self._real.fsync(fd)  # type: ignore[attr-defined]
        if self._ours(fd):
            self.durable = bytes(self.cached)
        self.check()

    def check(self) -> None:
        """A power cut now: the synced contents must hold every acknowledged event."""
        from pibg.journal import _parse

        entries, _, _, _ = _parse(self._path, self.durable, salvage=True)
        assert len(entries) >= self.acknowledged, (
            f"a power cut now would lose event {len(entries) + 1} of {self.acknowledged} "
            f"acknowledged (written but not synced)")
        self.checked += 1


def test_every_acknowledged_event_is_synced_before_append_returns(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """Unlike SIGKILL, this fails if :meth:`Journal.append` did not fsync: every prefix of
    the journal's writes, truncations and syncs is checked as a power cut."""
    import pibg.journal as journal_module
    from pibg.events import IllegalFlagged
    from pibg.position import Color

    path = tmp_path / "match.jsonl"
    disk = _Disk(os, path)
    monkeypatch.setattr(journal_module, "os", disk)
    with Journal.open(path) as j:
        for seq in range(1, 21):
            j.append(IllegalFlagged(Color.WHITE if seq % 2 else Color.BLACK, None, ("x", str(seq))))
            disk.acknowledged = seq
            disk.check()
    # and after a torn tail is set aside at open, the cut is synced too
    with path.open("ab") as f:
        f.write(b'{"seq":21,"event":"tor')
    disk.cached = bytearray(path.read_bytes())
    disk.durable = bytes(disk.cached)
    with Journal.open(path) as j:
        j.append(IllegalFlagged(Color.WHITE, None, ("x", "21")))
        disk.acknowledged = 21
        disk.check()
    assert disk.checked > 40
