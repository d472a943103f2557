"""GNU Backgammon SGF (``GM[6]``) match files.

One game tree per game, as gnubg writes them: the root carries ``MI[length:5][game:0][ws:0]
[bs:0]`` (match length, game number from 0, White's and Black's score before the game),
``PW``/``PB`` (White = player 0, the first player of a ``.mat``), ``RU[Crawford]`` (and
``RU[Crawford:CrawfordGame]`` in the Crawford game) and ``RE[W+2]`` (``R`` appended for a
resignation). Moves are the dice then one letter pair per step, counted from White's side:
``a`` is White's 1-point (Black's 24-point), ``y`` the bar and ``z`` off. Cube actions are
``W[double]``, ``B[take]``, ``B[drop]``.

>>> to_letter(8, Color.WHITE), to_letter(8, Color.BLACK), to_letter(25, Color.BLACK)
('h', 'q', 'y')
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TextIO

import pibg
from pibg.events import Event
from pibg.matfile import Action, GameRecord, MatchRecord, match_record, write_atomic
from pibg.position import BAR, OFF, Color


def to_letter(point: int, player: Color) -> str:
    """The SGF letter of ``point`` (numbered from ``player``'s side; 25 bar, 0 off)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    p = point if player is Color.WHITE else 25 - point
    return chr(ord("a") + p - 1)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _node(action: Action) -> str | None:
    who = "W" if action.player is Color.WHITE else "B"
    if action.kind == "move":
        body = f"{action.dice[0]}{action.dice[1]}" + "".join(
            to_letter(m.src, action.player) + to_letter(m.dst, action.player)
            for m in action.steps)
        return f";{who}[{body}]"
    if action.kind in ("double", "take", "drop", "beaver"):
        return f";{who}[{action.kind}]"
    return None  # resign: in RE[...R]


def _game_tree(rec: MatchRecord, game: GameRecord, date: str | None) -> str:
    s = rec.settings
    props = [
        "FF[4]", "GM[6]", "CA[UTF-8]", f"AP[pibg:{_version()}]",
        f"MI[length:{s.length}][game:{game.number - 1}][ws:{game.score[0]}][bs:{game.score[1]}]",
        f"PW[{_escape(s.white)}]", f"PB[{_escape(s.black)}]",
    ]
    if date and game.number == 1:
        props.append(f"DT[{date}]")
    rules = []
    if s.length > 1 and s.crawford:  # gnubg writes no Crawford rule for 1-point matches
        rules.append("Crawford:CrawfordGame" if game.crawford else "Crawford")
    if s.money and s.jacoby:
        rules.append("Jacoby")
    if rules:
        props.append(f"RU[{':'.join(rules)}]")
    res = game.result
    if res is not None:
        side = "W" if res.winner is Color.WHITE else "B"
        props.append(f"RE[{side}+{res.points}{'R' if res.termination == 'resign' else ''}]")
    nodes = [n for n in (_node(a) for a in game.actions) if n]
    return "(;" + "".join(props) + "".join("\n" + n for n in nodes) + ")\n"


def _version() -> str:
    return getattr(pibg, "__version__", "0.1.0")


def dumps_sgf(events: Iterable[Event] | MatchRecord, date: str | None = None) -> str:
    """The SGF text of a match. ``date`` (``"2026-11-22"``) goes in the first game's ``DT``."""
    rec = events if isinstance(events, MatchRecord) else match_record(events)
    return "".join(_game_tree(rec, g, date) for g in rec.games)


def write_sgf(events: Iterable[Event] | MatchRecord, out: str | os.PathLike[str] | TextIO,
              date: str | None = None) -> None:
    """Write the SGF file: atomically to a path, or to an open text handle."""
    text = dumps_sgf(events, date)
    if isinstance(out, (str, os.PathLike)):
        write_atomic(out, text)
    else:
        out.write(text)


__all__ = ["dumps_sgf", "to_letter", "write_sgf"]
