"""The match journal: one append-only JSON Lines file per match, one event a line.

Each line is an event's JSON object (:func:`event_to_json`, read back by
:func:`event_from_json`: the only place that knows the text form of events) with a ``seq``
number (1 for the first line, counting up) and, when the caller gives one, a ``ts`` string (the
core has no clock). :meth:`Journal.append` writes the whole line with one ``os.write`` and returns
only after ``os.fsync``: an event is acknowledged then, and not before.

Opening an existing journal reads every line. A power cut can leave the *last* line torn (no
trailing newline, or not JSON); that tail is copied to ``<journal>.torn-<n>`` beside the
journal, cut off, and reported in :attr:`Journal.recovery` (and logged as a warning) rather
than raised. A bad line anywhere *else* is damage no power cut explains: :class:`JournalError`
names the file and the line, and nothing is dropped silently. The live service opens its
journal with ``salvage=True`` instead: the events before the damage are kept, the damaged line
and everything after it are copied to ``<journal>.damaged-<n>`` beside it, and
:attr:`Journal.recovery` (and the log) says so.

>>> import tempfile, os
>>> from pibg.events import MatchStarted, MatchSettings
>>> path = os.path.join(tempfile.mkdtemp(), "match.jsonl")
>>> with Journal.open(path) as j:
...     j.append(MatchStarted(MatchSettings(length=5)), ts="2026-11-22T15:00:00Z")
1
>>> Journal.open(path).events()[0].settings.length
5
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pibg.events import (
    Amended,
    Beavered,
    Corrected,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    IllegalFlagged,
    MatchEnded,
    MatchSettings,
    MatchStarted,
    Moved,
    Noted,
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.exc import JournalError, PibgError
from pibg.moves import Dice, Play
from pibg.position import Color, Position
from pibg.record import read_play

if TYPE_CHECKING:
    from pibg.match import MatchState

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal line: its sequence number, the caller's time stamp, and the event."""

    seq: int
    ts: str | None
    event: Event


# --- the events as JSON -----------------------------------------------------------------------
# The one place that knows the text form of an event: colours as "white"/"black", dice as a list
# of two numbers in the order read, a play in gnubg notation (as its record wrote it, where it was
# read from one), boards as gnubg Position IDs with the side on roll beside them (or implied: a
# play's and an illegal board's mover), a game from the starting position as an empty Position
# ID.


def _color_json(color: Color) -> str:
    return color.label


def _dice_json(dice: Dice) -> list[int]:
    return [dice.a, dice.b]


