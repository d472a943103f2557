"""``pibg export``, ``pibg import``, ``pibg score`` and ``pibg stats``: the match records.

    pibg export match.jsonl --format mat -o match.mat
    pibg import match.mat -o match.jsonl      (or a gnubg .sgf)
    pibg score match.jsonl
    pibg stats match.jsonl other.jsonl
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pibg.commands import add_out, need_out
from pibg.events import Event
from pibg.exc import JournalError, RecordError
from pibg.journal import Journal
from pibg.match import MatchState, Phase
from pibg.position import Color


def register(sub: Any) -> None:
    ex = sub.add_parser("export", help="write a journal as a .mat or .sgf match file",
                        description="Write a match journal as a Jellyfish/gnubg .mat file or a "
                                    "gnubg SGF file (GNU Backgammon and eXtreme Gammon import "
                                    "them).")
    ex.add_argument("journal", type=Path, help="the match journal (.jsonl)")
    ex.add_argument("--format", choices=("mat", "sgf"), default="mat",
                    help="mat (Jellyfish/gnubg, the default) or sgf (gnubg)")
    add_out(ex, "output file (written atomically); default: standard output", old=["--output"])
    ex.set_defaults(handler=run_export)

    im = sub.add_parser("import", help="read a .mat or .sgf match file into a new journal",
                        description="Read a .mat match file (gnubg, Jellyfish, XG, Backgammon "
                                    "Galaxy, Backgammon Studio, FIBS clients...) or a gnubg .sgf "
                                    "file, check every move against the rules, and write a "
                                    "journal. What GNU Backgammon would assume (a move nobody "
                                    "recorded, a score that does not add up) is assumed too, "
                                    "with a warning naming the line, and kept in the journal as "
                                    "a note; --strict refuses such files instead.")
    im.add_argument("file", type=Path, help="the .mat or .sgf file")
    add_out(im, "the journal to create (required)", old=["--output"])
    im.add_argument("--force", action="store_true",
                    help="replace the journal if it exists (refused without --force)")
    im.add_argument("--strict", action="store_true",
                    help="refuse a file that needs anything assumed (an unrecorded move, a "
                         "score that does not add up, a line that cannot be read) instead of "
                         "importing it with a warning for each")
    im.set_defaults(handler=run_import)

    sc = sub.add_parser("score", help="show a journal's match score, cube and games",
                        description="Replay a match journal and print the match score, the "
                                    "cube, the Crawford state and each game's result.")
    sc.add_argument("journal", type=Path, help="the match journal (.jsonl)")
    sc.set_defaults(handler=run_score)

    st = sub.add_parser("stats", help="dice statistics and a fairness test over journals",
                        description="Count every die thrown in the journals (undone rolls too, "
                                    "since they were thrown) and test the six faces for "
                                    "fairness (Pearson's chi-square, 5 degrees of freedom).")
    st.add_argument("journals", type=Path, nargs="+", help="one or more match journals (.jsonl)")
    st.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    st.set_defaults(handler=run_stats)


def _open(path: Path) -> Journal:
    if not path.exists():
        raise JournalError(f"{path}: no such journal")
    _check_journal(path)
    journal = Journal.open(path, readonly=True)
    if journal.recovery:
        print(f"pibg: {journal.recovery}", file=sys.stderr)
    return journal


#: How every journal begins: its first event's line (see :mod:`pibg.journal`).
_JOURNAL_START = re.compile(rb'\A\s*\{\s*"seq"\s*:\s*1\s*,')


def _check_journal(path: Path) -> None:
    """Refuse a file that is not a journal in one line, before reading it as one (which
    would report its first line as a corrupt or incomplete event).

    :raises JournalError: the file does not begin as a journal does.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(64)
    except OSError as exc:
        raise JournalError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if not head.strip() or _JOURNAL_START.match(head):
        return  # empty (or a torn first event): the journal's own message says so
    hint = ("a match file: `pibg import FILE -o match.jsonl` makes a journal of it"
            if path.suffix.lower() in (".mat", ".sgf")
            else "a journal is the match.jsonl that pibg run, replay and import write")
    raise JournalError(f"{path}: not a journal ({hint})")


def _date(journal: Journal, sep: str) -> str | None:
    for entry in journal.entries():
        if entry.ts:
            m = re.match(r"(\d{4})-(\d{2})-(\d{2})", entry.ts)
            if m:
                return sep.join(m.groups())
    return None


