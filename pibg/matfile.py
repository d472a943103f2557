"""Jellyfish ``.mat`` match files, in the dialect GNU Backgammon writes and reads.

Writing (:func:`dumps_mat`, :func:`write_mat`) reproduces gnubg's own export byte for byte:
``N point match`` (0 for money play), ``Game k`` with the score line (White, the first player,
on the left), numbered rows with one cell per player (28 columns for the left one), each move
as its dice then one step per die (``24/21 21/15``; bar 25, off 0, ``*`` after a hit),
`` Doubles => 2``, `` Takes``, `` Drops`` and `` Wins N point(s)``. A game that ends without
a bear-off or a drop is a resignation (the format has no other marker, and gnubg reads it so).

Reading (:func:`read_mat`, :func:`parse_mat`) accepts gnubg's, Jellyfish's and eXtreme
Gammon's variants (comment lines, CRLF, tabs, ``Wins 2 points and the match``), resolves every
move with :func:`pibg.rules.resolve` (so illegal moves are refused) and returns the match
events a journal holds. A malformed file raises :class:`~pibg.exc.RecordError` naming the
file, the line and what was expected.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

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
    OpeningRoll,
    Resigned,
    Rolled,
    SetUp,
    Took,
)
from pibg.exc import PibgError, RecordError
from pibg.match import GameResult, MatchState, Phase, apply, effective_events
from pibg.moves import Dice, Move, Play, parse_moves
from pibg.position import OFF, Color, Position
from pibg.rules import legal_plays, resolve

LEFT_WIDTH = 28  # gnubg writes the left (White) cell as 27 columns and a space
_SCORE_WIDTH = 32

# --- a match as a list of games and actions (shared with pibg.sgf) ---------------------------


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a player did: a move (``dice``, single ``steps`` with ``hits``), or a cube
    action (``double`` with the new ``value``; ``take``, ``drop``, ``beaver``), or ``resign``
    (``value`` = 1, 2 or 3 times the cube). ``before`` is the position before it, the actor
    on roll (cube actions: the doubler on roll)."""

    kind: str
    player: Color
    before: Position
    dice: tuple[int, int] = (0, 0)
    steps: tuple[Move, ...] = ()
    hits: tuple[bool, ...] = ()
    value: int = 0
    after: Position | None = None


@dataclass(slots=True)
class GameRecord:
    number: int
    score: tuple[int, int]
    crawford: bool
    start: Position
    actions: list[Action] = field(default_factory=list)
    result: GameResult | None = None


@dataclass(slots=True)
class MatchRecord:
    settings: MatchSettings
    games: list[GameRecord]
    final: MatchState
    #: what the file formats cannot say (a resync, a set-up start, a condoned illegal play...)
    warnings: list[str] = field(default_factory=list)


def apply_steps(pos: Position, steps: Sequence[tuple[int, int]], dice: Dice | None = None
                ) -> tuple[Position, list[bool]] | None:
    """Play single steps (mover's side) in order; ``None`` if one cannot be played there.

    Without ``dice`` only the board is checked (a checker to move, no made point to land
    on). With ``dice`` each step must also use a die still unused, and the order must be
    playable: the bar first, bearing off only with every checker home and, with a die larger
    than the point, none on a higher point.
    """
    me = list(pos.mover)
    opp = list(pos.opponent)
    left = list(dice.steps) if dice is not None else []
    hits = []
    for src, dst in steps:
        s = src - 1
        if not 0 <= s <= 24 or me[s] == 0 or dst >= src:
            return None
        if dice is not None:
            dist = src - dst
            if me[24] and s != 24:
                return None
            if dist in left:
                left.remove(dist)
            elif dst == OFF and any(x > dist for x in left):
                left.remove(min(x for x in left if x > dist))
                if any(me[i] for i in range(s + 1, 6)):
                    return None
            else:
                return None
            if dst == OFF and any(me[i] for i in range(6, 25)):
                return None
        me[s] -= 1
        hit = False
        if dst != OFF:
            t = dst - 1
            if opp[23 - t] >= 2:
                return None
            if opp[23 - t] == 1:
                opp[23 - t] = 0
                opp[24] += 1
                hit = True
            me[t] += 1
        hits.append(hit)
    result = Position.from_boards(me, opp, pos.turn)
    return result, hits


