"""The rules of movement: every legal play, and why a play is not legal.

Pure functions over :class:`~pibg.position.Position` (docs/rules.md, rules 1-5):

* :func:`legal_plays` lists every legal play once per distinct resulting position, as GNU
  Backgammon does: the most dice that can be played are played; when only one die of a
  non-double can be played, the larger one if it can be; the bar first; bearing off only with
  all 15 home, from the exact point or, with a higher die, from the highest point.
* :func:`resolve` resolves a written play (``"24/18 13/11"``) against the legal set and
  raises :class:`~pibg.exc.IllegalPlayError` saying why it is illegal.
* :func:`explain_result` says why a *resulting position* (what the camera sees after a turn)
  is not the result of any legal play.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from pibg.exc import IllegalPlayError, InvalidMoveError
from pibg.moves import Dice, Move, Play, parse_moves
from pibg.position import BAR, OFF, Color, Position

_Step = tuple[int, int, bool]  # (src index 0..24, dst index -1..23, hit)


def _do_step(me: list[int], opp: list[int], s: int, d: int) -> bool:
    """Apply a step known to be legal; return whether it hit."""
    me[s] -= 1
    t = s - d
    if t < 0:
        return False
    me[t] += 1
    if opp[23 - t] == 1:
        opp[23 - t] = 0
        opp[24] += 1
        return True
    return False


def _undo_step(me: list[int], opp: list[int], s: int, d: int, hit: bool) -> None:
    me[s] += 1
    t = s - d
    if t < 0:
        return
    me[t] -= 1
    if hit:
        opp[23 - t] = 1
        opp[24] -= 1


class _Collector:
    __slots__ = ("best", "found", "me", "opp", "outside")

    def __init__(self, me: list[int], opp: list[int]) -> None:
        self.me = me
        self.opp = opp
        self.outside = sum(me[6:25])  # checkers not yet home (bar included)
        self.best = 0  # most steps used so far
        # key -> (steps, dice values used)
        self.found: dict[tuple[int, ...], tuple[tuple[_Step, ...], tuple[int, ...]]] = {}

    def record(self, steps: list[_Step], used: list[int]) -> None:
        n = len(steps)
        if n < self.best:
            return
        if n > self.best:
            self.best = n
            self.found.clear()
        key = (*self.me, *self.opp)
        if key not in self.found:
            self.found[key] = (tuple(steps), tuple(used))


def _search(c: _Collector, dice: tuple[int, ...], start: int, steps: list[_Step],
            used: list[int]) -> None:
    """Depth-first over the remaining ``dice``; with doubles (``start`` < 25) sources never
    increase, which reaches every result of a double once without trying every order."""
    me, opp = c.me, c.opp
    moved = False
    if dice:
        d = dice[0]
        rest = dice[1:]
        double = start < 25
        s = 24 if me[24] else min(start, 23)
        low = 24 if me[24] else 0
        while s >= low:
            if me[s]:
                t = s - d
                if t >= 0:
                    ok = opp[23 - t] < 2
                elif c.outside:
                    ok = False
                elif t == -1:
                    ok = True
                else:
                    ok = True
                    for i in range(s + 1, 6):
                        if me[i]:
                            ok = False
                            break
                if ok:
                    moved = True
                    me[s] -= 1
                    came_home = s >= 6 and t < 6
                    if came_home:
                        c.outside -= 1
                    hit = False
                    if t >= 0:
                        me[t] += 1
                        if opp[23 - t] == 1:
                            opp[23 - t] = 0
                            opp[24] += 1
                            hit = True
                    steps.append((s, t, hit))
                    used.append(d)
                    _search(c, rest, s if double else 25, steps, used)
                    steps.pop()
                    used.pop()
                    if t >= 0:
                        me[t] -= 1
                        if hit:
                            opp[23 - t] = 1
                            opp[24] -= 1
                    if came_home:
                        c.outside += 1
                    me[s] += 1
            s -= 1
    if not moved:
        c.record(steps, used)


# every possible single step, built once: plays share these immutable values
_MOVE = {(s, t): Move(s + 1, max(t + 1, OFF)) for s in range(25) for t in range(-6, s)}


def _to_play(pos: Position, key: tuple[int, ...], steps: tuple[_Step, ...]) -> Play:
    me = key[:25]
    opp = key[25:]
    if pos.turn is Color.WHITE:
        result = Position._make(me, opp, pos.turn)
    else:
        result = Position._make(opp, me, pos.turn)
    return Play(tuple([_MOVE[s, t] for s, t, _ in steps]), tuple([h for _, _, h in steps]),
                result)


def legal_plays(position: Position, dice: Dice | Sequence[int]) -> list[Play]:
    """Every legal play for the side on roll, once per distinct resulting position.

    The result of each play keeps the mover on roll (as gnubg's move lists do). An empty list
    means the roll cannot be played at all.

    >>> len(legal_plays(Position.start(), (3, 1)))
    16
    """
    return list(_legal_plays(position, Dice.of(dice)))


@lru_cache(maxsize=512)
def _legal_plays(position: Position, dice: Dice) -> tuple[Play, ...]:
    # the referee asks for the same (position, roll) several times a turn; values are immutable
    return tuple(_generate(position, dice))


def generate_plays(position: Position, dice: Dice) -> list[Play]:
    """:func:`legal_plays` without the cache (for benchmarks)."""
    return _generate(position, dice)


def _generate(position: Position, dice: Dice) -> list[Play]:
    me = list(position.mover)
    opp = list(position.opponent)
    c = _Collector(me, opp)
    if dice.is_double:
        _search(c, (dice.a,) * 4, 24, [], [])
    else:
        _search(c, (dice.a, dice.b), 25, [], [])
        _search(c, (dice.b, dice.a), 25, [], [])
    found = c.found
    if c.best == 0:
        return []
    if c.best == 1 and not dice.is_double:
        high = dice.high
        if any(used[0] == high for _, used in found.values()):
            found = {k: v for k, v in found.items() if v[1][0] == high}
    return [_to_play(position, key, steps) for key, (steps, _) in found.items()]


# --- explaining illegal plays -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Relax:
    blocked: bool = False
    bar: bool = False
    bearoff: bool = False


def _step_problem(me: list[int], opp: list[int], s: int, d: int, relax: _Relax) -> str | None:
    """Why the step is illegal (None if legal under ``relax``); points from the mover's side."""
    src = s + 1
    if not me[s]:
        return "no checker on the bar" if s == 24 else f"no checker on point {src}"
    if me[24] and s != 24 and not relax.bar:
        return "must enter from the bar first"
    t = s - d
    if t >= 0:
        if opp[23 - t] >= 2 and not relax.blocked:
            return f"point {t + 1} is blocked"
        return None
    if relax.bearoff:
        return None
    outside = [i + 1 for i in range(6, 24) if me[i]]
    if me[24] or outside:
        where = "the bar" if me[24] else f"point {max(outside)}"
        return f"bear-off not allowed: checker on {where}"
    if t < -1:
        higher = [i + 1 for i in range(s + 1, 6) if me[i]]
        if higher:
            return f"bear-off from {src} with a {d} not allowed: checker on {max(higher)}"
    return None


def resolve(position: Position, dice: Dice | Sequence[int], text: str) -> Play:
    """Resolve written notation into the legal play it describes.

    :raises InvalidMoveError: the text does not parse.
    :raises IllegalPlayError: the play is not legal; ``reasons`` say why.
    """
    dice = Dice.of(dice)
    segments = parse_moves(text)
    legal = legal_plays(position, dice)
    pid = position.position_id()
    if not legal:
        if not segments:
            return Play((), (), position)
        raise IllegalPlayError(
            f"illegal play {text!r} for {dice} in {pid}: no legal move, the turn passes",
            ("no legal move: the turn passes",),
        )
    if not segments:
        raise IllegalPlayError(
            f"illegal play {text!r} for {dice} in {pid}: a legal move exists",
            ("a legal move exists: the roll must be played",),
        )
    attempt = _walk(position, dice, segments)
    if isinstance(attempt, Play):
        for p in legal:
            if p.result == attempt.result:
                return p
        reasons = _shortfall_reasons(position, dice, attempt, legal)
        points = attempt.points
    else:
        reasons, points = attempt
    raise IllegalPlayError(
        f"illegal play {text!r} for {dice} in {pid}: {'; '.join(reasons)}", reasons, points
    )


def _walk(position: Position, dice: Dice,
          segments: Sequence[tuple[int, int]]) -> Play | tuple[tuple[str, ...], tuple[int, ...]]:
    """Play ``segments`` with ``dice`` in order, splitting hops into dice; a Play or reasons."""
    me = list(position.mover)
    opp = list(position.opponent)
    left = list(dice.steps)
    moves: list[Move] = []
    hits: list[bool] = []
    for src, dst in segments:
        options = _decompositions(left, src - dst, dst == OFF)
        if not options:
            dice_left = "/".join(map(str, left)) or "none"
            return ((f"no die left for {_p(src)}/{_p(dst)} (dice left: {dice_left})",),
                    (src, dst))
        first_problem: tuple[str, int, int] | None = None
        for seq in options:
            trial_me, trial_opp = list(me), list(opp)
            here = src
            steps: list[tuple[Move, bool]] = []
            problem = None
            for die in seq:
                problem = _step_problem(trial_me, trial_opp, here - 1, die, _Relax())
                if problem:
                    if first_problem is None:
                        first_problem = (problem, here, max(here - die, 0))
                    break
                hit = _do_step(trial_me, trial_opp, here - 1, die)
                nxt = max(here - die, OFF)
                steps.append((Move(here, nxt), hit))
                here = nxt
            if problem is None:
                me, opp = trial_me, trial_opp
                for mv, hit in steps:
                    moves.append(mv)
                    hits.append(hit)
                for die in seq:
                    left.remove(die)
                break
        else:
            assert first_problem is not None
            return (first_problem[0],), (first_problem[1], first_problem[2])
    key_me, key_opp = tuple(me), tuple(opp)
    if position.turn is Color.WHITE:
        result = Position._make(key_me, key_opp, position.turn)
    else:
        result = Position._make(key_opp, key_me, position.turn)
    return Play(tuple(moves), tuple(hits), result)


def _decompositions(left: list[int], dist: int, to_off: bool) -> list[tuple[int, ...]]:
    """Ordered dice sequences from ``left`` covering ``dist`` pips (bearing off may overshoot
    with the last die), fewest dice first."""
    out: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for r in range(1, len(left) + 1):
        for seq in permutations(left, r):
            if seq in seen:
                continue
            total = sum(seq)
            if total == dist or (to_off and total > dist and sum(seq[:-1]) < dist):
                seen.add(seq)
                out.append(seq)
        if out:
            break
    return out


def _p(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _shortfall_reasons(position: Position, dice: Dice, attempt: Play,
                       legal: list[Play]) -> tuple[str, ...]:
    """A play of legal steps that is still illegal: too few dice, or the wrong die."""
    most = max(len(p.moves) for p in legal)
    used = len(attempt.moves)
    if used < most:
        if dice.is_double:
            return (f"must play {most} of the four {dice.a}s",)
        if most == 2:
            return ("must use both dice",)
        return (f"must play the larger die ({dice.high})",)
    return ("not a legal play",)


def explain_result(position: Position, dice: Dice | Sequence[int],
                   target: Position) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Why ``target`` (mover still on roll) is not the result of a legal play.

    Returns ``(reasons, points)``: reasons in words, and the points involved numbered from the
    mover's side. Returns ``((), ())`` when ``target`` is a legal result.
    """
    dice = Dice.of(dice)
    legal = legal_plays(position, dice)
    if any(p.result == target for p in legal):
        return (), ()
    me0, opp0 = position.mover, position.opponent
    me1, opp1 = target.board(position.turn), target.board(position.turn.other)
    changed = tuple(sorted({i + 1 for i in range(25) if me0[i] != me1[i]}
                           | {24 - i for i in range(24) if opp0[i] != opp1[i]}, reverse=True))
    if not legal:
        if target == position:
            return (), ()
        return ("no legal move: the turn passes and the board must stay as it was",), changed
    if target == position:
        return ("the roll was not played",), ()
    if sum(me1) > sum(me0):
        return ("a checker of the side on roll came back onto the board",), changed
    opp_lost = sum(opp0) - sum(opp1)
    hits = opp1[24] - opp0[24]
    if opp_lost or hits < 0 or any(
        opp0[i] != opp1[i] and not (opp0[i] == 1 and opp1[i] == 0) for i in range(24)
    ):
        return ("the opponent's checkers were moved",), changed
    # which relaxed rule makes the target reachable?
    for relax, fallback in (
        (_Relax(blocked=True), None),
        (_Relax(bar=True), None),
        (_Relax(bearoff=True), None),
        (_Relax(blocked=True, bar=True, bearoff=True), None),
    ):
        reasons = _reach_with(position, dice, target, relax)
        if reasons is not None:
            return reasons or (fallback or "not a legal play",), changed
    pips = position.pips(position.turn) - target.pips(position.turn)
    need = sum(dice.steps)
    if pips != need:
        if pips < need:
            shorter = _reach_partial(position, dice, target)
            if shorter:
                return shorter, changed
        return (f"moved {pips} pips; {dice.high}-{dice.low} gives {need}",), changed
    return (f"the checkers moved do not match {dice.high}-{dice.low}",), changed


def _reach_with(position: Position, dice: Dice, target: Position,
                relax: _Relax) -> tuple[str, ...] | None:
    """If ``target`` is reachable playing all steps under ``relax``, the rules broken on the way."""
    me = list(position.mover)
    opp = list(position.opponent)
    goal = target.board(position.turn) + target.board(position.turn.other)
    orders = [dice.steps] if dice.is_double else [(dice.a, dice.b), (dice.b, dice.a)]
    for order in orders:
        found = _dfs_relaxed(me, opp, list(order), goal, relax, [])
        if found is not None:
            return tuple(dict.fromkeys(found))
    return None


def _dfs_relaxed(me: list[int], opp: list[int], dice: list[int], goal: tuple[int, ...],
                 relax: _Relax, broken: list[str]) -> list[str] | None:
    if not dice:
        return list(broken) if tuple(me) + tuple(opp) == goal else None
    d = dice[0]
    for s in range(24, -1, -1):
        if not me[s]:
            continue
        strict = _step_problem(me, opp, s, d, _Relax())
        if strict is not None and _step_problem(me, opp, s, d, relax) is not None:
            continue
        t = s - d
        hit = False
        # relaxed: a step onto a blocked point keeps the opponent's checkers there
        me[s] -= 1
        if t >= 0:
            me[t] += 1
            if opp[23 - t] == 1:
                opp[23 - t] = 0
                opp[24] += 1
                hit = True
        if strict:
            broken.append(strict)
        found = _dfs_relaxed(me, opp, dice[1:], goal, relax, broken)
        if strict:
            broken.pop()
        _undo_step(me, opp, s, d, hit)
        if found is not None:
            return found
    return None


def _reach_partial(position: Position, dice: Dice, target: Position) -> tuple[str, ...] | None:
    """``target`` uses fewer dice than the rules demand: say which rule."""
    me = list(position.mover)
    opp = list(position.opponent)
    goal = target.board(position.turn) + target.board(position.turn.other)
    steps = dice.steps
    for n in range(len(steps) - 1, 0, -1):
        for order in ([steps[:n]] if dice.is_double else [(dice.a,), (dice.b,)]):
            if len(order) != n:
                continue
            if _dfs_relaxed(me, opp, list(order), goal, _Relax(), []) is not None:
                legal = legal_plays(position, dice)
                most = max(len(p.moves) for p in legal)
                if dice.is_double:
                    return (f"must play {most} of the four {dice.a}s",)
                if most == 2:
                    return ("must use both dice",)
                return (f"must play the larger die ({dice.high})",)
    return None


__all__ = [
    "IllegalPlayError",
    "InvalidMoveError",
    "explain_result",
    "legal_plays",
    "resolve",
]
