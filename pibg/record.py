"""A match as the record formats see it: games, and the actions in each.

:func:`match_record` folds journal events (honouring undo) into a :class:`MatchRecord`, which
the two codecs write: :mod:`pibg.matfile` (Jellyfish ``.mat``) and :mod:`pibg.sgf` (gnubg SGF).
Both read back into events with the helpers here (:func:`apply_steps`,
:func:`resolve_any_order`, :func:`decode_text`), and both write through :func:`write_atomic`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Resigned,
    SetUp,
    Took,
)
from pibg.exc import PibgError, RecordError, RecordWriteError
from pibg.match import GameResult, MatchState, Phase, apply, effective_events
from pibg.moves import Dice, Move, Play, parse_moves
from pibg.position import OFF, Color, Position
from pibg.rules import legal_plays, resolve

#: The mode of a new record file: the owner writes, everyone reads (as ``open()`` would
#: make it under the usual umask 022).
FILE_MODE = 0o644


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a player did: a move (``dice``, single ``steps`` with ``hits``), a ``roll``
    with no move recorded (``dice`` only: the player resigned before moving, or the move was
    never written), or a cube action (``double`` with the new ``value``; ``take``, ``drop``,
    ``beaver``), or ``resign`` (``value`` = 1, 2 or 3 times the cube). ``before`` is the
    position before it, the actor on roll (cube actions: the doubler on roll)."""

    kind: str
    player: Color
    before: Position
    dice: tuple[int, int] = (0, 0)
    steps: tuple[Move, ...] = ()
    hits: tuple[bool, ...] = ()
    value: int = 0
    after: Position | None = None
    #: what the record says about the action beyond the move (dice not seen, a doubt)
    comment: str = ""


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
            after = ev.result
            dice = (ev.dice.high, ev.dice.low)
            if ev.illegal and not ev.play.strip() and after == before.position:
                # a move never recorded: the files say the roll alone, as they were read
                rec.actions.append(Action("roll", player, before.position, dice))
                continue
            steps, hits = play_steps(before.position, dice, ev.play, after)
            rec.actions.append(Action("move", player, before.position, dice, steps, hits,
                                      after=after, comment=move_comment(ev)))
        elif isinstance(ev, Doubled):
            rec.actions.append(Action("double", before.turn, before.position,
                                      value=before.cube.value * 2))
        elif isinstance(ev, (Took, Dropped, Beavered)):
            rec.actions.append(Action(ev.kind, before.turn.other, before.position,
                                      value=game.cube.value))
        elif isinstance(ev, Resigned):
            if before.phase is Phase.MOVE and before.dice is not None:
                # rolled, then resigned before moving
                rec.actions.append(Action("roll", before.turn, before.position,
                                          (before.dice.high, before.dice.low)))
            rec.actions.append(Action("resign", ev.player, before.position,
                                      value=ev.multiplier))
        if game.result is not None and rec.result is None:
            rec.result = game.result
    return MatchRecord(state.settings, games, state, warnings)


def move_comment(ev: Moved) -> str:
    """What a move's record says beyond the move: ``dice not seen: inferred from the board``
    where the camera never read the roll, and ``in doubt: ...`` with the referee's flag."""
    parts = []
    if not ev.dice_seen:
        parts.append(DICE_NOT_SEEN)
    if ev.flag:
        parts.append(f"{IN_DOUBT}{ev.flag}")
    return "\n".join(parts)


DICE_NOT_SEEN = "dice not seen: inferred from the board"
IN_DOUBT = "in doubt: "


def _warn_unwritable(ev: Event, index: int, games: int, warnings: list[str]) -> None:
    where = f"event {index + 1} (game {max(games, 1)})"
    if isinstance(ev, GameStarted) and ev.set_up:
        warnings.append(f"{where}: game {games + 1} starts from a set-up position; .mat and "
                        f"SGF files start every game from the opening position")
    elif isinstance(ev, SetUp):
        warnings.append(f"{where}: the board was resynced to {ev.position.position_id()}; "
                        f"the files cannot say so, and the moves after it will not follow in "
                        f"gnubg")
    elif isinstance(ev, Moved) and ev.illegal:
        warnings.append(f"{where}: {ev.player.label}'s condoned illegal play {ev.play!r} is "
                        f"written as played; gnubg does not check it, pibg's import will "
                        f"refuse it")
    elif isinstance(ev, Beavered):
        warnings.append(f"{where}: a beaver is written as 'Beavers => N' / B[beaver], which "
                        f"gnubg 1.07 does not read (it sees a redouble, or nothing)")


# --- files ------------------------------------------------------------------------------------


def decode_text(data: bytes) -> str:
    """A record's bytes as text: UTF-8 (with or without a byte-order mark), else Windows-1252,
    else Latin-1 (which decodes anything)."""
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically: temp file in the same directory, fsync, rename,
    fsync the directory. Readers see the old file or the new one, never half of one. A new
    file is readable by all (``0644``); a file written over keeps its mode.

    :raises RecordWriteError: a missing folder, a read-only or full file system (no temporary
        file is left behind).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise RecordWriteError(f"{target}: cannot write: {exc.strerror or exc} (check that "
                               f"the folder {directory} exists and is writable)") from exc
    try:
        # mkstemp makes the file 0600; a match file is the user's to share like any other
        # (an existing file keeps its mode)
        os.fchmod(fd, _mode_of(target))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise RecordWriteError(f"{target}: cannot write: {exc.strerror or exc}; the file was "
                               f"left as it was") from exc
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


def _mode_of(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return FILE_MODE


__all__ = [
    "DICE_NOT_SEEN",
    "FILE_MODE",
    "IN_DOUBT",
    "Action",
    "GameRecord",
    "MatchRecord",
    "apply_steps",
    "decode_text",
    "match_record",
    "move_comment",
    "play_steps",
    "resolve_any_order",
    "write_atomic",
]
