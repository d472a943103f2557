"""Which turns, with which dice, lead from the last certain position to the board now seen.

Pure. When the referee lost track of a turn (the dice were not read, or read unsurely, and
nobody answered its question), what happened next settles it: the board that stands now is
explained by a search over legal play sequences from the last position the referee was sure
of. Each hypothesis is one or two turns (the mover's play, then perhaps the opponent's),
scored by the observation model the referee already uses (:class:`pibg.infer.Tables`: the
log-likelihood of every region's count, built once per reading) plus the dice evidence (the
dice read for a turn, weighed by their confidences) and each throw's chance (1/36, 2/36).
This is a beam search over legal play sequences, as in sequence decoding (a Viterbi beam over
states with an observation model): every first turn is kept; the second turn is searched
from the best ``beam`` first turns.

A hypothesis is adopted only when it dominates: it explains the board within the referee's
illegal margin and beats every hypothesis that leads to another board by ``margin`` nats.
Hypotheses that differ only in their dice (2-1 and 3-0 are the same board) are merged: the
board is certain, the dice are the likeliest and marked as inferred.

>>> from pibg.observation import BoardObservation
>>> from pibg.position import Position
>>> start = Position.start()
>>> play = next(p for p in legal_plays(start, Dice(6, 4)) if str(p) == "24/14")
>>> found = decode(start, BoardObservation.exact(play.result.signed()))
>>> [(f"{t.roll.high}-{t.roll.low}", str(t.play)) for t in found.turns], found.dice_sure
([('6-4', '24/14')], True)

The same board after 8/5 6/5 is 3-1 or 1-1: the board is sure, the dice are not.

>>> play = next(p for p in legal_plays(start, Dice(3, 1)) if str(p) == "8/5 6/5")
>>> found = decode(start, BoardObservation.exact(play.result.signed()))
>>> str(found.turns[0].play), found.dice_sure, found.others
('8/5 6/5', False, ((Dice(a=1, b=1),),))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pibg.infer import JudgeConfig, Tables
from pibg.moves import ALL_THROWS, Dice, Play
from pibg.observation import BoardObservation, DieRead
from pibg.position import Color, Position
from pibg.rules import generate_plays, legal_plays

#: log of the chance of one throw: a double 1/36, any other 2/36
_PRIOR = {(d.high, d.low): math.log((1 if d.is_double else 2) / 36) for d in ALL_THROWS}


@dataclass(frozen=True, slots=True)
class DecodeConfig:
    #: a hypothesis must beat every one leading to another board by this much (log 20)
    margin: float = math.log(20.0)
    #: the cost of a turn nobody saw played, against explaining the board with fewer turns
    unseen_turn: float = math.log(20.0)
    #: first turns searched further for a second turn
    beam: int = 20
    #: how far a board may fit worse than the raw reading and still be explained (log 1000)
    illegal_margin: float = JudgeConfig().illegal_margin
    #: the cost of a slip: one checker one point off a position the turns explain (knocked,
    #: or moved wrongly). Slips are never adopted, but a board a slip explains as well as a
    #: legal sequence is not settled by the search: it is shown and left to the players.
    slip: float = math.log(100.0)
    #: positions searched for slips: the known one and the best first turns
    slip_beam: int = 20


@dataclass(frozen=True, slots=True)
class Turn:
    """One inferred turn: the throw, the play (mover still on roll in ``play.result``)."""

    roll: Dice
    play: Play


@dataclass(frozen=True, slots=True)
class Hypothesis:
    turns: tuple[Turn, ...]
    board: Position  # the position reached, the next player on roll
    score: float  # log P(reading, dice | turns) + log P(turns)
    legal: bool = True  # False: a slip (one checker off ``turns``' position), never adopted


@dataclass(frozen=True, slots=True)
class Decoded:
    """The dominant explanation: ``turns`` (empty: the board is the known position).
    ``dice_sure`` is false when other throws make the same board about as likely (the dice
    recorded are the likeliest of them); ``others`` names those throws, for the record."""

    turns: tuple[Turn, ...]
    board: Position
    score: float
    dice_sure: bool
    others: tuple[tuple[Dice, ...], ...] = ()
    #: False when another history reaching the same board fits about as well (``same_end``)
    path_sure: bool = True


def dice_evidence(roll: Dice, reads: Sequence[DieRead]) -> float:
    """log P(the dice read | ``roll`` was thrown): each die read is its value with its
    confidence and any value alike otherwise; a cocked die's value counts as half as sure.
    No die read is no evidence (0)."""
    values = [roll.a, roll.b]
    total = 0.0
    for d in sorted(reads, key=lambda r: -r.confidence)[:2]:
        c = min(max(d.confidence, 0.0), 0.98) * (1.0 if d.flat else 0.5)
        if d.value in values:
            values.remove(d.value)
            total += math.log(c + (1 - c) / 6)
        else:
            total += math.log((1 - c) / 6)
    return total + math.log(6) * min(len(reads), 2)  # relative to no evidence at all


def _first_turns(known: Position, opening: bool, passes: bool = False
                 ) -> list[tuple[Dice, Position, Play]]:
    """Every (throw, position before, play) of the turn after ``known``; at the opening,
    either side may move first with any throw but a double. ``passes``: only the throws
    with no legal move (the mover was seen to lift the dice without moving)."""
    starts = [known.with_turn(c) for c in Color] if opening else [known]
    out: list[tuple[Dice, Position, Play]] = []
    for roll in ALL_THROWS:
        if opening and roll.is_double:
            continue
        for pos in starts:  # a throw with no legal move passes: the board stays
            plays = legal_plays(pos, roll)
            if passes and plays:
                continue
            out.extend((roll, pos, p) for p in plays or [Play((), (), pos)])
    return out


def hypotheses(known: Position, obs: BoardObservation, reads: Sequence[DieRead] = (),
               *, opening: bool = False, turns: int = 2, reads2: Sequence[DieRead] = (),
               first_passes: bool = False, config: DecodeConfig | None = None,
               tables: Tables | None = None) -> list[Hypothesis]:
    """Every explanation of ``obs`` from ``known`` (the mover on roll) in 0 to ``turns``
    turns, best first; ``reads`` are the dice read for the first turn, ``reads2`` for the
    second, if any. ``tables``: ``obs``'s scoring tables, if already built."""
    cfg = config or DecodeConfig()
    tables = tables or Tables(obs)
    out = [] if opening else [Hypothesis((), known, tables.score(known))]
    if turns < 1:
        return out
    firsts: dict[tuple[Position, int, int], Hypothesis] = {}
    for roll, _, play in _first_turns(known, opening, first_passes):
        after = play.result.swap_turn()
        score = (tables.score(after) + _PRIOR[(roll.high, roll.low)]
                 + dice_evidence(roll, reads) - cfg.unseen_turn)
        key = (after, roll.high, roll.low)
        if key not in firsts or firsts[key].score < score:
            firsts[key] = Hypothesis((Turn(roll, play),), after, score)
    out.extend(firsts.values())
    if turns >= 2:
        seconds: dict[tuple[Position, int, int, int, int], Hypothesis] = {}
        best_first: dict[Position, Hypothesis] = {}
        for h in firsts.values():
            k = h.board
            if k not in best_first or best_first[k].score < h.score:
                best_first[k] = h
        # A second turn can raise a first turn's board's score by no more than
        # :func:`_headroom` allows, plus the likeliest throw's chance and dice evidence.
        # First turns that cannot come within ``margin`` of the best hypothesis so far that
        # way are not searched: none of their hypotheses could be the best or as good.
        gain = max(_PRIOR[(r.high, r.low)] + dice_evidence(r, reads2) for r in ALL_THROWS)
        best_so_far = max((h.score for h in out), default=-math.inf)
        for h in sorted(best_first.values(), key=lambda h: -h.score)[:cfg.beam]:
            if h.board.winner() is not None:
                continue
            reach = h.score + _headroom(tables, h.board) + gain - cfg.unseen_turn
            if reach < best_so_far - cfg.margin - _ROUGH:
                continue
            base = h.score - tables.score(h.board)
            for roll in ALL_THROWS:
                # uncached: a search asks for 840 throws; no legal move passes
                for p in generate_plays(h.board, roll) or [Play((), (), h.board)]:
                    after = p.result.swap_turn()
                    score = (base + tables.score(after) + _PRIOR[(roll.high, roll.low)]
                             + dice_evidence(roll, reads2) - cfg.unseen_turn)
                    first = h.turns[0].roll
                    k2 = (after, first.high, first.low, roll.high, roll.low)
                    if k2 not in seconds or seconds[k2].score < score:
                        seconds[k2] = Hypothesis((*h.turns, Turn(roll, p)), after, score)
                        best_so_far = max(best_so_far, score)
        out.extend(seconds.values())
    bases = sorted((h for h in out if len(h.turns) < 2), key=lambda h: -h.score)
    # A slip changes two points: each is scored from its base's score by those two points
    # alone, and only slips within ``margin`` of the best hypothesis (all that a decision
    # weighs) are made into positions and scored whole.
    rough = [(h, q_at, h.score - cfg.slip + _slip_delta(tables, signed, *q_at))
             for h in bases[:cfg.slip_beam] for signed in (h.board.signed(),)
             for q_at in _slip_steps(signed)]
    top = max([h.score for h in out] + [r for _, _, r in rough], default=-math.inf)
    for h, (i, j, step), r in rough:
        if r < top - cfg.margin - _ROUGH:
            continue
        q = _slipped(h.board, i, j, step)
        out.append(Hypothesis(h.turns, q, h.score - tables.score(h.board) - cfg.slip
                              + tables.score(q), legal=False))
    out.sort(key=lambda h: -h.score)
    return out


