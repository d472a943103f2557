"""Hostile-client probes against the page server (issue 39), on 127.0.0.1 only.

    python benchmarks/web_probes.py            # 1,030 idle sockets, Content-Length: -1, Host

Starts ``pibg web-replay sim --no-camera`` on a free port in a child process (default open-file
limit), then: opens 1,030 sockets that each send ``GET / HTTP/1.1\\r\\n`` and stop, and times a
normal request while they are open and the server's CPU over 5 s; streams 300 MB after a
``Content-Length: -1`` header and reports the server's memory; and asks with a foreign Host.
"""

from __future__ import annotations

import contextlib
import http.client
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


def _get(port: int, path: str = "/api/state", host: str | None = None) -> tuple[int, float]:
    t = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Host": host} if host else {})
    status = conn.getresponse().status
    conn.close()
    return status, time.perf_counter() - t


def main() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "pibg", "web-replay", "sim", "--no-camera", "--delay", "60",
         "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard)))
    try:
        assert server.stdout is not None
        server.stdout.readline()  # "the page is at ..."
        print(f"server RSS at start: {_rss_mb(server.pid):.0f} MB")
        idle = []
        for _ in range(1030):
            c = socket.create_connection(("127.0.0.1", port), timeout=30)
            c.sendall(b"GET / HTTP/1.1\r\n")
            idle.append(c)
        cpu0 = _cpu_s(server.pid)
        status, took = _get(port)
        time.sleep(5)
        cpu = (_cpu_s(server.pid) - cpu0) / (5 + took)
        closed = 0
        for c in idle:
            c.setblocking(False)
            try:
                closed += c.recv(1) == b""
            except BlockingIOError:
                pass
            except ConnectionResetError:
                closed += 1
            c.close()
        print(f"1,030 idle sockets: a normal GET answered {status} in {took * 1000:.0f} ms; "
              f"server CPU {cpu * 100:.0f} %; "
              f"{closed} of 1,030 idle sockets closed by the server after 5 s")
        before = _rss_mb(server.pid)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            c.sendall(b"POST /api/control/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Length: -1\r\n\r\n")
            sent = 0
            chunk = b"x" * (1 << 20)
            try:
                while sent < 300 << 20:
                    c.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass
            answer = b""
            with contextlib.suppress(OSError):
                answer = c.recv(200)
        print(f"Content-Length: -1 then 300 MB: the server stopped reading after "
              f"{sent >> 20} MB sent ({answer.split(b' ')[1:2] or 'reset'}); "
              f"server RSS {before:.0f} -> {_rss_mb(server.pid):.0f} MB")
        print(f"Host: evil.example -> {_get(port, host='evil.example')[0]}; "
              f"Host: localhost -> {_get(port, host=f'localhost:{port}')[0]}")
    finally:
        server.terminate()
        server.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
