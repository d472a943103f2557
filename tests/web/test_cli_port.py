"""Issue 39: ``pibg web-replay --port`` on a busy port is one line and exit 2, no litter."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_busy_port_is_one_line_and_exit_2(tmp_path: Path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        env = {**os.environ, "TMPDIR": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "pibg", "web-replay", "sim", "--no-camera",
                               "--port", str(port), "--exit"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no temp records folder left behind
