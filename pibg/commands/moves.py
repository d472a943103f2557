"""``pibg moves``: the legal plays of a position and roll (one-off or as a JSON Lines batch)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pibg.exc import PibgError
from pibg.moves import Dice
from pibg.position import Position
from pibg.rules import legal_plays


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "moves",
        help="list the legal plays for a Position ID and a roll",
        description="List every legal play (once per resulting position), as GNU Backgammon "
        "does. With --batch, read JSON lines {\"position_id\": ..., \"dice\": [d1, d2]} on "
        "stdin and write one {\"plays\": [...]} line each.",
    )
    p.add_argument("position_id", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("dice", nargs="*", help="the two dice, e.g. 3 1")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--batch", action="store_true", help="JSON lines on stdin, one answer a line")
    p.set_defaults(handler=run)


#: the longest batch line read (a request is about 60 bytes); longer ones are an error line
MAX_LINE = 64 * 1024
#: how much of a bad input an error line quotes
ECHO = 60


def _echo(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= ECHO else f"{text[:ECHO]}... ({len(text)} characters)"


def plays_json(position_id: str, dice: Any) -> dict[str, Any]:
    """The ``{"plays": [...]}`` answer: each play's notation and resulting Position ID, the
    mover still on roll. Raises PibgError on bad input: ``dice`` must be two integers 1-6
    (not ``true``, not ``3.5``)."""
    if not isinstance(position_id, str) or len(position_id) > 40:
        raise PibgError(f"position_id must be a gnubg Position ID string, got "
                        f"{_echo(position_id)}")
    if not (isinstance(dice, (list, tuple)) and len(dice) == 2 and
            all(type(d) is int and 1 <= d <= 6 for d in dice)):
        raise PibgError(f"dice must be a list of two integers 1-6, got {_echo(dice)}")
    pos = Position.from_id(position_id)
    plays = legal_plays(pos, Dice.of(dice))
    out = [{"play": str(p), "position_id": p.result.position_id()} for p in plays]
    out.sort(key=lambda d: d["position_id"])
    return {"plays": out}


def _parse_dice(args: list[str]) -> list[int]:
    if len(args) == 1 and len(args[0]) == 2 and args[0].isdigit():
        args = list(args[0])
    if len(args) != 2:
        raise PibgError(f"need two dice like '3 1', got {' '.join(args) or 'none'}")
    try:
        return [int(a) for a in args]
    except ValueError:
        raise PibgError(f"dice must be numbers 1-6, got {' '.join(args)!r}") from None


def run(args: argparse.Namespace) -> int:
    if args.batch:
        return _batch()
    if not args.position_id:
        raise PibgError("give a Position ID and two dice, e.g. 'pibg moves 4HPwATDgc/ABMA 3 1'")
    answer = plays_json(args.position_id, _parse_dice(args.dice))
    if args.json:
        print(json.dumps(answer))
        return 0
    pos = Position.from_id(args.position_id)
    print(pos.ascii())
    if not answer["plays"]:
        print("no legal play: the turn passes")
    for item in answer["plays"]:
        print(f"{item['play']:<28} {item['position_id']}")
    return 0


def _lines(stream: Any) -> Any:
    """``(line, None)`` for each line of a stream (binary, or text when it has no buffer), or
    ``(None, length)`` for a line over :data:`MAX_LINE` (read through without keeping it)."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) <= MAX_LINE or line[-1:] in (b"\n", "\n"):
            yield line, None
            continue
        n = len(line)
        while line and line[-1:] not in (b"\n", "\n"):
            line = stream.readline(MAX_LINE)
            n += len(line)
        yield None, n


def _batch() -> int:
    """Answer each line, in order: a bad line gets an error line, never ends the batch."""
    out = sys.stdout
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    for lineno, (raw, length) in enumerate(_lines(stdin), 1):
        if raw is None:
            answer: dict[str, Any] = {
                "error": f"line {lineno}: too long ({length} bytes; at most {MAX_LINE})"}
        elif not raw.strip():
            continue
        else:
            answer = _answer(raw, lineno)
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


def _answer(raw: bytes | str, lineno: int) -> dict[str, Any]:
    try:
        req = json.loads(raw)
        if not isinstance(req, dict):
            raise PibgError("expected a JSON object")
        return plays_json(req.get("position_id", ""), req.get("dice"))
    except json.JSONDecodeError as exc:
        return {"error": f"line {lineno}: not JSON: {exc.msg}"}
    except (UnicodeDecodeError, RecursionError):
        return {"error": f"line {lineno}: not JSON (not UTF-8, or nested too deeply)"}
    except PibgError as exc:
        return {"error": f"line {lineno}: {exc}"}
