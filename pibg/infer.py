"""Which legal play best explains what the camera sees ("vision proposes, rules dispose").

Pure. :func:`judge` scores every legal play's resulting position against a
:class:`~pibg.observation.BoardObservation` by the log-likelihood of its region counts, and
returns a :class:`Verdict`: one clear play, an ambiguity between plays (ask, never guess), an
illegal position with its reasons, or a board that is no position at all. One reading's
:class:`Tables` score any number of positions; callers asking several questions of one
reading build them once and pass them in.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pibg.exc import PositionError
from pibg.moves import ALL_THROWS, Dice, Play
from pibg.observation import BoardObservation
from pibg.position import Color, Position
from pibg.rules import explain_result, legal_plays


class Outcome(enum.Enum):
    PLAY = "play"  # one legal play explains the reading clearly
    PASS = "pass"  # no legal play exists and the board did not change
    AMBIGUOUS = "ambiguous"  # two or more legal plays explain it about equally
    ILLEGAL = "illegal"  # the board shows a position no legal play reaches
    UNREADABLE = "unreadable"  # the reading is no valid position (checkers missing, ...)


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    #: a legal explanation within this many nats of the raw reading is accepted
    #: (log 1000: the reading must favour an illegal board 1000:1 to call it illegal)
    illegal_margin: float = math.log(1000.0)
    #: the best legal play must beat the next by this much (log 20), else ask
    ambiguity_margin: float = math.log(20.0)
    #: a roll read with less confidence than this is asked about, not trusted, when the
    #: board fits another roll's legal play and not its own
    sure_roll: float = 0.9


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    play: Play | None = None
    #: plays the reading cannot tell apart (AMBIGUOUS), best first
    candidates: tuple[Play, ...] = ()
    #: the position the camera shows (mover still on roll), when it is a valid one
    seen: Position | None = None
    reasons: tuple[str, ...] = ()
    #: points involved, numbered from White's side (1..24; 25 = bar)
    points: tuple[int, ...] = ()
    score: float = 0.0
    #: ILLEGAL for the roll read, but ``play`` is a clear legal play of this other roll (the
    #: dice may have been misread)
    reroll: Dice | None = None
    #: other throws (and their plays) that make the same board, to offer if ``reroll`` was
    #: not the one thrown
    offers: tuple[tuple[Dice, Play], ...] = ()


class Tables:
    """log P(count) for every region of one reading, looked up instead of recomputed.

    Build one per reading and pass it to every question asked of that reading (``tables=``
    of :func:`judge`, :func:`other_roll`, :func:`seen_move`, :func:`pibg.decoder.decode`):
    a referee weighs one board against the known position, every throw's plays and a
    search over two turns, and the tables are the same for all of them. Only the regions'
    counts go in (not the dice): readings alike but for their dice share tables.
    """

    __slots__ = ("best", "lists")

    def __init__(self, obs: BoardObservation) -> None:
        regions = [*obs.points, obs.bar_white, obs.bar_black, obs.off_white, obs.off_black]
        #: each region's log P(count) indexed by the count itself, -15 to 15 (a negative
        #: count from the list's end): one index per region scores a position
        self.lists = []
        for r in regions:
            logs = {k: math.log(max(p, r.floor)) for k, p in r.likelihoods}
            floor = math.log(r.floor)
            self.lists.append([logs.get(c if c <= 15 else c - 31, floor) for c in range(31)])
        #: :func:`best_log_likelihood` of the reading (the raw reading's own score)
        self.best = best_log_likelihood(obs)

    def score(self, pos: Position) -> float:
        """:func:`log_likelihood` of ``pos``."""
        counts = (*pos.signed(), pos.bar(Color.WHITE), pos.bar(Color.BLACK),
                  pos.off(Color.WHITE), pos.off(Color.BLACK))
        return sum(map(list.__getitem__, self.lists, counts))

    def region(self, i: int, count: int) -> float:
        """log P(region ``i`` holds ``count``): regions 0-23 the points (signed counts),
        24/25 the bar's White/Black, 26/27 the trays' White/Black."""
        return self.lists[i][count]

    def fits(self, pos: Position, margin: float) -> bool:
        """The reading may be ``pos``: it scores within ``margin`` nats of the raw reading."""
        return self.score(pos) >= self.best - margin


def log_likelihood(obs: BoardObservation, pos: Position) -> float:
    """log P(reading | the board is ``pos``), regions taken as independent (one position;
    for several, build :class:`Tables` once and ask it)."""
    return Tables(obs).score(pos)


def seen_position(obs: BoardObservation, turn: Color) -> Position | None:
    """The most likely reading as a position, or None if it is not a valid one."""
    try:
        return Position.from_signed(
            obs.signed_points(), (obs.bar_white.count, obs.bar_black.count), None, turn
        )
    except PositionError:
        return None


def seen_move(obs: BoardObservation, before: Position, cfg: JudgeConfig | None = None, *,
              tables: Tables | None = None) -> Position | None:
    """The reading as a position reached from ``before`` (mover on roll): the most likely
    reading, except that the opponent's checkers are taken as they stood when the reading
    fits that about as well (within the ambiguity margin). The opponent does not move on the
    mover's turn, and a reading often cannot tell which full point holds a hidden checker.
    ``tables``: ``obs``'s, if already built."""
    cfg = cfg or JudgeConfig()
    mover = before.turn
    seen = seen_position(obs, mover)
    sign = 1 if mover is Color.WHITE else -1
    was = before.signed()
    points = [v if v * sign > 0 else (b if b * sign < 0 else 0)
              for v, b in zip(obs.signed_points(), was, strict=True)]
    bar = (obs.bar_white.count, obs.bar_black.count)
    try:
        alt = Position.from_signed(points, bar, None, mover)
    except PositionError:
        return seen
    if seen is None or alt == seen:
        return seen if seen is not None else alt
    tables = tables or Tables(obs)
    return alt if tables.score(alt) >= tables.score(seen) - cfg.ambiguity_margin else seen