#: slack (nats) for a score worked out in parts against the same score whole (rounding)
_ROUGH = 1e-6
#: the most regions one turn changes: the points of four steps, a bar, a tray
_TURN_REGIONS = 10


def _headroom(tables: Tables, board: Position) -> float:
    """The most one turn of the side on roll in ``board`` can raise its score: at most
    ``_TURN_REGIONS`` regions change, each only as that turn can change it (its own points
    and empty ones take any count of its checkers, the opponent's blots may be hit, the
    opponent's points of two or more stay; its bar only empties, the opponent's only fills,
    by four at most; its tray only fills), each by the most it can gain so."""
    sign = 1 if board.turn is Color.WHITE else -1
    lists = tables.lists
    gains = []
    for i, c in enumerate(board.signed()):
        if c * sign < -1:
            continue  # the opponent's point: it stays
        here = lists[i]
        gains.append(max(0.0, max(here[k * sign] for k in range(16)) - here[c]))
    me, other = (24, 25) if sign > 0 else (25, 24)
    for region, now, counts in (
            (me, board.bar(board.turn), range(board.bar(board.turn) + 1)),
            (other, board.bar(board.turn.other),
             range(board.bar(board.turn.other), min(board.bar(board.turn.other) + 4, 15) + 1)),
            (26 if sign > 0 else 27, board.off(board.turn),
             range(board.off(board.turn), min(board.off(board.turn) + 4, 15) + 1))):
        gains.append(max(lists[region][k] for k in counts) - lists[region][now])
    return sum(sorted(gains, reverse=True)[:_TURN_REGIONS])


