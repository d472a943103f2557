"""Backgammon positions: the immutable :class:`Position` and its codecs.

Conventions (as in GNU Backgammon):

* Each side's checkers are counted on points 1..24 *from its own side*: a side's 1-point is the
  deepest point of its home board, it bears off past it, and it enters from the bar onto the
  opponent's home board (its own points 19..24). ``BAR`` (25) and ``OFF`` (0) name the two
  special places in play notation.
* A board is a 25-tuple: index ``p - 1`` holds the checkers on point ``p``, index 24 the bar.
  Borne-off checkers are not stored: they are ``15`` minus the rest.
* White's point ``p`` is Black's point ``25 - p``. White is the lighter colour.

Codecs: gnubg Position ID (``from_id``/``position_id``), XGID (``from_xgid``/``xgid``) and the
24-point signed form seen from White (``from_signed``/``signed``) that the vision layer reads.
"""

from __future__ import annotations

import base64
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from operator import sub
from typing import TypeAlias

from pibg.exc import InvalidPositionIdError, PositionError

Point: TypeAlias = int
OFF: Point = 0
BAR: Point = 25
CHECKERS = 15

Board: TypeAlias = tuple[int, ...]


class Color(enum.IntEnum):
    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def label(self) -> str:
        return self.name.lower()


