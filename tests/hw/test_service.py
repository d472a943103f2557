"""sd_notify against a real AF_UNIX datagram socket, and the READY/watchdog policy."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from pibg.service import ServiceNotifier, sd_notify, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    yield path, sock
    sock.close()


def test_sd_notify_sends_datagrams(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    assert sd_notify("READY=1\nSTATUS=camera ok", {"NOTIFY_SOCKET": path})
    assert sock.recv(4096) == b"READY=1\nSTATUS=camera ok"


def test_sd_notify_abstract_socket() -> None:
    name = f"pibg-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        assert sd_notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"WATCHDOG=1"


def test_sd_notify_outside_systemd_and_dead_socket(tmp_path: Path) -> None:
    assert sd_notify("READY=1", {}) is False
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False


def test_watchdog_interval() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    pid = str(os.getpid())
    assert watchdog_interval({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": pid}) == 1.0
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "x"}) is None


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_ready_only_after_first_frame_and_pings_only_while_frames_arrive() -> None:
    sent: list[str] = []
    clock = Clock()
    n = ServiceNotifier(
        environ={"WATCHDOG_USEC": "30000000"}, clock=clock, send=sent.append, stall_after=10
    )
    n.tick()
    assert sent == []  # no frames yet: not ready, no pings
    clock.now = 1
    n.frame()
    assert sent == ["READY=1", "WATCHDOG=1"]
    for t in range(2, 40):  # frames keep coming: one ping every 15 s
        clock.now = t
        n.frame()
    assert sent.count("READY=1") == 1 and sent.count("WATCHDOG=1") == 3
    sent.clear()
    for t in range(40, 120):  # camera silent: pings stop after stall_after
        clock.now = t
        n.tick()
    assert sent == ["WATCHDOG=1"]  # at t=46 (last frame at 39); none after t=49
    n.status("camera lost:   retrying")
    n.status("camera lost: retrying")
    n.stopping()
    assert sent[1:] == ["STATUS=camera lost: retrying", "STOPPING=1"]


def test_notifier_end_to_end(notify_socket: tuple[str, socket.socket]) -> None:
    path, sock = notify_socket
    n = ServiceNotifier(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"})
    n.frame()
    assert sock.recv(100) == b"READY=1"
    assert sock.recv(100) == b"WATCHDOG=1"