def _event_fields(event: Event) -> dict[str, Any]:
    match event:
        case MatchStarted(settings=settings, score=score):
            return {"settings": asdict(settings), "score": list(score)}
        case GameStarted(position=pos):
            return {"position_id": "" if pos == Position.start(pos.turn) else pos.position_id(),
                    "turn": _color_json(pos.turn)}
        case OpeningRoll(white=white, black=black):
            return {"white": white, "black": black}
        case Rolled(player=player, dice=dice) | Reread(player=player, dice=dice):
            return {"player": _color_json(player), "dice": _dice_json(dice)}
        case Moved():
            played = {"player": _color_json(event.player), "dice": _dice_json(event.dice),
                      "play": event.notation, "position_id": event.result.position_id(),
                      "illegal": event.illegal, "dice_seen": event.dice_seen,
                      "flag": event.flag}
            if event.reviewed:  # only a turn a reviewer set (read back from a record) has it
                played["reviewed"] = event.reviewed
            return played
        case (Doubled(player=player) | Took(player=player) | Dropped(player=player)
              | Beavered(player=player) | Corrected(player=player)):
            return {"player": _color_json(player)}
        case Resigned(player=player, multiplier=multiplier):
            return {"player": _color_json(player), "multiplier": multiplier}
        case IllegalFlagged(player=player, seen=seen, reasons=reasons):
            return {"player": _color_json(player),
                    "seen_position_id": "" if seen is None else seen.position_id(),
                    "reasons": list(reasons)}
        case SetUp(position=pos):
            return {"position_id": pos.position_id(), "turn": _color_json(pos.turn)}
        case Undone():
            return {}
        case GameEnded(winner=winner, points=points, termination=termination):
            return {"winner": _color_json(winner), "points": points, "termination": termination}
        case MatchEnded(winner=winner, score=score):
            return {"winner": _color_json(winner), "score": list(score)}
        case Noted(text=text):
            return {"text": text}
        case Amended(game=game, move=move, dice=dice, note=note):
            return {"game": game, "move": move, "dice": _dice_json(dice), "note": note}
    raise TypeError(f"not a match event: {event!r}")


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object of ``event``: ``{"event": kind, ...}`` with its fields as text and
    numbers (the inverse of :func:`event_from_json`).

    >>> from pibg.events import Rolled
    >>> event_to_json(Rolled(Color.BLACK, Dice(6, 5)))
    {'event': 'roll', 'player': 'black', 'dice': [6, 5]}
    """
    return {"event": event.kind, **_event_fields(event)}


_MISSING = object()


class _Fields:
    """The fields of one event's JSON object, each read as its type (a wrong one raises
    :class:`ValueError`, which :func:`event_from_json` reports); remembers what was read."""

    def __init__(self, data: Mapping[str, Any], board: Position | None = None) -> None:
        self.data = data
        self.board = board  # the board the event happens on, where the caller knows it
        self.read: set[str] = {"event", "seq", "ts"}

    def _get(self, key: str, default: object, types: tuple[type, ...], what: str) -> Any:
        self.read.add(key)
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise ValueError(f"missing {key!r}")
            return default
        # bool is an int to Python, not to a journal
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ValueError(f"{key!r} must be {what}, found {value!r}")
        return value

    def text(self, key: str, default: object = _MISSING) -> str:
        value: str = self._get(key, default, (str,), "text")
        return value

    def number(self, key: str, default: object = _MISSING) -> int:
        value: int = self._get(key, default, (int,), "a whole number")
        return value

    def flag(self, key: str, default: object = _MISSING) -> bool:
        value: bool = self._get(key, default, (bool,), "true or false")
        return value

    def color(self, key: str) -> Color:
        name = self.text(key)
        if name not in ("white", "black"):
            raise ValueError(f"{key!r} must be \"white\" or \"black\", found {name!r}")
        return Color.WHITE if name == "white" else Color.BLACK

    def pair(self, key: str, default: object = _MISSING) -> tuple[int, int]:
        value = self._get(key, default, (list, tuple), "a list of two numbers")
        if (len(value) != 2 or not all(isinstance(n, int) and not isinstance(n, bool)
                                       for n in value)):
            raise ValueError(f"{key!r} must be a list of two numbers, found {value!r}")
        return int(value[0]), int(value[1])

    def dice(self, key: str) -> Dice:
        return Dice(*self.pair(key))

    def texts(self, key: str) -> tuple[str, ...]:
        value = self._get(key, [], (list,), "a list of texts")
        if not all(isinstance(s, str) for s in value):
            raise ValueError(f"{key!r} must be a list of texts, found {value!r}")
        return tuple(value)

    def position(self, key: str, turn: Color) -> Position | None:
        """The board of a Position ID, ``turn`` on roll; ``None`` for an empty one."""
        pid = self.text(key, "")
        return Position.from_id(pid, turn) if pid else None

    def settings(self, key: str) -> MatchSettings:
        value = self._get(key, {}, (dict,), "an object")
        return MatchSettings(**value)


def _game_started(f: _Fields) -> GameStarted:
    turn = f.color("turn") if "turn" in f.data else Color.WHITE
    return GameStarted(f.position("position_id", turn) or Position.start(turn))


def _moved(f: _Fields) -> Moved:
    player = f.color("player")
    result = f.position("position_id", player)
    if result is None:
        raise ValueError("missing 'position_id' (the board after the play)")
    dice, text, illegal = f.dice("dice"), f.text("play", ""), f.flag("illegal", False)
    # the notation alone cannot say which step hit where a record did not mark it: read it
    # against the board it was played on; without one, its steps are not known
    play = None if f.board is None else read_play(f.board.with_turn(player), dice, text,
                                                   result, illegal=illegal)
    return Moved(player, dice, play or Play((), (), result), illegal=illegal,
                 dice_seen=f.flag("dice_seen", True), flag=f.text("flag", ""),
                 reviewed=f.text("reviewed", ""), written=text)


def _set_up(f: _Fields) -> SetUp:
    position = f.position("position_id", f.color("turn"))
    if position is None:
        raise ValueError("missing 'position_id' (the board set up)")
    return SetUp(position)


def _illegal(f: _Fields) -> IllegalFlagged:
    player = f.color("player")
    return IllegalFlagged(player, f.position("seen_position_id", player), f.texts("reasons"))


_DECODERS: dict[str, Callable[[_Fields], Event]] = {
    "match_start": lambda f: MatchStarted(f.settings("settings"), f.pair("score", (0, 0))),
    "game_start": _game_started,
    "opening_roll": lambda f: OpeningRoll(f.number("white"), f.number("black")),
    "roll": lambda f: Rolled(f.color("player"), f.dice("dice")),
    "reread": lambda f: Reread(f.color("player"), f.dice("dice")),
    "play": _moved,
    "double": lambda f: Doubled(f.color("player")),
    "take": lambda f: Took(f.color("player")),
    "drop": lambda f: Dropped(f.color("player")),
    "beaver": lambda f: Beavered(f.color("player")),
    "resign": lambda f: Resigned(f.color("player"), f.number("multiplier", 1)),
    "illegal": _illegal,
    "corrected": lambda f: Corrected(f.color("player")),
    "setup": _set_up,
    "undo": lambda f: Undone(),
    "game_end": lambda f: GameEnded(f.color("winner"), f.number("points", 1),
                                    f.text("termination", "single")),
    "match_end": lambda f: MatchEnded(f.color("winner"), f.pair("score")),
    "note": lambda f: Noted(f.text("text", "")),
    "amend": lambda f: Amended(f.number("game"), f.number("move"), f.dice("dice"),
                               f.text("note", "")),
}


def event_from_json(data: Mapping[str, Any], board: Position | None = None) -> Event:
    """Rebuild an event from its JSON object (``seq`` and ``ts`` are the journal's, and
    ignored); a field the event had no value for in older journals takes its default.

    ``board`` is the board the event happens on, as the events before it leave it
    (:class:`Boards` follows them): a play's notation is read into its steps against it
    (:func:`pibg.record.read_play`). A play read without it, or that the board does not
    lead to, keeps its notation as written and has no steps.

    :raises JournalError: an unknown event kind, an unknown field, or a field that does not
        hold what the event needs (a colour, two dice, a Position ID...).
    """
    kind = data.get("event")
    decode = _DECODERS.get(str(kind))
    if decode is None:
        raise JournalError(f"unknown event {kind!r}; expected one of {sorted(_DECODERS)}")
    fields = _Fields(data, board)
    try:
        event = decode(fields)
    except (PibgError, TypeError, ValueError) as exc:
        raise JournalError(f"bad {kind!r} event: {exc}") from exc
    for key in data:
        if key not in fields.read:
            raise JournalError(f"event {kind!r} has no field {key!r}")
    return event


class Boards:
    """The board each event happens on, following a journal's events in order as
    :func:`pibg.match.replay` folds them (an undo takes back the last play or cube action
    and everything after it), without checking the rules: :func:`event_from_json` reads a
    play's notation against it.

    >>> from pibg.events import GameStarted
    >>> boards = Boards()
    >>> boards.follow(GameStarted())
    >>> boards.board == Position.start()
    True
    """

    def __init__(self) -> None:
        #: the board now (the last play's mover still on roll), ``None`` before a game starts
        self.board: Position | None = None
        self._undo: list[Position | None] = []  # the board before each turn an undo takes back

    def follow(self, event: Event) -> None:
        """Move on past ``event``."""
        match event:
            case GameStarted(position=board) | SetUp(position=board):
                self.board = board
            case Moved():
                self._undo.append(self.board)
                self.board = event.result
            case Doubled() | Took() | Dropped() | Beavered():
                self._undo.append(self.board)
            case Undone() if self._undo:
                self.board = self._undo.pop()


def events_from_json(objects: Iterable[Mapping[str, Any]]) -> list[Event]:
    """The events of a journal's JSON objects in order, each read on the board the ones
    before it leave (see :func:`event_from_json`)."""
    boards = Boards()
    events = []
    for data in objects:
        event = event_from_json(data, boards.board)
        boards.follow(event)
        events.append(event)
    return events


def encode_line(seq: int, event: Event, ts: str | None = None) -> bytes:
    """The bytes of one journal line (newline included)."""
    data: dict[str, Any] = {"seq": seq}
    if ts is not None:
        data["ts"] = ts
    data.update(event_to_json(event))
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse directory fsync
        pass
    finally:
        os.close(fd)


def _torn_path(path: Path, kind: str = "torn") -> Path:
    n = 1
    while True:
        candidate = path.with_name(f"{path.name}.{kind}-{n}")
        if not candidate.exists():
            return candidate
        n += 1


def _parse(path: Path, data: bytes, salvage: bool = False
           ) -> tuple[list[Entry], int, bytes, str | None]:
    """Parse journal bytes: the entries, the length of the good part, a torn tail, and (only
    with ``salvage``) why the lines from the first damaged one on were not read.

    :raises JournalError: a damaged line before the last one, unless ``salvage``.
    """
    entries: list[Entry] = []
    pos = 0
    try:
        for entry, end in _lines(path, data):
            if entry is None:  # torn last line
                return entries, pos, data[pos:], None
            entries.append(entry)
            pos = end
    except JournalError as exc:
        if not salvage:
            raise
        return entries, pos, data[pos:], str(exc)
    return entries, pos, b"", None


def _lines(path: Path, data: bytes) -> Iterator[tuple[Entry | None, int]]:
    """Each complete line's entry and where it ends; ``None`` for a torn last line."""
    pos = 0
    lineno = 0
    boards = Boards()
    while pos < len(data):
        end = data.find(b"\n", pos)
        lineno += 1
        if end < 0:  # no newline: the last write did not finish
            yield None, pos
            return
        raw = data[pos:end]
        is_last = end + 1 == len(data)
        try:
            obj = json.loads(raw.decode("utf-8"))
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except (UnicodeDecodeError, ValueError) as exc:
            if is_last:
                yield None, pos
                return
            raise JournalError(
                f"{path}: line {lineno}: corrupt line in the middle of the journal "
                f"(expected one JSON event object): {exc}"
            ) from exc
        seq = obj.get("seq")
        if seq != lineno:
            raise JournalError(
                f"{path}: line {lineno}: expected \"seq\": {lineno}, found {seq!r}"
            )
        ts = obj.get("ts")
        if ts is not None and not isinstance(ts, str):
            raise JournalError(f"{path}: line {lineno}: \"ts\" must be a string, found {ts!r}")
        try:
            event = event_from_json(obj, boards.board)
        except JournalError as exc:
            raise JournalError(f"{path}: line {lineno}: {exc}") from exc
        boards.follow(event)
        pos = end + 1
        yield Entry(lineno, ts, event), pos


