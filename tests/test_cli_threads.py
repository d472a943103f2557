"""The ``pibg`` command reads frames single-threaded: numpy's BLAS gets one thread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_THREADS = "import os; print(len(os.listdir('/proc/self/task')))"


def _run(code: str) -> str:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, timeout=120)
    return res.stdout.strip()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_the_command_gives_numpy_one_blas_thread() -> None:
    # the control: numpy imported as it is starts its BLAS threads on this machine
    alone = int(_run(f"import numpy; {_THREADS}"))
    # the command's main() before any command module loads numpy
    got = _run("import sys, os; import pibg.__main__ as m; assert 'numpy' not in sys.modules; "
               "m.main([]); assert 'numpy' in sys.modules; "
               f"print(os.environ['OPENBLAS_NUM_THREADS']); {_THREADS}").splitlines()
    assert got[-2] == "1"
    # one thread fewer than numpy alone starts, where it starts any (not on one core, nor
    # with a BLAS without threads)
    assert int(got[-1]) < alone or alone == 1


def test_a_users_own_setting_is_kept() -> None:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2")
    res = subprocess.run([sys.executable, "-c", "import os, pibg.__main__ as m; m.main([]); "
                          "print(os.environ['OPENBLAS_NUM_THREADS'])"],
                         capture_output=True, text=True, env=env, check=True, timeout=120)
    assert res.stdout.strip().splitlines()[-1] == "2"