def _slip_steps(signed: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(from, to, sign of the colour) of every slip of :func:`slips`, in its order."""
    out = []
    for i, n in enumerate(signed):
        if n == 0:
            continue
        step = 1 if n > 0 else -1
        for j in (i - 1, i + 1):
            if 0 <= j < 24 and signed[j] * step >= 0:
                out.append((i, j, step))
    return out


def _slip_delta(tables: Tables, signed: tuple[int, ...], i: int, j: int, step: int) -> float:
    """How much a slip of one checker from point ``i`` to ``j`` changes a position's score."""
    return (tables.region(i, signed[i] - step) - tables.region(i, signed[i])
            + tables.region(j, signed[j] + step) - tables.region(j, signed[j]))


def _slipped(pos: Position, i: int, j: int, step: int) -> Position:
    """``pos`` with one checker slipped from point ``i`` to ``j``."""
    moved = list(pos.signed())
    moved[i] -= step
    moved[j] += step
    return Position.from_signed(moved, (pos.bar(Color.WHITE), pos.bar(Color.BLACK)),
                                turn=pos.turn)


def slips(pos: Position) -> list[Position]:
    """Every position with one checker of ``pos`` one point off (onto an empty point or one
    of its own colour): a checker knocked, or a checker moved one pip too far or short."""
    return [_slipped(pos, i, j, step) for i, j, step in _slip_steps(pos.signed())]


def _path(h: Hypothesis) -> tuple[Position, ...]:
    """The positions a hypothesis passes through: two with the same path differ only in
    their dice."""
    return tuple(t.play.result for t in h.turns)


def _path_mass(found: Sequence[Hypothesis], path: tuple[Position, ...], board: Position
               ) -> float:
    """log of the summed chance of every hypothesis that passes through ``path`` to
    ``board`` (one history, any of its throws)."""
    scores = [h.score for h in found if h.legal and h.board == board and _path(h) == path]
    top = max(scores)
    return top + math.log(sum(math.exp(s - top) for s in scores))


def decode(known: Position, obs: BoardObservation, reads: Sequence[DieRead] = (), *,
           opening: bool = False, turns: int = 2, reads2: Sequence[DieRead] = (),
           first_passes: bool = False, same_end: bool = False,
           config: DecodeConfig | None = None, tables: Tables | None = None
           ) -> Decoded | None:
    """The dominant explanation of ``obs`` from ``known``, or None when none dominates (two
    different histories fit alike) or none fits the board at all. ``tables``: ``obs``'s
    scoring tables, if already built (else built here, once for every search)."""
    cfg = config or DecodeConfig()
    tables = tables or Tables(obs)
    raw = tables.best - cfg.illegal_margin
    for n in range(min(turns, 1), turns + 1):  # fewer turns first: a second costs 40 times more
        found = hypotheses(known, obs, reads, opening=opening, turns=n, reads2=reads2,
                           first_passes=first_passes, config=cfg, tables=tables)
        if found and tables.score(found[0].board) >= raw:
            break
    else:
        return None  # nothing legal reaches a board like the one seen
    best = found[0]
    if not best.legal:
        return None  # a checker off a legal position explains it best: not settled here
    path = _path(best)
    # best first. With a die not read at all, a slip onto this very board is no other board:
    # the legal turn explains the board, and the slip was only nearly as likely for the one
    # die read unsurely (a slip likelier than every legal turn, that die read plainly, is the
    # best and settles nothing). With both dice read, a board that another throw makes
    # legally but the dice read make only with a checker off is a wrong move as likely as a
    # misread die: not settled here, the referee flags it.
    one_die = len(reads) < 2
    close = [h for h in found[1:] if h.score > best.score - cfg.margin
             and (h.legal or h.board != best.board or not one_die)]
    if any(not h.legal or h.board != best.board or len(h.turns) != len(best.turns)
           for h in close):
        return None  # another board, or a slip, fits about as well
    paths = [h for h in close if _path(h) != path]
    if paths and not same_end:
        return None  # the same board by another history: only when asked for (same_end)
    if paths:
        # The board is sure; which history led to it no later board can tell. The one
        # recorded is the likeliest summed over its throws (a pass is many throws, entering
        # and being hit again one or two), its turns marked.
        # (the histories weighed are those with a hypothesis within the margin: every
        # hypothesis of such a history was searched, see ``hypotheses``)
        best = max((best, *paths),
                   key=lambda h: (_path_mass(found, _path(h), best.board), h.score))
        path = _path(best)
    same = [h for h in close if _path(h) == path and h is not best]
    others = tuple(tuple(t.roll for t in h.turns) for h in same)
    return Decoded(best.turns, best.board, best.score, dice_sure=not same, others=others,
                   path_sure=not paths)