class Journal:
    """An open match journal. Use :meth:`open`; a context manager; ``close()`` is idempotent.

    :ivar recovery: one line describing a torn tail that was cut off at open, else ``None``.
    """

    def __init__(self, path: Path, fd: int, entries: list[Entry], size: int,
                 recovery: str | None) -> None:
        self.path = path
        self._fd: int | None = fd
        self._entries = entries
        self._size = size
        self._readonly = False
        self.recovery = recovery

    # --- opening ----------------------------------------------------------------------------

    @classmethod
    def open(cls, path: PathLike, *, create: bool = True, readonly: bool = False,
             salvage: bool = False) -> Journal:
        """Open (or create) the journal at ``path`` and read what it holds.

        The writer holds an exclusive lock. ``readonly=True`` is for readers (``pibg score``
        during a match): no lock, no file changes, a torn last line is skipped and reported
        but left in place, and :meth:`append` refuses. ``salvage=True`` keeps the events before
        a damaged line instead of raising: the rest is copied to ``<journal>.damaged-<n>`` and
        cut off (read-only: only skipped), and :attr:`recovery` says so.

        :raises JournalError: the file cannot be opened or locked, or a line other than the
            last one is corrupt (file name and line number in the message).
        """
        p = Path(path)
        if readonly:
            flags = os.O_RDONLY
        else:
            flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
        existed = p.exists()
        try:
            fd = os.open(p, flags, 0o644)
        except OSError as exc:
            raise JournalError(f"{p}: cannot open journal: {exc.strerror}") from exc
        try:
            if not readonly:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    raise JournalError(
                        f"{p}: journal is in use by another process (close it there first)"
                    ) from exc
                if not existed:  # make the new directory entry durable too
                    _fsync_dir(p.parent if str(p.parent) else Path("."))
            data = cls._read_all(fd)
            entries, good, tail, damage = _parse(p, data, salvage)
            recovery = None
            if damage and readonly:
                recovery = (f"{damage}; read the {len(entries)} events before it and skipped "
                            f"the rest ({len(tail)} bytes)")
            elif damage:
                recovery = cls._cut_tail(p, fd, good, tail, len(entries), damage)
            elif tail and readonly:
                recovery = (f"{p}: read {len(entries)} complete events; the last line "
                            f"({len(tail)} bytes) is incomplete and was skipped")
            elif tail:
                recovery = cls._cut_tail(p, fd, good, tail, len(entries))
        except BaseException:
            os.close(fd)
            raise
        journal = cls(p, fd, entries, good, recovery)
        journal._readonly = readonly
        return journal

    @staticmethod
    def _read_all(fd: int) -> bytes:
        chunks: list[bytes] = []
        offset = 0
        while True:
            chunk = os.pread(fd, 1 << 20, offset)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            offset += len(chunk)

    @staticmethod
    def _cut_tail(path: Path, fd: int, good: int, tail: bytes, complete: int,
                  damage: str | None = None) -> str:
        torn = _torn_path(path, "damaged" if damage else "torn")
        try:
            tfd = os.open(torn, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(tail)
                while view:
                    view = view[os.write(tfd, view):]
                os.fsync(tfd)
            finally:
                os.close(tfd)
            os.ftruncate(fd, good)
            os.fsync(fd)
        except OSError as exc:
            raise JournalError(
                f"{path}: cannot set aside the torn last line ({len(tail)} bytes) to {torn}: "
                f"{exc.strerror}"
            ) from exc
        _fsync_dir(path.parent)
        if damage:
            msg = (f"{damage}; resumed from the {complete} events before it, and set aside "
                   f"line {complete + 1} onwards ({len(tail)} bytes) to {torn.name}")
        else:
            msg = (f"{path}: recovered {complete} complete events; the torn last line "
                   f"({len(tail)} bytes, line {complete + 1}) was moved to {torn.name}")
        log.warning(msg)
        return msg

    # --- reading ----------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Every line read or written so far, in order."""
        return list(self._entries)

    def events(self) -> list[Event]:
        """The events, in order."""
        return [e.event for e in self._entries]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events())

    @property
    def next_seq(self) -> int:
        return len(self._entries) + 1

    def replay(self) -> MatchState:
        """Fold the events into the match state (:func:`pibg.match.replay`).

        :raises JournalError: an event that does not fit the match so far (with its line).
        """
        return replay_entries(self.path, self._entries)

    # --- writing ----------------------------------------------------------------------------

    def append(self, event: Event, ts: str | None = None) -> int:
        """Write ``event`` as the next line and fsync it; return its ``seq``.

        The event is durable when this returns. On failure nothing of the line stays in the
        file (it is truncated back) and :class:`JournalError` says what to do.

        :raises JournalError: the journal is closed, the disk is full, or the write failed.
        """
        if self._fd is None:
            raise JournalError(f"{self.path}: journal is closed")
        if self._readonly:
            raise JournalError(f"{self.path}: journal was opened read-only")
        seq = self.next_seq
        line = encode_line(seq, event, ts)
        fd = self._fd
        try:
            view = memoryview(line)
            while view:  # one write; the loop only finishes a short write (signal, quota)
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
                os.fsync(fd)
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise JournalError(
                    f"disk full: could not write event {seq} to {self.path}; free space and "
                    f"append it again (the journal keeps the {seq - 1} events before it)"
                ) from exc
            raise JournalError(
                f"{self.path}: could not write event {seq}: {exc.strerror}; the journal keeps "
                f"the {seq - 1} events before it"
            ) from exc
        self._size += len(line)
        self._entries.append(Entry(seq, ts, event))
        return seq

    def extend(self, events: Sequence[Event], ts: str | None = None) -> None:
        """Append several events, one fsync each."""
        for event in events:
            self.append(event, ts)

    # --- lifetime ---------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        """Release the file; safe to call more than once."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._fd is None else f"{len(self._entries)} events"
        return f"<Journal {str(self.path)!r} {state}>"


