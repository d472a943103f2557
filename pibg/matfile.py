"""Jellyfish ``.mat`` match files, in the dialect GNU Backgammon writes and reads.

Writing (:func:`dumps_mat`, :func:`write_mat`) reproduces gnubg's own export byte for byte
(of :func:`pibg.record.mat_view`: a board taken as it stands cannot be written, so the moves
after one are written as the legal plays nearest the boards that stood):
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

import os
import re
from collections.abc import Iterable
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
    Noted,
    OpeningRoll,
    Resigned,
    Rolled,
    Took,
)
from pibg.exc import PibgError, RecordError
from pibg.match import MatchState, Phase, apply
from pibg.moves import Dice, Move, Play, parse_moves
from pibg.position import OFF, Color
from pibg.record import (
    Action,
    GameRecord,
    MatchRecord,
    apply_steps,
    decode_text,
    mat_view,
    match_record,
    read_play,
    recorded,
    resolve_any_order,
    write_atomic,
)
from pibg.rules import legal_plays

LEFT_WIDTH = 28  # gnubg writes the left (White) cell as 27 columns and a space
_SCORE_WIDTH = 32

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
        if act.kind in ("move", "roll"):
            cell = move_cell(act)
        elif act.kind == "double":
            cell = f" Doubles => {act.value}"
        elif act.kind == "take":
            cell = " Takes"
        elif act.kind == "beaver":
            cell = f" Beavers => {act.value}"
        elif act.kind == "drop":
            cell = " Drops"
        else:  # resign: not written, the win line says it (a setup: see mat_view)
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
    rec = mat_view(events if isinstance(events, MatchRecord) else match_record(events))
    s = rec.settings
    out = []
    if date:
        out += [f'; [EventDate "{date}"]', ""]
    out += [f" {s.length} point match", ""]
    for game in rec.games:
        out.append(f" Game {game.number}")
        left = f" {s.white} : {game.score[0]}"
        # a long left name still needs a space after its score, or gnubg reads it as digits
        out.append((left.ljust(_SCORE_WIDTH) if len(left) < _SCORE_WIDTH else left + " ")
                   + f"{s.black} : {game.score[1]}")
        out += _game_rows(game)
        out.append("")
    return "\n".join(out) + "\n"


def write_mat(events: Iterable[Event] | MatchRecord, out: str | os.PathLike[str] | TextIO,
              date: str | None = None) -> None:
    """Write the ``.mat`` file: atomically to a path, or to an open text handle."""
    text = dumps_mat(events, date)
    if isinstance(out, (str, os.PathLike)):
        write_atomic(out, text)
    else:
        out.write(text)


# --- reading ----------------------------------------------------------------------------------

#: gnubg's longest match (MAXSCORE); a longer one does not fit its Match ID
MAX_LENGTH = 64

_LENGTH = re.compile(r"^\s*(\d+)\s*points?\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(?P<w>[^:]*?)\s*:\s*(?P<ws>\d+)\s*(?P<b>[^:]*?)\s*:\s*(?P<bs>\d+)\s*$")
_TAG = re.compile(r'^\s*[;#]\s*\[\s*(?P<key>[A-Za-z][\w ]*?)\s+"(?P<value>[^"]*)"\s*\]')
_ROW = re.compile(r"^(\s*)(\d+)\)(.*)$")
_PT = r"(?:bar|off|\d{1,2})\*?"
_MOVE_TOK = rf"{_PT}(?:/{_PT})+(?:\(\d\))?"
_ACTION = re.compile(
    r"(?P<dice>[1-6][1-6])\s*:(?P<moves>(?:\s*" + _MOVE_TOK + r")*)"
    r"(?P<nomove>\s*(?:\(?no move\)?|can'?not move|can't move|dance[sd]?))?"
    r"(?P<unknown>\s*\?+)?"
    r"|Doubles\s*=?=>\s*(?P<double>\d+)"
    r"|Beavers?\s*=?=>\s*(?P<beaver>\d+)"
    r"|(?P<take>Takes|Accepts)"
    r"|(?P<drop>Drops|Passes|Rejects|Refuses)"
    r"|(?P<concede>Concedes|Resigns)"
    r"|Wins\s+(?P<wins>\d+)\s+points?(?:\s+and\s+the\s+match)?"
    r"|Loss?es\s+(?P<losses>\d+)\s+points?(?:\s+and\s+the\s+match)?",
    re.IGNORECASE,
)
RIGHT_COLUMN = 20  # a cell starting at or after this column belongs to the right (Black) player


@dataclass(slots=True)
class _Reader:
    name: str
    strict: bool = True
    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    state: MatchState | None = None
    lineno: int = 0
    first_action: bool = False
    #: a roll whose move was not recorded: its line and what was written (strict reading
    #: takes it only before the 'Wins' line, as gnubg writes a roll then a resignation)
    pending: tuple[int, str] | None = None
    #: why strict reading refuses the pending roll if anything but 'Wins' follows
    refusal: str = ""
    #: rows of a game after the match was over are skipped (as gnubg does)
    skipping: bool = False
    early: list[str] = field(default_factory=list)

    def fail(self, what: str) -> RecordError:
        return RecordError(f"{self.name}: line {self.lineno}: {what}")

    def warn(self, what: str, lineno: int | None = None) -> None:
        """Record what was assumed: a warning naming the file and line and, reading
        tolerantly, a ``note`` event in the events (so the journal keeps it)."""
        line = self.lineno if lineno is None else lineno
        self.warnings.append(f"{self.name}: line {line}: {what}")
        if self.strict:  # a validator's events are exactly the file's
            return
        if self.state is None:
            self.early.append(f"line {line}: {what}")
        else:
            self.events.append(Noted(f"line {line}: {what}"))

    def assume(self, what: str, refusal: str) -> None:
        """Strict reading refuses with ``refusal``; tolerant reading warns with ``what``."""
        if self.strict:
            raise self.fail(refusal)
        self.warn(what)

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
                self.events.append(GameEnded(res.winner, res.points, res.termination))

    def settle(self) -> None:
        """A roll with no move recorded, followed by something other than a resignation: the
        turn passes with the board as it was (gnubg reads such a file the same way)."""
        if self.pending is None:
            return
        lineno, written = self.pending
        self.pending = None
        if self.strict:
            raise RecordError(f"{self.name}: line {lineno}: {self.refusal}")
        game = self.match.game
        assert game is not None and game.dice is not None
        player = game.turn
        dice = Dice(game.dice.high, game.dice.low)
        self.warn(f"{player.label} rolled {dice} and no move was recorded "
                  f"({written}) though a legal one existed: the board is left as it was",
                  lineno)
        self.emit(Moved(player, dice, Play((), (), game.position), illegal=True))


def _color_at(col: int) -> Color:
    return Color.BLACK if col >= RIGHT_COLUMN else Color.WHITE


def _name(text: str) -> str:
    """A player's name as gnubg reads it: GamesGrid's ``,rating`` cut off, whitespace made
    plain spaces."""
    return re.sub(r"\s", " ", text.split(",")[0]).strip()


def _settings(length: int, names: tuple[str, str], tags: dict[str, str]) -> MatchSettings:
    def on(key: str) -> bool:
        return tags.get(key, "").strip().lower() in ("on", "yes", "true", "1")

    crawford = tags.get("crawford", "on").strip().lower() not in ("off", "no", "false", "0")
    return MatchSettings(length=length, white=names[0], black=names[1],
                         crawford=crawford or length <= 1,
                         jacoby=length == 0 and on("jacoby"),
                         beaver=length == 0 and on("beaver"))


def parse_mat(text: str, name: str = "<mat>", *, strict: bool = True,
              warnings: list[str] | None = None) -> list[Event]:
    """Parse ``.mat`` text into match events (see the module docstring).

    ``strict=False`` reads the way GNU Backgammon does: what cannot be understood (a move
    nobody recorded, a score that does not add up, a row it cannot read) is assumed or
    skipped, each time with a warning naming the file, the line and what was assumed. The
    warnings go into ``warnings`` and, as ``note`` events, into the events themselves.

    :raises RecordError: malformed file, an illegal move, or a cube action the rules forbid
        (strict), or what no reading can make sense of (tolerant); the message names the file
        and line and says what was expected.
    """
    r = _Reader(name, strict)
    length: int | None = None
    tags: dict[str, str] = {}
    pending_game = False
    text = text.lstrip("\ufeff")
    for r.lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(8).rstrip("\r\n")
        stripped = line.strip().lstrip("\ufeff")
        if not stripped:
            continue
        if stripped.startswith((";", "#", "%")):
            m = _TAG.match(stripped)
            if m and length is None:
                tags[m.group("key").strip().lower()] = m.group("value")
            continue
        m = _LENGTH.match(line)
        if m and r.state is None:
            if length is not None:
                raise r.fail("a second 'N point match' line")
            length = int(m.group(1))
            if length > MAX_LENGTH:
                raise r.fail(f"a {m.group(1)}-point match: GNU Backgammon plays matches of at "
                             f"most {MAX_LENGTH} points (0 for money play)")
            continue
        m = _GAME.match(line)
        if m:
            if length is None:
                raise r.fail("expected ' N point match' before the first game")
            _end_of_game(r, f"Game {m.group(1)}")
            pending_game = True
            continue
        m = _SCORE.match(line)
        if m and pending_game:
            assert length is not None
            pending_game = False
            _game_start(r, m, length, tags)
            continue
        if pending_game:
            raise r.fail("expected the players and scores line ('Alice : 0   Bob : 0') after "
                         "'Game N'")
        if r.skipping:
            continue
        m = _ROW.match(line)
        if m:
            body_start = len(m.group(1)) + len(m.group(2)) + 1
            _parse_cells(r, m.group(3), body_start)
            continue
        if stripped.lower().startswith(("wins", "loses", "losses", "concedes", "resigns")) and (
                r.state is not None):
            _parse_cells(r, line, 0)
            continue
        r.assume(f"skipped the line {stripped[:40]!r} (not a move, 'Game N' or 'Wins N points')",
                 f"unexpected text {stripped[:40]!r}: expected a numbered move line "
                 f"('  1) 31: 8/5 6/5'), 'Game N', or 'Wins N points'")
    if r.state is None:
        raise RecordError(f"{name}: line {r.lineno}: no game found (expected ' N point match' "
                          f"and ' Game 1')")
    r.lineno += 1
    _end_of_game(r, "the end of the file")
    if r.match.over and r.match.winner is not None:
        r.events.append(MatchEnded(r.match.winner, r.match.score))
    if warnings is not None:
        warnings.extend(r.warnings)
    return r.events


def _end_of_game(r: _Reader, where: str) -> None:
    """What was left open when a new game (or the end of the file) comes."""
    game = r.state.game if r.state is not None else None
    if game is None or game.phase is Phase.OVER or r.skipping:
        return
    r.settle()
    if where.startswith("Game"):
        if r.strict:
            raise r.fail(f"{where} starts before the previous game ended (expected a 'Wins N "
                         f"points' line)")
        return  # the next game's score line may say who won: see _infer_unfinished
    r.warn(f"the file ends in the middle of game {len(r.match.games) + 1} (no 'Wins N points' "
           f"line): the game is left unfinished")


def _game_start(r: _Reader, m: re.Match[str], length: int, tags: dict[str, str]) -> None:
    ws, bs = int(m.group("ws")), int(m.group("bs"))
    if r.state is None:
        names = (_name(m.group("w")), _name(m.group("b")))
        if (ws, bs) != (0, 0) and r.strict:
            raise r.fail(f"score {ws}-{bs} on the game's first line, but the games before "
                         f"give 0-0")
        try:
            settings = _settings(length, names, tags)
        except ValueError as exc:
            raise r.fail(str(exc)) from exc
        if (ws, bs) != (0, 0):
            if length and max(ws, bs) >= length:
                raise r.fail(f"the first game starts at {ws}-{bs}, past the {length}-point "
                             f"match's end")
            r.warn(f"the first game starts at {ws}-{bs}: the match is taken as begun there "
                   f"(a transcription from the middle of a match)")
        r.state = MatchState.new(settings)
        r.emit(MatchStarted(settings, (ws, bs)))
        r.events.extend(Noted(text) for text in r.early)
    game = r.match.game
    if r.skipping:
        return
    if game is not None and game.phase is not Phase.OVER:
        _infer_unfinished(r, ws, bs)
    if (ws, bs) != r.match.score:
        sw, sb = r.match.score
        r.assume(f"the score line says {ws}-{bs}, the games before give {sw}-{sb}: kept "
                 f"{sw}-{sb}",
                 f"score {ws}-{bs} on the game's first line, but the games before give "
                 f"{sw}-{sb}")
    if r.match.over:
        if r.strict:
            raise r.fail("a game after the match was over")
        r.warn("a game after the match was over: skipped (GNU Backgammon skips it too)")
        r.skipping = True
        return
    r.emit(GameStarted())
    r.first_action = True


def _infer_unfinished(r: _Reader, ws: int, bs: int) -> None:
    """A game with no result followed by a new game: the new score line says who won."""
    sw, sb = r.match.score
    game = r.match.game
    assert game is not None
    gained = (ws - sw, bs - sb)
    cube = game.cube.value
    winner = Color.WHITE if gained[1] == 0 else Color.BLACK
    points = gained[0] if winner is Color.WHITE else gained[1]
    if (min(gained) != 0 or points <= 0 or points % cube or not 1 <= points // cube <= 3
            or game.phase is Phase.OPENING or r.strict):
        raise r.fail(f"a new game starts before game {len(r.match.games) + 1} ended "
                     f"(expected a 'Wins N points' line)")
    r.warn(f"game {len(r.match.games) + 1} has no 'Wins N points' line; the score line says "
           f"{winner.label} won {_plural(points)}: taken as a resignation")
    r.emit(Resigned(winner.other, points // cube))
    r.check_game_over()


def _parse_cells(r: _Reader, body: str, offset: int) -> None:
    if r.state is None or r.state.game is None:
        raise r.fail("a move line before 'Game N' and the score line")
    pos = 0
    for m in _ACTION.finditer(body):
        gap = body[pos:m.start()]
        if gap.strip():
            r.assume(f"skipped {gap.strip()[:30]!r} (not dice and moves, a cube action or "
                     f"'Wins N points')",
                     f"unexpected {gap.strip()[:30]!r}: expected dice and moves "
                     f"('52: 13/8 13/11'), 'Doubles => N', 'Takes', 'Drops' or 'Wins N "
                     f"points'")
        pos = m.end()
        col = offset + m.start()
        _action(r, m, col)
    rest = body[pos:]
    if rest.strip():
        r.assume(f"skipped {rest.strip()[:30]!r} (not dice and moves, a cube action or "
                 f"'Wins N points')",
                 f"unexpected {rest.strip()[:30]!r}: expected dice and moves "
                 f"('52: 13/8 13/11'), 'Doubles => N', 'Takes', 'Drops' or 'Wins N points'")


def _expanded(dice: Dice, text: str) -> str | None:
    """A double's play written with several dice per hop (``Bar/21*(2)``, ``8/off(2)``) as
    one step per die, highest point first (the order gnubg puts them in)."""
    if not dice.is_double:
        return None
    try:
        segments = parse_moves(text)
    except PibgError:
        return None
    die = dice.a
    steps: list[tuple[int, int]] = []
    for src, dst in segments:
        here = src
        while here > dst:
            nxt = here - die
            if nxt < dst:
                if dst != OFF:
                    return None
                nxt = OFF
            steps.append((here, max(nxt, OFF)))
            here = max(nxt, OFF)
    if len(steps) > 4:
        return None
    steps.sort(key=lambda st: -st[0])
    return " ".join(f"{a}/{b}" for a, b in steps)


def _action(r: _Reader, m: re.Match[str], col: int) -> None:
    if m.group("wins") is not None:
        _wins(r, int(m.group("wins")), _color_at(col))
        return
    if m.group("losses") is not None:
        return  # Galaxy's "Losses N point" rows: gnubg skips them, the 'Wins' line decides
    if m.group("concede") is not None:
        return  # XG's "Concedes": the 'Wins N points' that follows says what was given
    game = r.match.game
    assert game is not None
    if game.phase is Phase.OVER:
        r.assume(f"skipped {m.group(0)!r} after the game ended",
                 f"{m.group(0)!r} after the game ended: expected 'Wins N points'")
        return
    r.settle()
    if m.group("dice") is not None:
        _roll(r, m, col)
        return
    if r.first_action:
        raise r.fail(f"{m.group(0)!r} before the opening roll: expected the first move")
    if m.group("double") is not None:
        value = int(m.group("double"))
        if value != game.cube.value * 2:
            r.assume(f"'Doubles => {value}' with the cube at {game.cube.value}: taken as "
                     f"'Doubles => {game.cube.value * 2}'",
                     f"'Doubles => {value}' with the cube at {game.cube.value}: "
                     f"expected 'Doubles => {game.cube.value * 2}'")
        r.emit(Doubled(game.turn))
    elif m.group("take") is not None:
        r.emit(Took(game.turn.other))
    elif m.group("beaver") is not None:
        r.emit(Beavered(game.turn.other))
    elif m.group("drop") is not None:
        r.emit(Dropped(game.turn.other))
        r.check_game_over()


def _roll(r: _Reader, m: re.Match[str], col: int) -> None:
    game = r.match.game
    assert game is not None
    d1, d2 = int(m.group("dice")[0]), int(m.group("dice")[1])
    dice = Dice(max(d1, d2), min(d1, d2))
    text = " ".join(m.group("moves").split())
    if r.first_action:
        r.first_action = False
        if d1 == d2:
            raise r.fail(f"opening roll {d1}{d2} is a double: expected two different dice")
        first = _color_at(col)
        hi, lo = dice.high, dice.low
        r.emit(OpeningRoll(white=hi if first is Color.WHITE else lo,
                           black=lo if first is Color.WHITE else hi))
    else:
        if game.phase is Phase.DOUBLED:
            r.assume(f"dice {m.group('dice')} while {game.decider.label} must answer a "
                     f"double: the double taken as taken",
                     f"dice {m.group('dice')} while {game.decider.label} must answer "
                     f"a double: expected 'Takes' or 'Drops'")
            r.emit(Took(game.decider))
        r.emit(Rolled(game.turn, dice))
    game = r.match.game
    assert game is not None
    player = game.turn
    play: Play | None
    try:
        play = resolve_any_order(game.position, dice, text)
    except PibgError as exc:
        refusal = f"{player.label} {dice}: {text or '(no move)'}: {exc}"
        alt = _expanded(dice, text) if text else None
        try:
            play = resolve_any_order(game.position, dice, alt) if alt else None
        except PibgError:
            play = None
        if play is None:
            if r.strict and not text and not m.group("nomove") and not m.group("unknown"):
                # dice and no move: only a resignation may follow (gnubg writes it so, and
                # reads a roll with one legal play as that play)
                r.refusal = refusal
                _unrecorded(r, m, dice)
                return
            if r.strict:
                raise r.fail(refusal) from exc
            if not text:
                _unrecorded(r, m, dice)
                return
            steps = parse_moves(text)
            done = apply_steps(game.position, steps)
            if done is None:
                raise r.fail(refusal) from exc
            r.warn(f"{player.label} {dice}: {text}: not a legal play ({exc}); kept as written")
            kept = Play(tuple(Move(a, b) for a, b in steps), tuple(done[1]), done[0])
            r.emit(Moved(player, dice, kept, illegal=True, written=text))
            r.check_game_over()
            return
    assert play is not None
    # the steps as the file lists them, where they can be played so: read here, once (the
    # journal keeps the text as the file wrote it)
    as_listed = read_play(game.position, dice, text, play.result)
    assert as_listed is not None, "a legal play leads there"
    r.emit(Moved(player, dice, as_listed, written=text))
    r.check_game_over()


def _unrecorded(r: _Reader, m: re.Match[str], dice: Dice) -> None:
    """A roll written with no move (or ``????``) where a legal move existed."""
    game = r.match.game
    assert game is not None
    written = "'????'" if m.group("unknown") else "an empty move"
    legal = legal_plays(game.position, dice)
    if len(legal) == 1:
        play = recorded(game.position, dice, legal[0])
        r.warn(f"{game.turn.label} {dice}: {written}; the only legal play, {play}, is assumed")
        r.emit(Moved(game.turn, dice, play))
        r.check_game_over()
        return
    r.pending = (r.lineno, written)


def _wins(r: _Reader, points: int, winner: Color) -> None:
    st = r.match
    game = st.game
    assert game is not None
    if game.phase is Phase.OVER:
        res = game.result
        assert res is not None
        if res.points != points or res.winner is not winner:
            r.assume(f"'Wins {points}' for {winner.label}: the moves give {res.winner.label} "
                     f"{_plural(res.points)}; scored as the moves give",
                     f"'Wins {points}': the moves give {res.winner.label} "
                     f"{_plural(res.points)}")
        return
    if r.first_action:
        raise r.fail("'Wins' before the opening roll: expected the first move")
    cube = game.cube.value
    if game.phase is Phase.DOUBLED:
        r.assume(f"'Wins {points}' while a double is offered: taken as a resignation at the "
                 f"cube's value before the double ({cube})",
                 f"'Wins {points}' while a double is offered: expected 'Takes' or 'Drops'")
    mult = 1 if points <= cube else 2 if points <= 2 * cube else 3
    if points != mult * cube:
        r.assume(f"'Wins {points}' with the cube at {cube}: scored as a resignation of "
                 f"{_plural(mult * cube)} ({mult} times the cube), as GNU Backgammon does",
                 f"'Wins {points}' with the cube at {cube}: a resignation scores 1, 2 or "
                 f"3 times the cube")
    if r.pending is not None:
        lineno, written = r.pending
        r.pending = None
        rolled = f" {game.dice.high}{game.dice.low}" if game.dice else ""
        r.warn(f"{game.turn.label} rolled{rolled} and no move was recorded ({written}): the "
               f"'Wins' line says {winner.other.label} resigned", lineno)
    r.emit(Resigned(winner.other, mult))
    r.check_game_over()


def read_mat(path: str | os.PathLike[str], *, strict: bool = True,
             warnings: list[str] | None = None) -> list[Event]:
    """Read a ``.mat`` file into match events (see :func:`parse_mat`).

    :raises RecordError: unreadable or malformed file (file, line and what was expected).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RecordError(f"{p}: cannot read: {exc.strerror}") from exc
    return parse_mat(decode_text(data), str(p), strict=strict, warnings=warnings)


__all__ = [
    "dumps_mat",
    "parse_mat",
    "read_mat",
    "write_mat",
]