def best_log_likelihood(obs: BoardObservation) -> float:
    """The raw reading's own score: every region read as its likeliest count."""
    regions = [*obs.points, obs.bar_white, obs.bar_black, obs.off_white, obs.off_black]
    return sum(math.log(max(r.confidence, r.floor)) for r in regions)


def to_white_points(points: Sequence[int], mover: Color) -> tuple[int, ...]:
    """Points numbered from the mover's side -> from White's side (bar stays 25, off dropped)."""
    out = set()
    for p in points:
        if p in (0, 25):
            if p == 25:
                out.add(25)
            continue
        out.add(p if mover is Color.WHITE else 25 - p)
    return tuple(sorted(out))


def differing_points(a: Position, b: Position) -> tuple[int, ...]:
    """Points (from White, 25 = a bar) where two positions differ."""
    sa, sb = a.signed(), b.signed()
    pts = [i + 1 for i in range(24) if sa[i] != sb[i]]
    if a.bar(Color.WHITE) != b.bar(Color.WHITE) or a.bar(Color.BLACK) != b.bar(Color.BLACK):
        pts.append(25)
    return tuple(pts)


def judge(position: Position, dice: Dice | Sequence[int], obs: BoardObservation,
          config: JudgeConfig | None = None,
          plays: Sequence[Play] | None = None, *, tables: Tables | None = None) -> Verdict:
    """Judge the turn that ``position`` (mover on roll) and ``dice`` began, from ``obs``
    (``tables``: its scoring tables, if already built)."""
    cfg = config or JudgeConfig()
    dice = Dice.of(dice)
    legal = list(plays) if plays is not None else legal_plays(position, dice)
    mover = position.turn
    tables = tables or Tables(obs)
    raw = tables.best
    if not legal:
        stay = tables.score(position)
        if stay >= raw - cfg.illegal_margin:
            return Verdict(Outcome.PASS, score=stay)
        seen = seen_position(obs, mover)
        moved = differing_points(position, seen) if seen else ()
        return Verdict(Outcome.ILLEGAL, seen=seen, points=moved, score=stay,
                       reasons=("no legal move: the turn passes and the board must stay "
                                "as it was",))
    scored = sorted(((tables.score(p.result), i) for i, p in enumerate(legal)), reverse=True)
    best, best_i = scored[0]
    if best >= raw - cfg.illegal_margin:
        close = [legal[i] for s, i in scored if best - s < cfg.ambiguity_margin]
        if len(close) == 1:
            return Verdict(Outcome.PLAY, play=legal[best_i], score=best)
        pts: set[int] = set()
        for other in close[1:]:
            pts.update(differing_points(close[0].result, other.result))
        return Verdict(Outcome.AMBIGUOUS, candidates=tuple(close), points=tuple(sorted(pts)),
                       score=best, reasons=(f"{len(close)} plays fit: check the lit points",))
    seen = seen_move(obs, position, cfg, tables=tables)
    if seen is None:
        return Verdict(Outcome.UNREADABLE, score=best,
                       reasons=("the board does not add up to a position: check every "
                                "checker is on a point, the bar or the tray",))
    reasons, points = explain_result(position, dice, seen)
    if not reasons:  # the raw reading is legal after all but weakly seen: take it
        for p in legal:
            if p.result == seen:
                return Verdict(Outcome.PLAY, play=p, score=best)
        reasons = ("not a legal play",)
    white_pts = to_white_points(points, mover) or differing_points(position, seen)
    return Verdict(Outcome.ILLEGAL, seen=seen, reasons=reasons, points=white_pts, score=best)