def replay_entries(path: PathLike, entries: Sequence[Entry]) -> MatchState:
    """Fold journal entries into a match state (honouring ``undo``), naming the line of an
    event that does not fit.

    :raises JournalError: an event the match rules reject (file, line and reason).
    """
    from pibg.match import MatchState, apply, effective_events, replay

    if not entries or not isinstance(entries[0].event, MatchStarted):
        raise JournalError(f"{path}: line 1: expected a match_start event first")
    events = [e.event for e in entries]
    try:
        return replay(events)
    except PibgError as first:
        # find the line: fold the effective events one by one
        line_of = {id(e.event): e.seq for e in entries}
        state = MatchState.new()
        for ev in effective_events(events):
            line = line_of.get(id(ev), "?")
            if isinstance(ev, GameEnded):
                last = state.games[-1] if state.games else None
                if last is None or last.winner is not ev.winner or last.points != ev.points:
                    said = "no game ended" if last is None else (
                        f"{last.winner.label} won {last.points}")
                    raise JournalError(f"{path}: line {line}: game_end says {ev.winner.label} won "
                                       f"{ev.points}, but the moves say {said}") from first
                continue
            try:
                state = apply(state, ev)
            except PibgError as exc:
                raise JournalError(f"{path}: line {line}: {exc}") from exc
        raise JournalError(f"{path}: {first}") from first


def read_events(path: PathLike) -> list[Event]:
    """The complete events of a journal, read-only (a torn tail is skipped, not cut)."""
    with Journal.open(path, readonly=True) as journal:
        return journal.events()
