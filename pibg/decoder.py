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
        for h in sorted(best_first.values(), key=lambda h: -h.score)[:cfg.beam]:
            if h.board.winner() is not None:
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
        out.extend(seconds.values())
    bases = sorted((h for h in out if len(h.turns) < 2), key=lambda h: -h.score)
    for h in bases[:cfg.slip_beam]:
        base = h.score - tables.score(h.board) - cfg.slip
        out.extend(Hypothesis(h.turns, q, base + tables.score(q), legal=False)
                   for q in slips(h.board))
    out.sort(key=lambda h: -h.score)
    return out


def slips(pos: Position) -> list[Position]:
    """Every position with one checker of ``pos`` one point off (onto an empty point or one
    of its own colour): a checker knocked, or a checker moved one pip too far or short."""
    signed = list(pos.signed())
    bar = (pos.bar(Color.WHITE), pos.bar(Color.BLACK))
    out = []
    for i, n in enumerate(signed):
        if n == 0:
            continue
        step = 1 if n > 0 else -1
        for j in (i - 1, i + 1):
            if 0 <= j < 24 and signed[j] * step >= 0:
                moved = list(signed)
                moved[i] -= step
                moved[j] += step
                out.append(Position.from_signed(moved, bar, turn=pos.turn))
    return out


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
        best = max((h for h in found if h.legal and h.board == best.board
                    and len(h.turns) == len(best.turns)),
                   key=lambda h: (_path_mass(found, _path(h), best.board), h.score))
        path = _path(best)
    same = [h for h in close if _path(h) == path and h is not best]
    others = tuple(tuple(t.roll for t in h.turns) for h in same)
    return Decoded(best.turns, best.board, best.score, dice_sure=not same, others=others,
                   path_sure=not paths)
