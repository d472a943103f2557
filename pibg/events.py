"""Match events: what happened at the table, in the order it happened.

Pure, immutable values with typed fields: a player is a :class:`~pibg.position.Color`, a
throw a :class:`~pibg.moves.Dice` (in the order the dice were read), a play a
:class:`~pibg.moves.Play` (its steps and the board they lead to), a board a
:class:`~pibg.position.Position`. Folding events with :func:`pibg.match.apply` gives the
:class:`~pibg.match.MatchState`. The journal stores exactly these events, one JSON object a
line; that text form (colours as ``"white"``/``"black"``, plays in gnubg notation, positions
as gnubg Position IDs) is read and written in :mod:`pibg.journal` alone, so a journal replays
into the same state. White is the lighter colour and, in records, player 0 of a ``.mat`` file.

>>> from pibg.moves import Dice
>>> from pibg.rules import resolve
>>> Rolled(Color.BLACK, Dice(6, 5)).dice.high
6
>>> moved = Moved(Color.WHITE, Dice(6, 5), resolve(Position.start(), (6, 5), "24/13"))
>>> moved.notation, len(moved.play.moves), moved.result.turn is Color.WHITE
('24/13', 2, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from pibg.moves import Dice, Play
from pibg.position import Color, Position


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
    """What every event is; ``kind`` names it (in messages, and in the journal)."""

    kind: ClassVar[str] = ""


def _turned(position: Position, player: Color) -> Position:
    """``position`` with ``player`` on roll (a board after a play: the mover still on roll)."""
    return position if position.turn is player else position.with_turn(player)


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    """A match begins; ``score`` (White, Black) is where it begins: 0-0, or the score of a
    match recorded from the middle (an imported transcription that starts mid-way)."""

    kind: ClassVar[str] = "match_start"
    settings: MatchSettings = MatchSettings()
    score: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """A new game is set up: the starting position, or a set-up ``position`` (its side on
    roll until the opening roll decides)."""

    kind: ClassVar[str] = "game_start"
    position: Position = Position.start()

    @property
    def set_up(self) -> bool:
        """Whether the game starts from anything but the starting position, White on roll."""
        return self.position != Position.start()


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    """One die each; a tie is recorded too (re-roll; an automatic double when on)."""

    kind: ClassVar[str] = "opening_roll"
    white: int
    black: int


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    kind: ClassVar[str] = "roll"
    player: Color
    dice: Dice


@dataclass(frozen=True, slots=True)
class Reread(Event):
    """The dice were read again before the move and show ``dice``, not the roll recorded
    (a misread die set right; the roll replaces the one recorded)."""

    kind: ClassVar[str] = "reread"
    player: Color
    dice: Dice


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A judged play: ``play``, its single steps from the mover's side and ``play.result``
    (also :attr:`result`), the board after it with the mover still on roll (its turn is set
    to ``player``). The steps are in the order a record lists them (see
    :func:`pibg.record.recorded`), so that every reader writes the same play; a turn with no
    legal move is a play of no steps, the board unchanged.

    ``illegal`` marks a condoned illegal play, kept as played: no legal play of ``dice`` leads
    to its board. The referee saw only that board (a play of no steps); a record read in
    tolerantly keeps the steps it wrote, each as written (one may span several dice).
    ``written`` is the play as the record it was read from wrote it (a ``.mat`` file's text,
    an ``.sgf`` file's steps) where that is not the play's own notation: the journal keeps
    it, so an imported match's journal says what its file said (see :attr:`notation`).

    ``dice_seen`` is false where the camera never read the roll and ``dice`` were inferred
    from the boards before and after; ``flag`` says why a turn was committed in doubt (empty
    for a turn seen plainly): the record keeps it for review. ``reviewed`` is set where a
    reviewer set the dice after the game (an :class:`Amended` applied by
    :func:`pibg.match.effective_events`): what the table had recorded, and why the dice were
    set; such a turn is no longer in doubt."""

    kind: ClassVar[str] = "play"
    player: Color
    dice: Dice
    play: Play
    illegal: bool = False
    dice_seen: bool = True
    flag: str = ""
    reviewed: str = ""
    written: str = ""

    def __post_init__(self) -> None:
        if self.play.result.turn is not self.player:
            turned = _turned(self.play.result, self.player)
            object.__setattr__(self, "play", replace(self.play, result=turned))
        if self.written and self.written == str(self.play):
            object.__setattr__(self, "written", "")  # the play's own notation: nothing to keep

    @property
    def result(self) -> Position:
        """The board after the play, the mover still on roll."""
        return self.play.result

    @property
    def notation(self) -> str:
        """The play in gnubg notation, as the journal and what is shown write it: as its
        record wrote it, else the play's own (``""`` for no move, or an illegal play whose
        steps nobody saw)."""
        return self.written or str(self.play)


