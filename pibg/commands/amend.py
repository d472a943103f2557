"""``pibg amend``: set the dice of a turn committed in doubt, once its game is over.

    pibg amend match.jsonl                                   # the turns in doubt
    pibg amend match.jsonl --game 2 --move 7 --dice 31       # set them

Several throws can make the same board (3-1 and 1-1 both play 8/5 6/5); where the camera
did not see the dice, the referee recorded one of them and flagged the turn. A reviewer (or
a club director with the journal) sets the dice really thrown: an ``amend`` event appended
to the journal, nothing rewritten. The ``match.mat`` and ``match.sgf`` beside the journal
are written again with the dice set.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import re
import sys
from pathlib import Path
from typing import Any

from pibg.events import Amended
from pibg.exc import InvalidDiceError, JournalError, PibgError
from pibg.journal import Journal
from pibg.match import amendment_text, check_amendment, turns_in_doubt
from pibg.moves import Dice


def register(sub: Any) -> None:
    am = sub.add_parser(
        "amend", help="set the dice of a turn in doubt after its game (or list such turns)",
        description="Where several throws make the same board and the camera did not see the "
                    "dice, the referee recorded one of them and flagged the turn. Once the "
                    "game is over, set the dice really thrown: the journal gets an 'amend' "
                    "event (nothing recorded is rewritten) and the match.mat and match.sgf "
                    "beside it are written again. Without --game, --move and --dice, lists "
                    "the turns in doubt of the games that have ended, with the throws that "
                    "make the same board.")
    am.add_argument("journal", type=Path, help="the match journal (.jsonl)")
    am.add_argument("--game", type=int, default=None, metavar="G",
                    help="the game, numbered from 1")
    am.add_argument("--move", type=int, default=None, metavar="M",
                    help="the play in that game, numbered from 1 with both sides' plays "
                         "counted (as the listing and the live page's move list number them)")
    am.add_argument("--dice", default=None, metavar="AB",
                    help="the dice really thrown, like 31 or 3-1: one of the throws listed "
                         "for that turn")
    am.add_argument("--note", default="", help="why, for the record (the .sgf comment keeps it)")
    am.set_defaults(handler=run_amend)


def parse_dice(text: str) -> Dice:
    """``31``, ``3-1``, ``3,1`` or ``3 1`` as dice.

    :raises InvalidDiceError: anything else, or a die outside 1-6.
    """
    m = re.fullmatch(r"\s*(\d)\s*[-,/ ]?\s*(\d)\s*", text)
    if m is None:
        raise InvalidDiceError(f"--dice {text!r}: expected two dice 1-6, like 31 or 3-1")
    a, b = int(m.group(1)), int(m.group(2))
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise InvalidDiceError(f"--dice {text!r}: a die shows 1-6")
    return Dice(a, b)


def _open(path: Path) -> Journal:
    if not path.is_file():
        raise JournalError(f"{path}: no such journal (the match.jsonl that pibg run, replay "
                           f"and import write)")
    try:
        journal = Journal.open(path, create=False)
    except JournalError as exc:
        if "in use" in str(exc):
            raise JournalError(f"{exc}; while pibg run records this match, set the dice on "
                               f"its live page") from exc
        raise
    if journal.recovery:
        print(f"pibg amend: {journal.recovery}", file=sys.stderr)
    return journal


def run_amend(args: argparse.Namespace) -> int:
    given = [args.game is not None, args.move is not None, args.dice is not None]
    if any(given) and not all(given):
        raise PibgError("give --game, --move and --dice together (or none of them, to list "
                        "the turns in doubt)")
    if not any(given):
        with _open(args.journal) as journal:
            journal.replay()  # a journal that does not replay says so first
            listed = turns_in_doubt(journal.events())
        print(listing(args.journal, listed))
        return 0
    if args.game < 1 or args.move < 1:
        raise PibgError("--game and --move are numbered from 1")
    amended = Amended(args.game, args.move, parse_dice(args.dice), " ".join(args.note.split()))
    with _open(args.journal) as journal:
        journal.replay()
        turn = check_amendment(journal.events(), amended)
        journal.append(amended, _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
        events = journal.events()
    print(amendment_text(turn, amended))
    for line in _write_records(args.journal, events):
        print(line)
    return 0


def listing(path: Path, listed: list[Any]) -> str:
    """The turns in doubt, one a line with the throws that make its board, and how to set
    one."""
    if not listed:
        return "no turn in doubt in the games that have ended"
    lines = []
    for turn, throws in listed:
        m = turn.moved
        unseen = "" if m.dice_seen or "dice not seen" in m.flag else "dice not seen"
        why = [x for x in (unseen, m.flag,
                           f"set after the game ({m.reviewed})" if m.reviewed else "") if x]
        lines.append(f"{turn.describe()}  [{'; '.join(why)}]")
        lines.append("    throws that make the same board: " + (
            ", ".join(f"{d.high}{d.low}" for d in throws) if throws
            else "none (no legal play leads there: it stands as recorded)"))
    turn = listed[0][0]
    lines.append(f"set one: pibg amend {path} --game {turn.game} --move {turn.move} "
                 f"--dice AB")
    return "\n".join(lines)


def _write_records(journal: Path, events: list[Any]) -> list[str]:
    """Write again the ``match.mat`` and ``match.sgf`` found beside the journal (as pibg run
    and replay leave them); what was written, or why not."""
    from pibg.matfile import write_mat
    from pibg.sgf import write_sgf

    out = []
    for name, write in (("match.mat", write_mat), ("match.sgf", write_sgf)):
        path = journal.parent / name
        if not path.exists():
            continue
        try:
            write(events, path)
        except (OSError, PibgError) as exc:
            out.append(f"{path}: not written again ({exc}); pibg export writes it from the "
                       f"journal")
            continue
        out.append(f"wrote {path}")
    if not out:
        out.append(f"the records: pibg export {journal} --format mat|sgf")
    return out