class Termination(enum.IntEnum):
    """How a game ended: the multiplier of the cube value."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


_START: Board = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def _check_board(board: Sequence[int], who: str) -> Board:
    if len(board) != 25:
        raise PositionError(
            f"{who}'s board needs 25 counts (points 1-24 and bar), got {len(board)}")
    out = tuple(int(n) for n in board)
    for i, n in enumerate(out):
        if n < 0:
            where = "the bar" if i == 24 else f"point {i + 1}"
            raise PositionError(f"{who} has a negative count ({n}) on {where}")
    total = sum(out)
    if total > CHECKERS:
        raise PositionError(f"{who} has {total} checkers on the board and bar; at most 15 exist")
    return out


@dataclass(frozen=True, slots=True)
class Position:
    """Where every checker stands, and who is on roll.

    ``white`` and ``black`` are each side's board from its own side (see the module docstring).
    Construct with :meth:`start`, :meth:`from_id`, :meth:`from_xgid`, :meth:`from_signed` or
    directly; the constructor validates (15 checkers at most a side, no point held by both).

    >>> Position.start().position_id()
    '4HPwATDgc/ABMA'
    """

    white: Board
    black: Board
    turn: Color = Color.WHITE

    def __post_init__(self) -> None:
        w = _check_board(self.white, "White")
        b = _check_board(self.black, "Black")
        object.__setattr__(self, "white", w)
        object.__setattr__(self, "black", b)
        object.__setattr__(self, "turn", Color(self.turn))
        for i in range(24):
            if w[i] and b[23 - i]:
                raise PositionError(
                    f"point {i + 1} (from White) holds both colours: "
                    f"{w[i]} White and {b[23 - i]} Black"
                )

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def _make(cls, white: Board, black: Board, turn: Color) -> Position:
        """Build without validation (for boards the rules engine made itself)."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "white", white)
        object.__setattr__(pos, "black", black)
        object.__setattr__(pos, "turn", turn)
        return pos

    @classmethod
    def start(cls, turn: Color = Color.WHITE) -> Position:
        """The standard starting position."""
        return cls._make(_START, _START, turn)

    @classmethod
    def from_boards(cls, mover: Sequence[int], opponent: Sequence[int],
                    turn: Color = Color.WHITE) -> Position:
        """Build from the side on roll's board and its opponent's (each from its own side)."""
        if turn is Color.WHITE:
            return cls(tuple(mover), tuple(opponent), turn)
        return cls(tuple(opponent), tuple(mover), turn)

    # --- views ------------------------------------------------------------------------------

    def board(self, color: Color) -> Board:
        return self.white if color is Color.WHITE else self.black

    @property
    def mover(self) -> Board:
        """The board of the side on roll, from its own side."""
        return self.white if self.turn is Color.WHITE else self.black

    @property
    def opponent(self) -> Board:
        return self.black if self.turn is Color.WHITE else self.white

    def off(self, color: Color) -> int:
        return CHECKERS - sum(self.board(color))

    def bar(self, color: Color) -> int:
        return self.board(color)[24]

    def pips(self, color: Color) -> int:
        """Pip count: the pips ``color`` needs to bear every checker off."""
        board = self.board(color)
        return sum((i + 1) * n for i, n in enumerate(board))

    def with_turn(self, turn: Color) -> Position:
        return Position._make(self.white, self.black, Color(turn))

    def swap_turn(self) -> Position:
        return Position._make(self.white, self.black, self.turn.other)

    # --- game over --------------------------------------------------------------------------

    def winner(self) -> Color | None:
        """The side that has borne off all 15 checkers, if any."""
        if sum(self.white) == 0:
            return Color.WHITE
        if sum(self.black) == 0:
            return Color.BLACK
        return None

    def termination(self) -> Termination | None:
        """How the game ends if it is over (docs/rules.md rule 11), else None.

        Gammon: the loser has borne off none. Backgammon: that, and the loser still has a
        checker on the bar or in the winner's home board (the loser's points 19-24).
        """
        won = self.winner()
        if won is None:
            return None
        loser = self.board(won.other)
        if sum(loser) < CHECKERS:
            return Termination.SINGLE
        if loser[24] or any(loser[18:24]):
            return Termination.BACKGAMMON
        return Termination.GAMMON

    # --- gnubg Position ID ------------------------------------------------------------------

    def key(self) -> bytes:
        """gnubg's 10-byte position key: the opponent's checkers first, then the mover's."""
        bits = 0
        nbit = 0
        for board in (self.opponent, self.mover):
            for n in board:
                # n ones then a zero, least significant bit first
                bits |= ((1 << n) - 1) << nbit
                nbit += n + 1
        return bits.to_bytes(10, "little")

    def position_id(self) -> str:
        """The gnubg Position ID (14 characters), seen from the side on roll."""
        return base64.b64encode(self.key()).decode("ascii")[:14]

    @classmethod
    def from_id(cls, position_id: str, turn: Color = Color.WHITE) -> Position:
        """Decode a gnubg Position ID; ``turn`` says which colour the side on roll plays.

        :raises InvalidPositionIdError: not 14 base64 characters, or not a position.
        """
        pid = position_id.strip()
        if len(pid) != 14 or any(c not in _B64 for c in pid):
            raise InvalidPositionIdError(
                f"bad Position ID {position_id!r}: expected 14 base64 characters "
                f"like '4HPwATDgc/ABMA'"
            )
        raw = base64.b64decode(pid + "==")
        bits = int.from_bytes(raw, "little")
        boards: list[list[int]] = [[0] * 25, [0] * 25]
        side, idx = 0, 0
        for k in range(80):
            if side > 1:
                if bits >> k:
                    raise InvalidPositionIdError(
                        f"bad Position ID {position_id!r}: bits set after both boards"
                    )
                break
            if bits >> k & 1:
                boards[side][idx] += 1
            else:
                idx += 1
                if idx == 25:
                    side, idx = side + 1, 0
        if side < 2:
            raise InvalidPositionIdError(
                f"bad Position ID {position_id!r}: too many checkers encoded"
            )
        try:
            return cls.from_boards(boards[1], boards[0], Color(turn))
        except PositionError as exc:
            raise InvalidPositionIdError(f"bad Position ID {position_id!r}: {exc}") from exc

    # --- XGID -------------------------------------------------------------------------------

    def xgid(self) -> str:
        """XGID with White as the bottom player (upper case); cube, score and dice empty."""
        chars = ["-"] * 26
        for i in range(24):
            w = self.white[i]
            b = self.black[23 - i]
            if w:
                chars[i + 1] = chr(ord("A") + w - 1)
            elif b:
                chars[i + 1] = chr(ord("a") + b - 1)
        if self.black[24]:
            chars[0] = chr(ord("a") + self.black[24] - 1)
        if self.white[24]:
            chars[25] = chr(ord("A") + self.white[24] - 1)
        turn = 1 if self.turn is Color.WHITE else -1
        return f"XGID={''.join(chars)}:0:0:{turn}:00:0:0:0:0:10"

    @classmethod
    def from_xgid(cls, xgid: str) -> Position:
        """Decode the position and the side on roll of an XGID (White = bottom, upper case).

        :raises InvalidPositionIdError: malformed XGID.
        """
        text = xgid.strip()
        if text.startswith("XGID="):
            text = text[5:]
        fields = text.split(":")
        pos = fields[0]
        if len(pos) != 26 or len(fields) < 4:
            raise InvalidPositionIdError(
                f"bad XGID {xgid!r}: expected 26 board characters and ':'-separated fields"
            )
        white = [0] * 25
        black = [0] * 25
        for i, ch in enumerate(pos):
            if ch == "-":
                continue
            if "A" <= ch <= "O":
                n, mine = ord(ch) - ord("A") + 1, True
            elif "a" <= ch <= "o":
                n, mine = ord(ch) - ord("a") + 1, False
            else:
                raise InvalidPositionIdError(f"bad XGID {xgid!r}: character {ch!r} at {i}")
            if i == 0:
                if mine:
                    raise InvalidPositionIdError(
                        f"bad XGID {xgid!r}: White checkers on Black's bar")
                black[24] = n
            elif i == 25:
                if not mine:
                    raise InvalidPositionIdError(
                        f"bad XGID {xgid!r}: Black checkers on White's bar")
                white[24] = n
            elif mine:
                white[i - 1] = n
            else:
                black[24 - i] = n
        turn_field = fields[3].strip()
        if turn_field not in ("1", "-1"):
            raise InvalidPositionIdError(f"bad XGID {xgid!r}: turn field must be 1 or -1")
        try:
            turn = Color.WHITE if turn_field == "1" else Color.BLACK
            return cls(tuple(white), tuple(black), turn)
        except PositionError as exc:
            raise InvalidPositionIdError(f"bad XGID {xgid!r}: {exc}") from exc

    # --- signed form seen from White -------------------------------------------------------

    def signed(self) -> tuple[int, ...]:
        """24 signed counts, index 0 = White's 1-point: + White, - Black."""
        return tuple(map(sub, self.white[:24], self.black[23::-1]))

    @classmethod
    def from_signed(
        cls,
        points: Sequence[int],
        bar: tuple[int, int] = (0, 0),
        off: tuple[int, int] | None = None,
        turn: Color = Color.WHITE,
    ) -> Position:
        """Build from the vision layer's form: 24 signed counts seen from White, and
        ``bar``/``off`` as ``(white, black)``. With ``off`` given, each colour must total 15.

        :raises PositionError: wrong length, more than 15 checkers, or totals that are not 15.
        """
        if len(points) != 24:
            raise PositionError(f"need 24 signed point counts, got {len(points)}")
        white = [0] * 25
        black = [0] * 25
        for i, n in enumerate(points):
            n = int(n)
            if n > 0:
                white[i] = n
            elif n < 0:
                black[23 - i] = -n
        white[24], black[24] = int(bar[0]), int(bar[1])
        pos = cls(tuple(white), tuple(black), Color(turn))
        if off is not None:
            for color, n_off in zip(Color, off, strict=True):
                on = sum(pos.board(color))
                if on + n_off != CHECKERS:
                    raise PositionError(
                        f"{color.label} has {on} checkers on the board and bar and {n_off} off: "
                        f"{on + n_off}, not 15"
                    )
        return pos

    # --- text -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        turn = "" if self.turn is Color.WHITE else ", Color.BLACK"
        return f"Position.from_id({self.position_id()!r}{turn})"

    def ascii(self) -> str:
        """A plain-text board seen from White (White's home at the bottom right)."""
        s = self.signed()

        def cell(n: int) -> str:
            if n == 0:
                return " . "
            return f"{'O' if n > 0 else 'X'}{abs(n):<2d}"

        top = " ".join(cell(s[i]) for i in range(12, 18)) + " | " + " ".join(
            cell(s[i]) for i in range(18, 24))
        bottom = " ".join(cell(s[i]) for i in range(11, 5, -1)) + " | " + " ".join(
            cell(s[i]) for i in range(5, -1, -1))
        lines = [
            " 13  14  15  16  17  18  | 19  20  21  22  23  24",
            " " + top,
            f"   bar: O(White) {self.white[24]}  X(Black) {self.black[24]}"
            f"    off: O {self.off(Color.WHITE)}  X {self.off(Color.BLACK)}",
            " " + bottom,
            " 12  11  10   9   8   7  |  6   5   4   3   2   1",
            f"   {self.turn.label} on roll   "
            f"pips O {self.pips(Color.WHITE)}  X {self.pips(Color.BLACK)}",
        ]
        return "\n".join(lines)


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
