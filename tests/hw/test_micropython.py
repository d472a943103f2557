"""The Pico protocol under real MicroPython (the WebAssembly port, run by node).

Skipped unless node is installed and ``npm ci --prefix tests/hw/micropython`` has been run.
The same session script runs under CPython and MicroPython; the outputs must be identical.
"""

from __future__ import annotations

import contextlib
import io
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pibg.hw import pico_protocol

HERE = Path(__file__).resolve().parent / "micropython"
ROOT = HERE.parents[2]
MODULE = HERE / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not MODULE.is_dir(),
    reason="needs node and `npm ci --prefix tests/hw/micropython`",
)


def micropython(script: Path, *files: Path) -> str:
    res = subprocess.run(
        ["node", str(HERE / "run.mjs"), str(script), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout


def cpython(script: Path) -> str:
    buf = io.StringIO()
    saved = sys.modules.get("protocol")
    sys.modules["protocol"] = pico_protocol
    try:
        with contextlib.redirect_stdout(buf):
            runpy.run_path(str(script))
    finally:
        if saved is None:
            del sys.modules["protocol"]
        else:
            sys.modules["protocol"] = saved
    return buf.getvalue()


def test_protocol_session_is_identical_under_micropython() -> None:
    proto = ROOT / "hardware" / "pico" / "protocol.py"
    mp = micropython(HERE / "session.py", proto)
    cp = cpython(HERE / "session.py")
    assert mp.splitlines() == cp.splitlines()
    assert "OK HELLO pibg-pico" in mp


def test_firmware_compiles_under_micropython(tmp_path: Path) -> None:
    check = tmp_path / "compile_main.py"
    check.write_text("compile(open('/main.py').read(), 'main.py', 'exec')\nprint('ok')\n")
    assert micropython(check, ROOT / "hardware" / "pico" / "main.py").strip() == "ok"