def _clear_play(tables: Tables, raw: float, legal: Sequence[Play], cfg: JudgeConfig
                ) -> tuple[Play, float] | None:
    """The one legal play whose result explains the reading clearly, with its score."""
    if not legal:
        return None
    scored = sorted(((tables.score(p.result), i) for i, p in enumerate(legal)), reverse=True)
    best, best_i = scored[0]
    if best < raw - cfg.illegal_margin:
        return None
    if len(scored) > 1 and best - scored[1][0] < cfg.ambiguity_margin:
        return None
    return legal[best_i], best


def other_roll(position: Position, dice: Dice | Sequence[int] | None, obs: BoardObservation,
               config: JudgeConfig | None = None, *, doubles: bool = True,
               sure_die: int | None = None, tables: Tables | None = None
               ) -> tuple[Dice, Play] | None:
    """The one other roll with a legal play that clearly explains ``obs``, if there is one.

    When a board fits no legal play of the roll read, a misread die is as likely as a wrong
    move: this finds the roll the board does fit. Rolls that keep one of the read dice (one
    die misread) come first, those that keep ``sure_die`` (the die vision was surer of) before
    all; among them the best must beat the rest by the ambiguity margin, unless the rest
    make the very same play (then only the throw is unsure, and the best is offered).
    ``doubles=False`` leaves doubles out (an opening roll is never one). With ``dice`` None
    every roll is tried alike (a move made with dice nobody saw). ``tables``: ``obs``'s, if
    already built.
    """
    cfg = config or JudgeConfig()
    read = Dice.of(dice) if dice is not None else None
    tables = tables or Tables(obs)
    raw = tables.best
    found: list[tuple[bool, bool, float, Dice, Play]] = []
    for roll in ALL_THROWS:
        if roll.is_double and not doubles:
            continue
        if read is not None and (roll.high, roll.low) == (read.high, read.low):
            continue
        clear = _clear_play(tables, raw, legal_plays(position, roll), cfg)
        if clear is not None and clear[0].moves:
            shares = read is not None and bool({roll.a, roll.b} & {read.a, read.b})
            keeps = sure_die is not None and sure_die in (roll.a, roll.b)
            found.append((keeps, shares, clear[1], roll, clear[0]))
    if not found:
        return None
    found.sort(key=lambda f: (f[0], f[1], f[2]), reverse=True)
    best = found[0]
    rivals = [f for f in found[1:]
              if f[:2] == best[:2] and best[2] - f[2] < cfg.ambiguity_margin]
    if any(f[4].result != best[4].result for f in rivals):
        return None  # two throws fit about as well with different plays: cannot be told
    return best[3], best[4]