def play_steps(before: Position, dice: tuple[int, int], text: str, after: Position
               ) -> tuple[tuple[Move, ...], tuple[bool, ...]]:
    """The single steps of a recorded play: as written when the text is one step per die in
    a playable order (as ``.mat`` files are), else in an order the rules engine finds."""
    try:
        segments = parse_moves(text)
    except PibgError:
        segments = ()
    d = Dice.of(dice)
    if segments:
        done = apply_steps(before, segments, d)
        if done is not None and done[0] == after:
            return tuple(Move(s, t) for s, t in segments), tuple(done[1])
    for play in legal_plays(before, d):
        if play.result == after:
            return play.moves, play.hits
    # a condoned illegal play: keep the written hops as they are
    done = apply_steps(before, segments) if segments else None
    hits = tuple(done[1]) if done else tuple(False for _ in segments)
    return tuple(Move(s, t) for s, t in segments), hits


def resolve_any_order(before: Position, dice: Dice | tuple[int, int], text: str) -> Play:
    """:func:`pibg.rules.resolve`, but also accepting the steps of a legal play written in an
    order that cannot be played (some programs sort them); the first error is raised."""
    try:
        return resolve(before, dice, text)
    except PibgError as first:
        try:
            segments = parse_moves(text)
        except PibgError:
            raise first from None
        if len(segments) < 2:
            raise
        for perm in itertools.permutations(segments):
            try:
                return resolve(before, dice, " ".join(f"{a}/{b}" for a, b in perm))
            except PibgError:
                continue
        raise


def match_record(events: Iterable[Event]) -> MatchRecord:
    """Fold events (honouring undo) into games and actions, ready for a writer.

    :raises RecordError: the events do not form a match.
    """
    evs = effective_events(events)
    if not evs or not isinstance(evs[0], MatchStarted):
        raise RecordError("a match record starts with a match_start event")
    state = MatchState.new(evs[0].settings)
    games: list[GameRecord] = []
    warnings: list[str] = []
    s = state.settings
    if s.length > 1 and not s.crawford:
        warnings.append("the match is played without the Crawford rule: SGF says so (no "
                        "RU[Crawford]), a .mat cannot, and gnubg assumes it")
    if s.money and s.jacoby:
        warnings.append("Jacoby rule on: SGF says so (RU[Jacoby]), a .mat cannot; set gnubg's "
                        "'set jacoby on' before importing it")
    for i, ev in enumerate(evs):
        before = state.game
        _warn_unwritable(ev, i, len(games), warnings)
        try:
            if isinstance(ev, GameEnded):
                continue
            state = apply(state, ev)
        except PibgError as exc:
            raise RecordError(f"event {i + 1} ({ev.kind}): {exc}") from exc
        game = state.game
        if (isinstance(ev, OpeningRoll) and before is not None and game is not None
                and game.cube.value != before.cube.value):
            warnings.append(f"event {i + 1} (game {len(games)}): an automatic double on a tied "
                            f"opening roll; the files cannot say so (the cube value is lost)")
        if isinstance(ev, GameStarted):
            assert game is not None
            games.append(GameRecord(len(games) + 1, state.score, game.crawford, game.position))
            continue
        if not games or before is None or game is None:
            continue
        rec = games[-1]
        if isinstance(ev, Moved):
            player = before.turn
            after = Position.from_id(ev.position_id, player) if ev.position_id else before.position
            dice = (max(ev.dice), min(ev.dice))
            steps, hits = play_steps(before.position, dice, ev.play, after)
            rec.actions.append(Action("move", player, before.position, dice, steps, hits,
                                      after=after))
        elif isinstance(ev, Doubled):
            rec.actions.append(Action("double", before.turn, before.position,
                                      value=before.cube.value * 2))
        elif isinstance(ev, (Took, Dropped, Beavered)):
            rec.actions.append(Action(ev.kind, before.turn.other, before.position,
                                      value=game.cube.value))
        elif isinstance(ev, Resigned):
            rec.actions.append(Action("resign", Color[ev.player.upper()], before.position,
                                      value=ev.multiplier))
        if game.result is not None and rec.result is None:
            rec.result = game.result
    return MatchRecord(state.settings, games, state, warnings)


