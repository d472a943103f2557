"""GNU Backgammon SGF (``GM[6]``) match files.

One game tree per game, as gnubg writes them: the root carries ``MI[length:5][game:0][ws:0]
[bs:0]`` (match length, game number from 0, White's and Black's score before the game),
``PW``/``PB`` (White = player 0, the first player of a ``.mat``), ``RU[Crawford]`` (and
``RU[Crawford:CrawfordGame]`` in the Crawford game) and ``RE[W+2]`` (``R`` appended for a
resignation). Moves are the dice then one letter pair per step, counted from White's side:
``a`` is White's 1-point (Black's 24-point), ``y`` the bar and ``z`` off. Cube actions are
``W[double]``, ``B[take]``, ``B[drop]``.

:func:`parse_sgf`/:func:`read_sgf` read such files back into match events (analysis
properties ignored, every move checked by the rules; a game whose ``RE`` names a winner the
moves have not produced ended by resignation).

>>> to_letter(8, Color.WHITE), to_letter(8, Color.BLACK), to_letter(25, Color.BLACK)
('h', 'q', 'y')
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import pibg
from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    MatchEnded,
    MatchSettings,
    MatchStarted,
    Moved,
    Noted,
    OpeningRoll,
    Resigned,
    Rolled,
    SetUp,
    Took,
)
from pibg.exc import PibgError, RecordError
from pibg.match import GameState, MatchState, Phase, apply
from pibg.moves import Dice, Play
from pibg.position import BAR, OFF, Color, Position
from pibg.record import (
    Action,
    GameRecord,
    MatchRecord,
    apply_steps,
    listed,
    match_record,
    sgf_view,
    write_atomic,
)


def to_letter(point: int, player: Color) -> str:
    """The SGF letter of ``point`` (numbered from ``player``'s side; 25 bar, 0 off)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    p = point if player is Color.WHITE else 25 - point
    return chr(ord("a") + p - 1)


def setup_props(position: Position) -> str:
    """The properties of a node setting ``position`` up: the side on roll, every point
    emptied, then each checker of the side on roll (``AW``, its points lettered as White's
    are) and of the other side (``AB``, lettered as Black's are); the bar is ``y``.

    That is how GNU Backgammon 1.07 reads such a node (the side on roll is that of the move
    before it, which pibg's ``PL`` always repeats): with White on roll, ``AW`` is White's
    checkers as gnubg writes them; with Black on roll gnubg's own files say the sides the
    other way round, and gnubg reads them back swapped.

    >>> setup_props(Position.start(Color.BLACK))[:24]
    'PL[B]AE[a:y]AW[f][f][f]['
    """
    mover, other = position.turn, position.turn.other
    out = [f"PL[{'W' if mover is Color.WHITE else 'B'}]AE[a:y]"]
    for color, key, as_color in ((mover, "AW", Color.WHITE), (other, "AB", Color.BLACK)):
        board = position.board(color)
        points = "".join(f"[{to_letter(i + 1, as_color)}]" * board[i] for i in range(25))
        if points:
            out.append(key + points)
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _node(action: Action) -> str | None:
    who = "W" if action.player is Color.WHITE else "B"
    if action.kind == "move":
        body = f"{action.dice[0]}{action.dice[1]}" + "".join(
            to_letter(m.src, action.player) + to_letter(m.dst, action.player)
            for m in action.steps)
        comment = f"C[{_escape(action.comment)}]" if action.comment else ""
        return f";{who}[{body}]{comment}"
    if action.kind == "roll":  # dice with no move recorded, as gnubg writes it
        return f";PL[{who}]DI[{action.dice[0]}{action.dice[1]}]"
    if action.kind == "setup" and action.after is not None:
        comment = f"C[{_escape(action.comment)}]" if action.comment else ""
        return f";{setup_props(action.after)}{comment}"
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
    rec = sgf_view(events if isinstance(events, MatchRecord) else match_record(events))
    return "".join(_game_tree(rec, g, date) for g in rec.games)


def write_sgf(events: Iterable[Event] | MatchRecord, out: str | os.PathLike[str] | TextIO,
              date: str | None = None) -> None:
    """Write the SGF file: atomically to a path, or to an open text handle."""
    text = dumps_sgf(events, date)
    if isinstance(out, (str, os.PathLike)):
        write_atomic(out, text)
    else:
        out.write(text)




# --- reading --------------------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z]+")


def _tokens(text: str, name: str) -> list[tuple[str, str, int]]:
    """``(kind, value, offset)`` tokens: ``(``, ``)``, ``;``, and ``prop`` with ``IDENT`` then
    ``val`` per bracketed value (escapes resolved)."""
    out: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "();":
            out.append((c, c, i))
            i += 1
        elif c.isspace():
            i += 1
        elif c.isalpha():
            m = _IDENT.match(text, i)
            assert m is not None
            out.append(("prop", m.group(0), i))
            i = m.end()
            while True:
                while i < n and text[i].isspace():
                    i += 1
                if i >= n or text[i] != "[":
                    break
                start = i
                i += 1
                buf = []
                while i < n and text[i] != "]":
                    if text[i] == "\\" and i + 1 < n:
                        i += 1
                    buf.append(text[i])
                    i += 1
                if i >= n:
                    line = text.count("\n", 0, start) + 1
                    raise RecordError(f"{name}: line {line}: unterminated property value "
                                      f"(expected ']')")
                out.append(("val", "".join(buf), start))
                i += 1
        else:
            line = text.count("\n", 0, i) + 1
            raise RecordError(f"{name}: line {line}: unexpected {c!r}: expected '(', ';', ')' "
                              f"or a property like W[31hefe]")
    return out


def _parse_trees(text: str, name: str) -> list[list[tuple[dict[str, list[str]], int]]]:
    """Game trees as lists of nodes (properties, offset); variations are not supported."""
    trees: list[list[tuple[dict[str, list[str]], int]]] = []
    depth = 0
    current: list[tuple[dict[str, list[str]], int]] | None = None
    prop = ""
    for kind, value, off in _tokens(text, name):
        if kind == "(":
            depth += 1
            if depth > 1:
                line = text.count("\n", 0, off) + 1
                raise RecordError(f"{name}: line {line}: SGF variations are not supported "
                                  f"(expected one line of play per game)")
            current = []
            trees.append(current)
        elif kind == ")":
            depth -= 1
            current = None
        elif kind == ";":
            if current is None:
                line = text.count("\n", 0, off) + 1
                raise RecordError(f"{name}: line {line}: node outside a game tree")
            current.append(({}, off))
        elif kind == "prop":
            prop = value.upper()
            if current is None or not current:
                line = text.count("\n", 0, off) + 1
                raise RecordError(f"{name}: line {line}: property {value} outside a node")
            current[-1][0].setdefault(prop, [])
        else:  # val
            assert current
            current[-1][0].setdefault(prop, []).append(value)
    return trees


def _span(value: str) -> range:
    """The points of an ``AE``/``AW``/``AB`` value as indices from White's side (0-23, the
    bar 24): one letter, or a range ``a:y`` (both ends in)."""
    lo, _, hi = value.strip().partition(":")
    hi = hi or lo
    if len(lo) != 1 or len(hi) != 1 or not "a" <= lo <= hi <= "y":
        raise ValueError(f"bad point {value!r}: expected a letter a-y or a range like a:y")
    return range(ord(lo) - ord("a"), ord(hi) - ord("a") + 1)


def _point(letter: str, player: Color) -> int:
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    if not "a" <= letter <= "x":
        raise ValueError(f"bad point letter {letter!r}: expected a-x, y (bar), z (off)")
    p = ord(letter) - ord("a") + 1
    return p if player is Color.WHITE else 25 - p


class _SgfReader:
    def __init__(self, text: str, name: str, strict: bool = True) -> None:
        self.text = text
        self.name = name
        self.events: list[Event] = []
        self.state: MatchState | None = None
        self.strict = strict
        self.warnings: list[str] = []
        #: where dice with no move were read (``PL[W]DI[11]``), until what follows says more
        self.pending: int | None = None

    def fail(self, off: int, what: str) -> RecordError:
        return RecordError(f"{self.name}: line {self.text.count(chr(10), 0, off) + 1}: {what}")

    def emit(self, ev: Event, off: int) -> None:
        assert self.state is not None
        try:
            self.state = apply(self.state, ev)
        except PibgError as exc:
            raise self.fail(off, f"{ev.kind} does not fit the match: {exc}") from exc
        self.events.append(ev)

    @property
    def game(self) -> GameState:
        assert self.state is not None and self.state.game is not None
        return self.state.game

    def over(self) -> bool:
        return self.game.phase is Phase.OVER

    def start(self, root: dict[str, list[str]], off: int) -> None:
        if root.get("GM", ["6"])[0] != "6":
            raise self.fail(off, f"GM[{root['GM'][0]}] is not backgammon: expected GM[6]")
        mi = {k: v for k, _, v in (x.partition(":") for x in root.get("MI", []))}
        try:
            length = int(mi.get("length", "0"))
            ws, bs = int(mi.get("ws", "0")), int(mi.get("bs", "0"))
        except ValueError as exc:
            raise self.fail(off, "MI needs numbers: MI[length:5][game:0][ws:0][bs:0]") from exc
        rules = ":".join(root.get("RU", []))
        if self.state is None:
            try:
                settings = MatchSettings(
                    length=length, white=root.get("PW", ["White"])[0],
                    black=root.get("PB", ["Black"])[0],
                    crawford=length <= 1 or "Crawford" in rules,
                    jacoby=length == 0 and "Jacoby" in rules)
            except ValueError as exc:
                raise self.fail(off, str(exc)) from exc
            self.state = MatchState.new(settings)
            self.emit(MatchStarted(settings), off)
        if (ws, bs) != self.state.score:
            raise self.fail(off, f"MI says the score is {ws}-{bs}, the games before give "
                                 f"{self.state.score[0]}-{self.state.score[1]}")
        self.emit(GameStarted(), off)

    def roll_only(self, player: Color, value: str, first: bool, off: int) -> None:
        """``PL[W]DI[11]``: dice with no move (gnubg writes a roll so when the player resigned
        before moving, or the move was never recorded)."""
        m = re.fullmatch(r"\s*([1-6])([1-6])\s*", value)
        if not m:
            raise self.fail(off, f"DI[{value}]: expected two dice like DI[31]")
        d1, d2 = int(m.group(1)), int(m.group(2))
        if first:
            if d1 == d2:
                raise self.fail(off, f"opening roll {d1}{d2} is a double: expected two "
                                     f"different dice")
            hi, lo = max(d1, d2), min(d1, d2)
            self.emit(OpeningRoll(white=hi if player is Color.WHITE else lo,
                                  black=lo if player is Color.WHITE else hi), off)
        else:
            self.emit(Rolled(player, Dice(max(d1, d2), min(d1, d2))), off)
        self.pending = off

    def setup(self, props: dict[str, list[str]], off: int) -> None:
        """``PL[B]AE[a:y]AW[..]AB[..]``: a board set up during a game (gnubg writes one set by
        hand so; pibg one the players went on from that no legal play leads to)."""
        self.settle()
        if self.over():
            raise self.fail(off, "a board set up after the game ended")
        pos = self.game.position
        boards = {Color.WHITE: list(pos.white), Color.BLACK: list(pos.black)}
        try:
            who = (props.get("PL") or [""])[0].strip().upper()
            turn = Color.WHITE if who == "W" else Color.BLACK if who == "B" else pos.turn
            for value in props.get("AE", []):
                for i in _span(value):  # a point from White's side (24: the bar)
                    boards[Color.WHITE][i] = 0
                    boards[Color.BLACK][i if i == 24 else 23 - i] = 0
            # AW: the side on roll's checkers, AB the other's (see setup_props)
            for key, color, as_color in (("AW", turn, Color.WHITE),
                                         ("AB", turn.other, Color.BLACK)):
                for value in props.get(key, []):
                    for i in _span(value):
                        point = _point(chr(ord("a") + i), as_color)
                        if point != OFF:
                            boards[color][point - 1] += 1
            board = Position(tuple(boards[Color.WHITE]), tuple(boards[Color.BLACK]), turn)
        except (ValueError, PibgError) as exc:
            raise self.fail(off, f"a board set up (AE/AW/AB): {exc}") from exc
        self.emit(SetUp(board), off)

    def settle(self) -> None:
        """Dice with no move, followed by a move of the other player: the turn passed with the
        board as it was (as gnubg reads it)."""
        if self.pending is None:
            return
        off, self.pending = self.pending, None
        game = self.game
        assert game.dice is not None
        line = self.text.count(chr(10), 0, off) + 1
        what = (f"{game.turn.label} rolled {game.dice.high}{game.dice.low} and no move was "
                f"recorded: the board is left as it was")
        if self.strict:
            raise self.fail(off, f"{what} (not allowed with strict reading)")
        self.warnings.append(f"{self.name}: line {line}: {what}")
        self.events.append(Noted(f"line {line}: {what}"))
        self.emit(Moved(game.turn, Dice(game.dice.high, game.dice.low),
                        Play((), (), game.position), illegal=True), off)

    def action(self, player: Color, value: str, first: bool, off: int,
               comment: str = "") -> None:
        from pibg.record import DICE_NOT_SEEN, IN_DOUBT, REVIEWED, resolve_any_order

        self.settle()

        v = value.strip().lower()
        if v in ("double", "take", "drop", "beaver"):
            cls = {"double": Doubled, "take": Took, "drop": Dropped, "beaver": Beavered}[v]
            self.emit(cls(player), off)
            return
        key = "W" if player is Color.WHITE else "B"
        m = re.fullmatch(r"([1-6])([1-6])([a-z]*)", v)
        if not m or len(m.group(3)) % 2 or len(m.group(3)) > 8:
            raise self.fail(off, f"{key}[{value}]: expected dice and point pairs like "
                                 f"W[31hefe], or double/take/drop")
        d1, d2 = int(m.group(1)), int(m.group(2))
        dice = Dice(max(d1, d2), min(d1, d2))
        letters = m.group(3)
        try:
            steps = [(_point(letters[i], player), _point(letters[i + 1], player))
                     for i in range(0, len(letters), 2)]
        except ValueError as exc:
            raise self.fail(off, f"{key}[{value}]: {exc}") from exc
        done = apply_steps(self.game.position.with_turn(player), steps) if steps else None
        hits = done[1] if done else [False] * len(steps)
        text = " ".join(f"{a}/{b}{'*' if h else ''}" for (a, b), h in zip(steps, hits,
                                                                         strict=True))
        if first:
            if d1 == d2:
                raise self.fail(off, f"opening roll {d1}{d2} is a double: expected two "
                                     f"different dice")
            hi, lo = dice.high, dice.low
            self.emit(OpeningRoll(white=hi if player is Color.WHITE else lo,
                                  black=lo if player is Color.WHITE else hi), off)
        else:
            self.emit(Rolled(player, dice), off)
        try:
            play = resolve_any_order(self.game.position, dice, text)
        except PibgError as exc:
            raise self.fail(off, f"{player.label} {dice}: {text or '(no move)'}: {exc}"
                            ) from exc
        lines = comment.splitlines()
        flag = next((x[len(IN_DOUBT):] for x in lines if x.startswith(IN_DOUBT)), "")
        # "dice set after the game by a reviewer: 3-1; recorded at the table as ..."
        reviewed = next((x[len(REVIEWED):].partition("; ")[2] or "set after the game"
                         for x in lines if x.startswith(REVIEWED)), "")
        # the steps as the file lists them, where they can be played so; the text is the
        # journal's (it has always kept an .sgf's steps so)
        as_listed = listed(self.game.position, dice, steps, play.result)
        assert as_listed is not None, "a legal play leads there"
        self.emit(Moved(player, dice, as_listed, dice_seen=DICE_NOT_SEEN not in lines,
                        flag=flag, reviewed=reviewed, written=text), off)

    def finish(self, root: dict[str, list[str]], off: int) -> None:
        res = root.get("RE", [""])[0].strip()
        m = re.fullmatch(r"([WB])\+(\d+)(R?)", res) if res else None
        if not m or self.over():
            self.settle()
        self.pending = None  # a resignation follows the dice
        if res and not m:
            raise self.fail(off, f"RE[{res}]: expected like RE[W+2] or RE[B+4R]")
        if m and not self.over():
            winner = Color.WHITE if m.group(1) == "W" else Color.BLACK
            cube = self.game.cube.value
            points = int(m.group(2))
            if points % cube or not 1 <= points // cube <= 3:
                raise self.fail(off, f"RE[{res}] with the cube at {cube}: a resignation "
                                     f"scores 1, 2 or 3 times the cube")
            self.emit(Resigned(winner.other, points // cube), off)
        if self.over():
            result = self.game.result
            assert result is not None
            if m and (int(m.group(2)) != result.points
                      or (m.group(1) == "W") != (result.winner is Color.WHITE)):
                raise self.fail(off, f"RE[{res}]: the moves give {result.winner.label} "
                                     f"{result.points}")
            self.events.append(GameEnded(result.winner, result.points, result.termination))


def parse_sgf(text: str, name: str = "<sgf>", *, strict: bool = True,
              warnings: list[str] | None = None) -> list[Event]:
    """Parse gnubg SGF (``GM[6]``) into match events; every move is checked by the rules.

    Analysis properties are ignored. A game whose ``RE`` names a winner the moves have not
    produced ended by resignation (as gnubg writes it, ``RE[B+4R]``).

    :raises RecordError: malformed file, an illegal move, or a cube action the rules forbid
        (file, line and what was expected).
    """
    r = _SgfReader(text, name, strict)
    trees = _parse_trees(text, name)
    if not trees:
        raise RecordError(f"{name}: line 1: no game tree found (expected '(;FF[4]GM[6]...')")
    for tree in trees:
        if not tree:
            continue
        root, off = tree[0]
        r.start(root, off)
        first = True
        for props, noff in tree[1:]:
            if {"AE", "AW", "AB"} & props.keys():
                r.setup(props, noff)
                first = False
                continue
            if "DI" in props and props["DI"] and not ("W" in props or "B" in props):
                if r.over():
                    raise r.fail(noff, f"DI[{props['DI'][0]}] after the game ended")
                r.settle()
                who = (props.get("PL") or [""])[0].strip().upper()
                player = (Color.WHITE if who == "W" else Color.BLACK if who == "B"
                          else r.game.turn)
                r.roll_only(player, props["DI"][0], first, noff)
                first = False
            for key in ("W", "B"):
                if key not in props:
                    continue
                value = props[key][0] if props[key] else ""
                if r.over():
                    raise r.fail(noff, f"{key}[{value}] after the game ended")
                r.action(Color.WHITE if key == "W" else Color.BLACK, value, first, noff,
                         "\n".join(props.get("C", [])))
                first = False
        r.finish(root, off)
    assert r.state is not None
    if r.state.over and r.state.winner is not None:
        r.events.append(MatchEnded(r.state.winner, r.state.score))
    if warnings is not None:
        warnings.extend(r.warnings)
    return r.events


def read_sgf(path: str | os.PathLike[str], *, strict: bool = True,
             warnings: list[str] | None = None) -> list[Event]:
    """Read a gnubg SGF file into match events (see :func:`parse_sgf`)."""
    from pibg.record import decode_text

    p = Path(path)
    try:
        text = decode_text(p.read_bytes())
    except OSError as exc:
        raise RecordError(f"{p}: cannot read: {exc.strerror}") from exc
    return parse_sgf(text, str(p), strict=strict, warnings=warnings)


__all__ = ["dumps_sgf", "parse_sgf", "read_sgf", "to_letter", "write_sgf"]