@dataclass(frozen=True, slots=True)
class Doubled(Event):
    kind: ClassVar[str] = "double"
    player: Color


@dataclass(frozen=True, slots=True)
class Took(Event):
    kind: ClassVar[str] = "take"
    player: Color


@dataclass(frozen=True, slots=True)
class Dropped(Event):
    kind: ClassVar[str] = "drop"
    player: Color


@dataclass(frozen=True, slots=True)
class Beavered(Event):
    kind: ClassVar[str] = "beaver"
    player: Color


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    """``player`` resigns and gives ``multiplier`` times the cube (1, 2 or 3)."""

    kind: ClassVar[str] = "resign"
    player: Color
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class IllegalFlagged(Event):
    """The camera saw a position no legal play explains (for the record; no state change):
    ``seen``, the board with the mover still on roll, or ``None`` where none was read."""

    kind: ClassVar[str] = "illegal"
    player: Color
    seen: Position | None = None
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.seen is not None:
            object.__setattr__(self, "seen", _turned(self.seen, self.player))


@dataclass(frozen=True, slots=True)
class Corrected(Event):
    """An illegal play was put right at the table (no state change)."""

    kind: ClassVar[str] = "corrected"
    player: Color


@dataclass(frozen=True, slots=True)
class SetUp(Event):
    """The board was accepted as a new ``position`` (resync), its side on roll."""

    kind: ClassVar[str] = "setup"
    position: Position


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """The last judged turn was taken back (replay drops it and everything after it)."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """Informational: derived from the moves; replay checks it against the state."""

    kind: ClassVar[str] = "game_end"
    winner: Color
    points: int = 1
    termination: str = "single"  # single | gammon | backgammon | drop | resign


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    kind: ClassVar[str] = "match_end"
    winner: Color
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Noted(Event):
    """What a record could not say and was assumed when it was read (an unrecorded move, a
    score that did not add up, a skipped row), for the record; no state change."""

    kind: ClassVar[str] = "note"
    text: str = ""


@dataclass(frozen=True, slots=True)
class Amended(Event):
    """After game ``game`` (1-based) ended, a reviewer set the dice of its play number
    ``move`` (1-based, both players' plays counted in order, as the page's move list and
    ``pibg amend`` number them) to ``dice``: a throw whose legal play leads from the board
    before that turn to the board recorded after it. Nothing recorded before is changed:
    :func:`pibg.match.effective_events` plays the turn with these dice, no longer in doubt;
    an undo never takes an amendment back. ``note`` says why, for the record."""

    kind: ClassVar[str] = "amend"
    game: int
    move: int
    dice: Dice
    note: str = ""

    def __post_init__(self) -> None:
        if self.game < 1 or self.move < 1:
            raise ValueError(f"games and moves are numbered from 1, got game {self.game} "
                             f"move {self.move}")


#: every kind of event
EVENT_TYPES: tuple[type[Event], ...] = (
    MatchStarted, GameStarted, OpeningRoll, Rolled, Reread, Moved, Doubled, Took, Dropped,
    Beavered, Resigned, IllegalFlagged, Corrected, SetUp, Undone, GameEnded, MatchEnded, Noted,
    Amended)
