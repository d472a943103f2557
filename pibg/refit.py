"""Legal plays that fit the boards a game was seen in (pure: no I/O).

The record formats can only say legal moves, turn after turn. When the referee adopts a board
(the players went on from a board no judged turn explains, an illegal play stood), the
record needs moves that lead there. :func:`fit_turns` looks for them: one legal play per
turn, the dice as recorded (any roll where they were not seen), from a position some turns
back to the adopted board, changing as few of the plays recorded at the table as it can.
Where nothing legal leads there, :func:`closest_play` gives the legal play of a roll that
comes nearest to a board (the file then says the rest another way).

>>> from pibg.rules import resolve
>>> start = Position.start()
>>> goal = resolve(start, Dice(3, 1), "8/5 6/5").result.swap_turn()
>>> [(str(f.dice), str(f.play)) for f in fit_turns(start, [Turn(Color.WHITE, None)], goal)]
[('31', '8/5 6/5')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pibg.moves import ALL_THROWS, Dice, Play
from pibg.position import Color, Position
from pibg.rules import legal_plays

#: every roll, highest die first (the order a search tries them in)
ROLLS: tuple[Dice, ...] = ALL_THROWS[::-1]
#: the rolls a game can open with
OPENING_ROLLS: tuple[Dice, ...] = tuple(d for d in ROLLS if not d.is_double)

#: how many (position, roll) move lists the fits for one board may generate (about a second
#: here, a few on a Pi; the boards adopted in practice need a few hundred)
BUDGET = 2000


@dataclass(slots=True)
class Budget:
    """Move lists left to generate, shared by the fits tried for one board."""

    left: int = BUDGET

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn to fit: its ``player``, its ``dice`` (``None``: not seen, any roll), and the
    play recorded at the table (see :func:`moved`), kept where it still fits."""

    player: Color
    dice: Dice | None
    recorded: tuple[int, ...] | None = None
    #: the game's first turn: its roll is the opening roll, never a double
    opening: bool = False

    def rolls(self) -> tuple[Dice, ...]:
        """The rolls the turn may have had."""
        if self.dice is not None:
            return (self.dice,)
        return OPENING_ROLLS if self.opening else ROLLS


def moved(before: Position, after: Position, player: Color) -> tuple[int, ...]:
    """What a play did to its player's own checkers: the change on each point (and the bar).
    Two plays with the same change are the same play, whatever the opponent's board."""
    return tuple(a - b for a, b in zip(after.board(player), before.board(player), strict=True))


@dataclass(frozen=True, slots=True)
class Fitted:
    """A turn as fitted: the roll (the recorded one, or one inferred), the legal play, and
    whether it differs from the play recorded at the table."""

    dice: Dice
    play: Play
    changed: bool


def no_play(position: Position) -> Play:
    """The play of a roll that cannot be played: nothing moves."""
    return Play((), (), position)


def plays_of(position: Position, dice: Dice) -> list[Play]:
    """The legal plays of ``dice``, or the empty play where the roll cannot be played."""
    return legal_plays(position, dice) or [no_play(position)]


