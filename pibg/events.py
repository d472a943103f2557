"""Match events: what happened at the table, in the order it happened.

Pure values. Folding events with :func:`pibg.match.apply` gives the :class:`~pibg.match.MatchState`;
the journal stores exactly these events, one JSON object a line (``to_json``/``from_json``),
so a journal replays into the same state. Colours are ``"white"``/``"black"``; White is the
lighter colour and, in records, player 0 of a ``.mat`` file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from pibg.exc import JournalError


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """How the match is played. ``length`` 0 means money play."""

    length: int = 0
    white: str = "White"
    black: str = "Black"
    crawford: bool = True
    jacoby: bool = False
    beaver: bool = False
    automatic_doubles: bool = False
    max_automatic_doubles: int = 1
    cube_limit: int = 0  # 0 = no limit on the cube value

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"match length must be 0 (money) or more, got {self.length}")
        if self.length and (self.jacoby or self.beaver or self.automatic_doubles):
            raise ValueError("Jacoby, beavers and automatic doubles are money-play options; "
                             "set match length 0 to use them")

    @property
    def money(self) -> bool:
        return self.length == 0


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = asdict(value) if isinstance(value, MatchSettings) else (
                list(value) if isinstance(value, tuple) else value)
        return out


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    """A match begins; ``score`` (White, Black) is where it begins: 0-0, or the score of a
    match recorded from the middle (an imported transcription that starts mid-way)."""

    kind: ClassVar[str] = "match_start"
    settings: MatchSettings = field(default_factory=MatchSettings)
    score: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """A new game is set up (the starting position, or ``position_id`` for a set-up position,
    White on roll unless ``turn`` says otherwise)."""

    kind: ClassVar[str] = "game_start"
    position_id: str = ""
    turn: str = "white"


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    """One die each; a tie is recorded too (re-roll; an automatic double when on)."""

    kind: ClassVar[str] = "opening_roll"
    white: int = 0
    black: int = 0


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    kind: ClassVar[str] = "roll"
    player: str = "white"
    dice: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Reread(Event):
    """The dice were read again before the move and show ``dice``, not the roll recorded
    (a misread die set right; the roll replaces the one recorded)."""

    kind: ClassVar[str] = "reread"
    player: str = "white"
    dice: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A judged play: notation from the mover's side and the resulting Position ID (mover
    still on roll). ``illegal`` marks a condoned illegal play (kept as played).
    ``dice_seen`` is false where the camera never read the roll and ``dice`` were inferred
    from the boards before and after; ``flag`` says why a turn was committed in doubt (empty
    for a turn seen plainly): the record keeps it for review."""

    kind: ClassVar[str] = "play"
    player: str = "white"
    dice: tuple[int, int] = (0, 0)
    play: str = ""
    position_id: str = ""
    illegal: bool = False
    dice_seen: bool = True
    flag: str = ""


@dataclass(frozen=True, slots=True)
class Doubled(Event):
    kind: ClassVar[str] = "double"
    player: str = "white"


@dataclass(frozen=True, slots=True)
class Took(Event):
    kind: ClassVar[str] = "take"
    player: str = "white"


@dataclass(frozen=True, slots=True)
class Dropped(Event):
    kind: ClassVar[str] = "drop"
    player: str = "white"


@dataclass(frozen=True, slots=True)
class Beavered(Event):
    kind: ClassVar[str] = "beaver"
    player: str = "white"


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    """``player`` resigns and gives ``points`` times the cube (1, 2 or 3)."""

    kind: ClassVar[str] = "resign"
    player: str = "white"
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class IllegalFlagged(Event):
    """The camera saw a position no legal play explains (for the record; no state change)."""

    kind: ClassVar[str] = "illegal"
    player: str = "white"
    seen_position_id: str = ""
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Corrected(Event):
    """An illegal play was put right at the table (no state change)."""

    kind: ClassVar[str] = "corrected"
    player: str = "white"


@dataclass(frozen=True, slots=True)
class SetUp(Event):
    """The board was accepted as a new position (resync), ``turn`` on roll."""

    kind: ClassVar[str] = "setup"
    position_id: str = ""
    turn: str = "white"


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """The last judged turn was taken back (replay drops it and everything after it)."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """Informational: derived from the moves; replay checks it against the state."""

    kind: ClassVar[str] = "game_end"
    winner: str = "white"
    points: int = 1
    termination: str = "single"  # single | gammon | backgammon | drop | resign


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    kind: ClassVar[str] = "match_end"
    winner: str = "white"
    score: tuple[int, int] = (0, 0)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (MatchStarted, GameStarted, OpeningRoll, Rolled, Reread, Moved, Doubled, Took,
                Dropped, Beavered, Resigned, IllegalFlagged, Corrected, SetUp, Undone,
                GameEnded, MatchEnded)
}


def event_from_json(data: dict[str, Any]) -> Event:
    """Rebuild an event from its JSON object.

    :raises JournalError: unknown event kind or fields.
    """
    kind = data.get("event")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise JournalError(f"unknown event {kind!r}; expected one of {sorted(EVENT_TYPES)}")
    kwargs: dict[str, Any] = {}
    names = {f.name for f in fields(cls)}
    for key, value in data.items():
        if key in ("event", "seq", "ts"):
            continue
        if key not in names:
            raise JournalError(f"event {kind!r} has no field {key!r}")
        if key == "settings":
            value = MatchSettings(**value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise JournalError(f"bad {kind!r} event: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Noted(Event):
    """What a record could not say and was assumed when it was read (an unrecorded move, a
    score that did not add up, a skipped row), for the record; no state change."""

    kind: ClassVar[str] = "note"
    text: str = ""


EVENT_TYPES[Noted.kind] = Noted