def _warn_unwritable(ev: Event, index: int, games: int, warnings: list[str]) -> None:
    where = f"event {index + 1} (game {max(games, 1)})"
    if isinstance(ev, GameStarted) and ev.position_id and (
            ev.position_id != Position.start().position_id() or ev.turn != "white"):
        warnings.append(f"{where}: game {games + 1} starts from a set-up position; .mat and "
                        f"SGF files start every game from the opening position")
    elif isinstance(ev, SetUp):
        warnings.append(f"{where}: the board was resynced to {ev.position_id}; the files "
                        f"cannot say so, and the moves after it will not follow in gnubg")
    elif isinstance(ev, Moved) and ev.illegal:
        warnings.append(f"{where}: {ev.player}'s condoned illegal play {ev.play!r} is written "
                        f"as played; gnubg does not check it, pibg's import will refuse it")
    elif isinstance(ev, Beavered):
        warnings.append(f"{where}: a beaver is written as 'Beavers => N' / B[beaver], which "
                        f"gnubg 1.07 does not read (it sees a redouble, or nothing)")


# --- writing ----------------------------------------------------------------------------------


def _plural(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _point(p: int) -> str:
    return str(p)


def move_cell(action: Action) -> str:
    """``"42: 8/4 6/4 "``: the dice, then each step and a space (none after a fourth)."""
    text = f"{action.dice[0]}{action.dice[1]}: "
    for i, (m, hit) in enumerate(zip(action.steps, action.hits, strict=True)):
        text += f"{_point(m.src)}/{_point(m.dst)}{'*' if hit else ''}"
        if i < 3:
            text += " "
    return text


def _game_rows(game: GameRecord) -> list[str]:
    rows: list[list[str]] = []  # [left, right]
    for act in game.actions:
        if act.kind == "move":
            cell = move_cell(act)
        elif act.kind == "double":
            cell = f" Doubles => {act.value}"
        elif act.kind == "take":
            cell = " Takes"
        elif act.kind == "beaver":
            cell = f" Beavers => {act.value}"
        elif act.kind == "drop":
            cell = " Drops"
        else:  # resign: not written, the win line says it
            continue
        if act.player is Color.WHITE:
            rows.append([cell, ""])
        elif rows and not rows[-1][1]:
            rows[-1][1] = cell
        else:
            rows.append(["", cell])
    lines = []
    for k, (left, right) in enumerate(rows, start=1):
        head = f"{k:3d}) "
        lines.append(head + left.ljust(LEFT_WIDTH - 1) + " " + right)
    res = game.result
    if res is not None:
        wins = f" Wins {_plural(res.points)}"
        if res.winner is Color.WHITE:
            lines.append("     " + wins)
        elif rows and rows[-1][0] and not rows[-1][1]:
            lines[-1] = lines[-1] + wins + " "
        else:
            lines.append("     " + "".ljust(LEFT_WIDTH) + wins)
    return lines


def dumps_mat(events: Iterable[Event] | MatchRecord, date: str | None = None) -> str:
    """The ``.mat`` text of a match, as gnubg writes it.

    ``date`` (``"2026.11.22"``) adds gnubg's ``; [EventDate ...]`` comment.
    """
    rec = events if isinstance(events, MatchRecord) else match_record(events)
    s = rec.settings
    out = []
    if date:
        out += [f'; [EventDate "{date}"]', ""]
    out += [f" {s.length} point match", ""]
    for game in rec.games:
        out.append(f" Game {game.number}")
        out.append(f" {s.white} : {game.score[0]}".ljust(_SCORE_WIDTH)
                   + f"{s.black} : {game.score[1]}")
        out += _game_rows(game)
        out.append("")
    return "\n".join(out) + "\n"


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically: temp file in the same directory, fsync, rename,
    fsync the directory. Readers see the old file or the new one, never half of one."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


def write_mat(events: Iterable[Event] | MatchRecord, out: str | os.PathLike[str] | TextIO,
              date: str | None = None) -> None:
    """Write the ``.mat`` file: atomically to a path, or to an open text handle."""
    text = dumps_mat(events, date)
    if isinstance(out, (str, os.PathLike)):
        write_atomic(out, text)
    else:
        out.write(text)


# --- reading ----------------------------------------------------------------------------------

_LENGTH = re.compile(r"^\s*(\d+)\s+points?\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(?P<w>\S.*?)\s*:\s*(?P<ws>\d+)\s+(?P<b>\S.*?)\s*:\s*(?P<bs>\d+)\s*$")
_ROW = re.compile(r"^(\s*)(\d+)\)(.*)$")
_PT = r"(?:bar|off|\d{1,2})\*?"
_MOVE_TOK = rf"{_PT}(?:/{_PT})+(?:\(\d\))?"
_ACTION = re.compile(
    r"(?P<dice>[1-6][1-6])\s*:(?P<moves>(?:\s*" + _MOVE_TOK + r")*)"
    r"(?P<nomove>\s*(?:\(?no move\)?|can'?not move|can't move|dance[sd]?))?"
    r"|Doubles\s*=>\s*(?P<double>\d+)"
    r"|Beavers?\s*=>\s*(?P<beaver>\d+)"
    r"|(?P<take>Takes|Accepts)"
    r"|(?P<drop>Drops|Passes|Rejects|Refuses)"
    r"|Wins\s+(?P<wins>\d+)\s+points?(?:\s+and\s+the\s+match)?",
    re.IGNORECASE,
)
RIGHT_COLUMN = 20  # a cell starting at or after this column belongs to the right (Black) player


@dataclass(slots=True)
class _Reader:
    name: str
    events: list[Event] = field(default_factory=list)
    state: MatchState | None = None
    lineno: int = 0
    first_action: bool = False

    def fail(self, what: str) -> RecordError:
        return RecordError(f"{self.name}: line {self.lineno}: {what}")

    def emit(self, ev: Event) -> None:
        assert self.state is not None
        try:
            self.state = apply(self.state, ev)
        except PibgError as exc:
            raise self.fail(f"{ev.kind} does not fit the match: {exc}") from exc
        self.events.append(ev)

    @property
    def match(self) -> MatchState:
        assert self.state is not None
        return self.state

    def check_game_over(self) -> None:
        st = self.match
        if st.game is not None and st.game.result is not None and st.game.phase is Phase.OVER:
            res = st.game.result
            if not self.events or not isinstance(self.events[-1], GameEnded):
                self.events.append(GameEnded(res.winner.label, res.points, res.termination))


def _color_at(col: int) -> Color:
    return Color.BLACK if col >= RIGHT_COLUMN else Color.WHITE


def parse_mat(text: str, name: str = "<mat>") -> list[Event]:
    """Parse ``.mat`` text into match events (see the module docstring).

    :raises RecordError: malformed file, an illegal move, or a cube action the rules forbid;
        the message names the file and line and says what was expected.
    """
    r = _Reader(name)
    length: int | None = None
    names: tuple[str, str] | None = None
    pending_game = False
    for r.lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(8).rstrip("\r\n")
        stripped = line.strip()
        if not stripped or stripped.startswith((";", "#", "%")):
            continue
        m = _LENGTH.match(line)
        if m:
            if length is not None:
                raise r.fail("a second 'N point match' line")
            length = int(m.group(1))
            continue
        m = _GAME.match(line)
        if m:
            if length is None:
                raise r.fail("expected ' N point match' before the first game")
            if r.state is not None and r.state.game is not None and (
                    r.state.game.phase is not Phase.OVER):
                raise r.fail(f"Game {m.group(1)} starts before the previous game ended "
                             f"(expected a 'Wins N points' line)")
            pending_game = True
            continue
        m = _SCORE.match(line)
        if m and pending_game:
            assert length is not None
            ws, bs = int(m.group("ws")), int(m.group("bs"))
            if r.state is None:
                names = (m.group("w"), m.group("b"))
                try:
                    settings = MatchSettings(length=length, white=names[0], black=names[1])
                except ValueError as exc:
                    raise r.fail(str(exc)) from exc
                r.state = MatchState.new(settings)
                r.emit(MatchStarted(settings))
            if (ws, bs) != r.match.score:
                raise r.fail(f"score {ws}-{bs} on the game's first line, but the games before "
                             f"give {r.match.score[0]}-{r.match.score[1]}")
            if r.match.over:
                raise r.fail("a game after the match was over")
            r.emit(GameStarted())
            pending_game = False
            r.first_action = True
            continue
        if pending_game:
            raise r.fail("expected the players and scores line ('Alice : 0   Bob : 0') after "
                         "'Game N'")
        m = _ROW.match(line)
        if m:
            body_start = len(m.group(1)) + len(m.group(2)) + 1
            _parse_cells(r, m.group(3), body_start)
            continue
        if stripped.lower().startswith("wins") and r.state is not None:
            _parse_cells(r, line, 0)
            continue
        raise r.fail(f"unexpected text {stripped[:40]!r}: expected a numbered move line "
                     f"('  1) 31: 8/5 6/5'), 'Game N', or 'Wins N points'")
    if r.state is None:
        raise RecordError(f"{name}: line {r.lineno}: no game found (expected ' N point match' "
                          f"and ' Game 1')")
    if r.match.over and r.match.winner is not None:
        r.events.append(MatchEnded(r.match.winner.label, r.match.score))
    return r.events


def _parse_cells(r: _Reader, body: str, offset: int) -> None:
    if r.state is None or r.state.game is None:
        raise r.fail("a move line before 'Game N' and the score line")
    pos = 0
    for m in _ACTION.finditer(body):
        gap = body[pos:m.start()]
        if gap.strip():
            raise r.fail(f"unexpected {gap.strip()[:30]!r}: expected dice and moves "
                         f"('52: 13/8 13/11'), 'Doubles => N', 'Takes', 'Drops' or 'Wins N "
                         f"points'")
        pos = m.end()
        col = offset + m.start()
        _action(r, m, col)
    rest = body[pos:]
    if rest.strip():
        raise r.fail(f"unexpected {rest.strip()[:30]!r}: expected dice and moves "
                     f"('52: 13/8 13/11'), 'Doubles => N', 'Takes', 'Drops' or 'Wins N points'")


def _action(r: _Reader, m: re.Match[str], col: int) -> None:
    st = r.match
    game = st.game
    assert game is not None
    if m.group("wins") is not None:
        _wins(r, int(m.group("wins")), col)
        return
    if game.phase is Phase.OVER:
        raise r.fail(f"{m.group(0)!r} after the game ended: expected 'Wins N points'")
    if m.group("dice") is not None:
        d1, d2 = int(m.group("dice")[0]), int(m.group("dice")[1])
        dice = (max(d1, d2), min(d1, d2))
        text = " ".join(m.group("moves").split())
        if r.first_action:
            r.first_action = False
            if d1 == d2:
                raise r.fail(f"opening roll {d1}{d2} is a double: expected two different dice")
            first = _color_at(col)
            hi, lo = dice
            r.emit(OpeningRoll(white=hi if first is Color.WHITE else lo,
                               black=lo if first is Color.WHITE else hi))
        else:
            if game.phase is not Phase.ROLL:
                raise r.fail(f"dice {m.group('dice')} while {game.decider.label} must answer "
                             f"a double: expected 'Takes' or 'Drops'")
            r.emit(Rolled(game.turn.label, dice))
        game = r.match.game
        assert game is not None
        player = game.turn
        try:
            play = resolve_any_order(game.position, dice, text)
        except PibgError as exc:
            raise r.fail(f"{player.label} {dice[0]}{dice[1]}: {text or '(no move)'}: {exc}"
                         ) from exc
        r.emit(Moved(player.label, dice, text, play.result.position_id()))
        r.check_game_over()
        return
    if r.first_action:
        raise r.fail(f"{m.group(0)!r} before the opening roll: expected the first move")
    if m.group("double") is not None:
        value = int(m.group("double"))
        if value != game.cube.value * 2:
            raise r.fail(f"'Doubles => {value}' with the cube at {game.cube.value}: "
                         f"expected 'Doubles => {game.cube.value * 2}'")
        r.emit(Doubled(game.turn.label))
    elif m.group("take") is not None:
        r.emit(Took(game.turn.other.label))
    elif m.group("beaver") is not None:
        r.emit(Beavered(game.turn.other.label))
    elif m.group("drop") is not None:
        r.emit(Dropped(game.turn.other.label))
        r.check_game_over()


def _wins(r: _Reader, points: int, col: int) -> None:
    st = r.match
    game = st.game
    assert game is not None
    if game.phase is Phase.OVER:
        res = game.result
        assert res is not None
        if res.points != points:
            raise r.fail(f"'Wins {points}': the moves give {res.winner.label} "
                         f"{_plural(res.points)}")
        return
    winner = _color_at(col)
    cube = game.cube.value
    if points % cube or not 1 <= points // cube <= 3:
        raise r.fail(f"'Wins {points}' with the cube at {cube}: a resignation scores 1, 2 or "
                     f"3 times the cube")
    if game.phase is Phase.DOUBLED:
        raise r.fail(f"'Wins {points}' while a double is offered: expected 'Takes' or 'Drops'")
    if r.first_action:
        raise r.fail("'Wins' before the opening roll: expected the first move")
    r.emit(Resigned(winner.other.label, points // cube))
    r.check_game_over()


def read_mat(path: str | os.PathLike[str]) -> list[Event]:
    """Read a ``.mat`` file into match events (see :func:`parse_mat`).

    :raises RecordError: unreadable or malformed file (file, line and what was expected).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RecordError(f"{p}: cannot read: {exc.strerror}") from exc
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    return parse_mat(text, str(p))


__all__ = [
    "Action",
    "GameRecord",
    "MatchRecord",
    "dumps_mat",
    "match_record",
    "parse_mat",
    "read_mat",
    "write_atomic",
    "write_mat",
]