def fit_turns(start: Position, turns: Sequence[Turn], goal: Position,
              budget: Budget | int = BUDGET) -> list[Fitted] | None:
    """One legal play per turn, in order, leading from ``start`` (``turns[0]``'s player on
    roll) to ``goal`` (the side after the last turn on roll); none of them ends the game
    unless ``goal`` is a finished game. Of all such, one changing the fewest recorded plays,
    then inferring the fewest rolls, then inferring the smallest ones that play so. ``None``
    where none exists, or none was found within ``budget`` move lists (a :class:`Budget`
    is spent by each fit it is given to).

    :raises ValueError: the turns do not alternate from ``start``'s side on roll.
    """
    side = start.turn
    for t in turns:
        if t.player is not side:
            raise ValueError(f"turn of {t.player.label} where {side.label} is on roll")
        side = side.other
    if goal.turn is not side:
        return None
    if not turns:
        return [] if start == goal else None
    spend = budget if isinstance(budget, Budget) else Budget(budget)
    # each layer: position (next side on roll) -> (cost, previous position, fitted turn)
    layers: list[dict[Position, tuple[tuple[int, int, int], Position | None, Fitted | None]]]
    layers = [{start: ((0, 0, 0), None, None)}]
    for k, turn in enumerate(turns):
        last = k == len(turns) - 1
        nxt: dict[Position, tuple[tuple[int, int, int], Position | None, Fitted | None]] = {}
        for pos, (cost, _, _) in layers[-1].items():
            for dice in turn.rolls():
                if not spend.take():
                    return None
                for play in plays_of(pos, dice):
                    after = play.result.swap_turn()
                    if last:
                        if after != goal:
                            continue
                    elif play.result.winner() is not None or not _can_reach(
                            after, goal, turns[k + 1:]):
                        continue
                    changed = (turn.recorded is not None
                               and moved(pos, play.result, turn.player) != turn.recorded)
                    # then the fewest rolls inferred, then the smallest rolls that play so
                    waste = (sum(dice.steps) - pos.pips(turn.player)
                             + play.result.pips(turn.player)) if turn.dice is None else 0
                    c = (cost[0] + changed, cost[1] + (turn.dice is None), cost[2] + waste)
                    old = nxt.get(after)
                    if old is None or c < old[0]:
                        nxt[after] = (c, pos, Fitted(dice, play, changed))
        if not nxt:
            return None
        layers.append(nxt)
    if goal not in layers[-1]:
        return None
    out: list[Fitted] = []
    at: Position | None = goal
    for layer in reversed(layers[1:]):
        assert at is not None
        _, prev, fitted = layer[at]
        assert fitted is not None
        out.append(fitted)
        at = prev
    return out[::-1]


def _can_reach(pos: Position, goal: Position, rest: Sequence[Turn]) -> bool:
    """Whether ``goal`` may still follow ``pos`` in the turns ``rest`` (necessary conditions
    only): a checker borne off stays off; a side moves at most 24 pips a turn, and one with
    no turn left only loses checkers to the bar."""
    for color in (Color.WHITE, Color.BLACK):
        mine = sum(1 for t in rest if t.player is color)
        theirs = len(rest) - mine
        now, want = pos.board(color), goal.board(color)
        if sum(want) > sum(now):
            return False  # borne off, or never there
        if mine == 0:
            lost = 0
            for i in range(24):
                if want[i] > now[i]:
                    return False
                lost += now[i] - want[i]
            if want[24] - now[24] != lost or lost > 4 * theirs:
                return False
        elif pos.pips(color) - goal.pips(color) > 24 * mine:
            return False
    return True


def distance(a: Position, b: Position) -> int:
    """How many checkers stand differently on two boards (both sides, bar and off)."""
    total = 0
    for color in (Color.WHITE, Color.BLACK):
        x, y = a.board(color), b.board(color)
        total += sum(abs(p - q) for p, q in zip(x, y, strict=True))
        total += abs(a.off(color) - b.off(color))
    return total


def closest_play(position: Position, dice: Dice, want: Position) -> Play:
    """The legal play of ``dice`` whose result (the mover on roll) is nearest ``want``: one
    that ends the game as ``want`` does (or does not), then the fewest checkers astray."""
    ends = want.winner()
    how = want.termination()

    def key(play: Play) -> tuple[bool, bool, int]:
        r = play.result
        return (r.winner() != ends, r.termination() != how, distance(r, want))

    return min(plays_of(position, dice), key=key)


def closest_roll(position: Position, want: Position, opening: bool = False
                 ) -> tuple[Dice, Play]:
    """The roll and legal play coming nearest ``want`` (for a turn whose dice nobody saw;
    ``opening``: the game's first, never a double)."""
    best: tuple[tuple[bool, bool, int], Dice, Play] | None = None
    for dice in OPENING_ROLLS if opening else ROLLS:
        play = closest_play(position, dice, want)
        r = play.result
        k = (r.winner() != want.winner(), r.termination() != want.termination(),
             distance(r, want))
        if best is None or k < best[0]:
            best = (k, dice, play)
    assert best is not None
    return best[1], best[2]


__all__ = [
    "BUDGET",
    "ROLLS",
    "Budget",
    "Fitted",
    "Turn",
    "closest_play",
    "closest_roll",
    "distance",
    "fit_turns",
    "moved",
    "no_play",
    "plays_of",
]
