"""The ``pibg`` command line.

Each sub-command lives in its own module under :mod:`pibg.commands` and exposes
``register(subparsers)``; this module only discovers them, so areas of the code base can add
commands without touching one shared file. A handler returns the exit code. Any
:class:`~pibg.exc.PibgError` that escapes becomes a one-line message and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from pibg import commands
from pibg.exc import PibgError


def version() -> str:
    """The installed distribution's version, or the package's own where pibg is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("pibg")
    except PackageNotFoundError:
        import pibg

        return str(getattr(pibg, "__version__", "unknown"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pibg", description="A camera referee and recorder for backgammon on a real board."
    )
    parser.add_argument("--version", action="version", version=f"pibg {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"pibg.commands.{info.name}")
        module.register(sub)
    return parser


#: Environment variables set (unless the user set them) before numpy is first imported: one
#: thread for its BLAS. Vision's fits multiply small matrices, where OpenBLAS's extra threads
#: only spin: on two cores they took a third of the read's CPU time for no speed (renders,
#: ``benchmarks/vision_speed.py --renders``), CPU the camera, web and LED threads need on a Pi.
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def main(argv: Sequence[str] | None = None) -> int:
    for name, value in SINGLE_THREADED.items():
        os.environ.setdefault(name, value)  # the commands import numpy: see build_parser
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        code: int = args.handler(args)
    except PibgError as exc:
        print(f"pibg {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