def run_export(args: argparse.Namespace) -> int:
    from pibg.matfile import dumps_mat
    from pibg.record import match_record, write_atomic
    from pibg.sgf import dumps_sgf

    with _open(args.journal) as journal:
        try:
            record = match_record(journal.events())
        except RecordError as exc:
            raise RecordError(f"{args.journal}: {exc}") from exc
        for warning in record.warnings:
            print(f"pibg export: warning: {warning}", file=sys.stderr)
        if args.format == "mat":
            text = dumps_mat(record, _date(journal, "."))
        else:
            text = dumps_sgf(record, _date(journal, "-"))
    if args.out:
        write_atomic(args.out, text)  # RecordWriteError: one line, exit 2, no temp file
        print(f"wrote {args.out} ({len(record.games)} games)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from pibg.matfile import read_mat
    from pibg.sgf import read_sgf

    out = need_out(args, "the journal")
    if not args.force:
        _refuse_existing(out)
    warnings: list[str] = []
    reader = read_sgf if args.file.suffix.lower() == ".sgf" else read_mat
    events = reader(args.file, strict=args.strict, warnings=warnings)
    for warning in warnings:
        print(f"pibg import: warning: {warning}", file=sys.stderr)
    date = _mat_date(args.file)
    state = _write_journal(out, events, date, force=args.force)
    notes = f", {len(warnings)} warnings" if warnings else ""
    print(f"{out}: {len(events)} events, {len(state.games)} games, "
          f"score {state.score[0]}-{state.score[1]}{notes}")
    return 0


def _refuse_existing(out: Path) -> None:
    """:raises JournalError: ``out`` is a journal with something in it."""
    if out.exists() and out.stat().st_size:
        raise JournalError(f"{out}: journal exists and is not empty; choose a new file, or "
                           f"--force to replace it")


def _write_journal(out: Path, events: Sequence[Event], date: str | None, *,
                   force: bool = False) -> MatchState:
    """Write the journal whole or not at all: into a temporary file beside ``out``, then
    renamed over it; on any failure (a full disk) nothing is left, and a retry starts clean.
    Without ``force`` a journal that appeared at ``out`` meanwhile is not replaced.

    :raises RecordWriteError: the folder is missing, read-only or full.
    """
    import contextlib
    import os
    import tempfile

    from pibg.exc import RecordWriteError
    from pibg.record import FILE_MODE

    folder = out.parent if str(out.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise RecordWriteError(f"{out}: cannot write the journal: {exc.strerror} (check that "
                               f"the folder {folder} exists and is writable)") from exc
    os.fchmod(fd, FILE_MODE)  # mkstemp's 0600, as Journal.open makes a journal
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with Journal.open(tmp) as journal:
            for k, ev in enumerate(events):
                journal.append(ev, ts=date if k == 0 else None)
            state = journal.replay()
        if not force:
            _refuse_existing(out)
        os.replace(tmp, out)
    except OSError as exc:
        raise RecordWriteError(f"{out}: cannot write the journal: {exc.strerror or exc}; "
                               f"nothing was written (free some space, then import again)"
                               ) from exc
    except JournalError as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else None
        if cause is None:
            raise
        raise RecordWriteError(f"{out}: cannot write the journal: {cause.strerror or cause}; "
                               f"nothing was written (free some space, then import again)"
                               ) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return state


def _mat_date(path: Path) -> str | None:
    """The ``; [EventDate "2026.11.22"]`` of a .mat file as ``2026-11-22``."""
    try:
        head = path.read_bytes()[:4096].decode("latin-1")
    except OSError:
        return None
    m = re.search(r'\[EventDate\s+"(\d{4})[.-](\d{2})[.-](\d{2})"\]', head)
    return "-".join(m.groups()) if m else None


def score_text(state: MatchState) -> str:
    s = state.settings
    lines = []
    kind = "money play" if s.money else f"{s.length}-point match"
    lines.append(f"{s.white} (white) {state.score[0]} - {state.score[1]} {s.black} (black), {kind}")
    if state.over and state.winner is not None:
        lines.append(f"match over: {state.name(state.winner)} wins")
    game = state.game
    if game is not None and game.phase is not Phase.OVER:
        cube = game.cube
        owner = "centred" if cube.owner is None else f"owned by {state.name(cube.owner)}"
        lines.append(f"game {len(state.games) + 1} in progress: cube {cube.value} {owner}, "
                     f"{state.name(game.decider)} to {_phase_word(game.phase)}")
    if s.length:
        if game is not None and game.crawford and game.phase is not Phase.OVER:
            lines.append("Crawford game: no doubling")
        elif state.post_crawford:
            lines.append("post-Crawford: doubling allowed again")
        elif state.next_game_is_crawford() and not state.over:
            lines.append("next game is the Crawford game")
    if state.games:
        lines.append("games:")
        w, b = state.start
        for k, res in enumerate(state.games, start=1):
            if res.winner is Color.WHITE:
                w += res.points
            else:
                b += res.points
            tag = " (Crawford)" if res.crawford else ""
            lines.append(f"  {k:2d}. {state.name(res.winner)} +{res.points} "
                         f"({res.termination}, cube {res.cube}){tag}  -> {w}-{b}")
    return "\n".join(lines)


def _phase_word(phase: Phase) -> str:
    return {Phase.OPENING: "roll the opening", Phase.ROLL: "double or roll",
            Phase.DOUBLED: "take or drop", Phase.MOVE: "move"}.get(phase, phase.value)


def run_score(args: argparse.Namespace) -> int:
    with _open(args.journal) as journal:
        state = journal.replay()
    print(score_text(state))
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from pibg.stats import dice_stats

    events = []
    for path in args.journals:
        with _open(path) as journal:
            events.extend(journal.events())
    print(dice_stats(events).report(alpha=args.alpha))
    return 0
