"""Sub-commands of ``pibg``: one module each, each exposing ``register(subparsers)``.

A module sets ``handler=`` on its parser (``parser.set_defaults(handler=run)``); the handler takes
the parsed ``argparse.Namespace`` and returns the exit code.

Every command that writes files names where with ``-o``/``--out`` (:func:`add_out`); the
spellings used before (``--output``, ``--records``) still work and are not shown in help.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pibg.exc import PibgError


def add_out(parser: argparse.ArgumentParser, help: str, *, default: Any = None,
            old: Sequence[str] = ()) -> None:
    """Add ``-o/--out`` (a :class:`~pathlib.Path`, ``args.out``) and the hidden old spellings
    ``old`` of the same option."""
    parser.add_argument("-o", "--out", type=Path, default=default, metavar="PATH", help=help)
    for name in old:
        parser.add_argument(name, dest="out", type=Path, default=argparse.SUPPRESS,
                            help=argparse.SUPPRESS)


def add_match_kind(parser: argparse.ArgumentParser) -> None:
    """Add ``--match-length N`` or ``--money`` (one of them), as replay and web-replay take
    them."""
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--match-length", type=int, default=None, metavar="N",
                        help="a match to N points (needed unless the source implies it, as "
                        "'sim' and 'sim:FILE.mat' do)")
    length.add_argument("--money", action="store_true",
                        help="money play (games scored one by one) rather than a match")


def need_out(args: argparse.Namespace, what: str) -> Path:
    """``args.out``, which this command cannot do without (argparse cannot require an option
    that has hidden aliases).

    :raises PibgError: no ``-o`` given.
    """
    out: Path | None = args.out
    if out is None:
        raise PibgError(f"say where to write {what}: -o PATH")
    return out
