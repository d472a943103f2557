"""The referee's doubt policy: what a board settles when the camera was unsure of a turn.

Pure. :mod:`pibg.referee` is the state machine (modes, buttons, the cube, the match); this
module decides what to make of a board when a turn was not judged as it went: its dice were
not read, or read unsurely, or glimpsed and not taken; a question was asked and nobody
answered; the board differs from the known position, or no legal turn explains it. It is
told what the referee knows (:class:`Evidence`) and the reading (with its
:class:`~pibg.infer.Tables`, built once per reading by the caller), and answers with a
value the referee applies (records the events, says it, changes mode):

- an :class:`Adoption`: record these turns, with these flags (:func:`settle`,
  :func:`won_unseen`);
- a :class:`~pibg.infer.Verdict` with a ``reroll``: ask whether that throw, played so, was
  the one thrown, offering ``offers`` next (:func:`played_glimpsed`,
  :func:`passed_glimpsed`, :func:`doubted_roll`, :func:`with_reroll`);
- a board to take as it stands (:func:`slipped_play`, :func:`as_it_stands`);
- None: nothing is settled; the referee shows the board and waits for the next one.

It also says what the dice in view are (:func:`flat_roll`, :func:`glimpse`), which the
referee's modes go by as well.

>>> from pibg.observation import BoardObservation
>>> from pibg.match import GameState, Phase
>>> start = Position.start()
>>> play = next(p for p in legal_plays(start, Dice(6, 4)) if str(p) == "24/14")
>>> obs = BoardObservation.exact(play.result.signed())
>>> ev = Evidence(GameState(start, phase=Phase.ROLL), JudgeConfig())
>>> a = settle(ev, obs, Tables(obs))
>>> [(f"{t.roll.high}-{t.roll.low}", str(t.play), t.dice_seen, t.flag) for t in a.turns]
[('6-4', '24/14', False, 'dice not seen')]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pibg.decoder import Decoded, Hypothesis, Turn, decode, hypotheses
from pibg.infer import JudgeConfig, Outcome, Tables, Verdict, judge, other_roll, seen_position
from pibg.match import GameState, Phase
from pibg.moves import ALL_THROWS, Dice, Play
from pibg.observation import BoardObservation, DieRead
from pibg.position import Color, Position
from pibg.rules import legal_plays


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the referee knows, and saw, of the turn in doubt (taken from its state)."""

    game: GameState | None  # the game as recorded
    judge: JudgeConfig
    #: the roll in play is the opening roll (the mover not yet known)
    opening: bool = False
    dice: Dice | None = None  # the throw in play, once taken
    #: the value of the die vision read surest, when it was unsure of the other
    sure_die: int | None = None
    #: throws seen but not taken: the dice of a die read as cocked, or every throw with the
    #: one die seen when the other was not found
    glimpsed: tuple[Dice, ...] = ()
    #: the dice read for the turn of the side on roll (evidence when the turn is inferred)
    dice_reads: tuple[DieRead, ...] = ()
    #: the dice read before them on the same board, not taken (a die read as cocked, or one
    #: die not found): the throw of a turn that may have passed unseen
    earlier_reads: tuple[DieRead, ...] = ()
    #: the side on roll lifted dice read that way from the board it had not moved
    lifted: bool = False


@dataclass(frozen=True, slots=True)
class Adopted:
    """One turn of an explanation, as it is recorded."""

    roll: Dice
    play: Play  # the mover still on roll in ``play.result``
    dice_seen: bool  # seen: read as this throw, or still lying on the board
    flag: str  # why the turn is marked for review ("" when it is not)


@dataclass(frozen=True, slots=True)
class Adoption:
    """Turns to record as played, in order: the dominant explanation of a board. The referee
    records each (stopping if the game ends), then reads the board again from where they
    lead (the next throw may lie on it), unless ``still_down``."""

    turns: tuple[Adopted, ...]
    #: the other throws that make the last turn's board, when its dice were not seen
    #: (non-doubles first: undo offers them)
    alternatives: tuple[Dice, ...] = ()
    #: the dice on the board are the last turn's, not yet lifted (not the next throw)
    still_down: bool = False


@dataclass(frozen=True, slots=True)
class AsItStands:
    """A board no legal turn explains, and what becomes of it."""

    key: tuple[object, ...]  # the board as read, to know it again on a later reading
    #: the board taken as it stands, the side to roll next on turn; None while it is only
    #: shown (the players have not gone on from it yet)
    board: Position | None = None


# --- reading the dice -----------------------------------------------------------------------


def flat_roll(obs: BoardObservation) -> Dice | str | None:
    """The roll on the board: Dice, None (no roll yet) or "cocked"."""
    if not obs.dice:
        return None
    if any(not d.flat for d in obs.dice):
        return "cocked"
    if len(obs.dice) != 2:
        return None
    return Dice(obs.dice[0].value, obs.dice[1].value)


def glimpse(obs: BoardObservation) -> tuple[Dice, ...]:
    """The throws the dice in view may be: the two dice read; with one of them read as
    cocked, also every throw with the flat one (a leaning die's value is no surer than its
    lean); with one die seen and the other not found, every throw with the one seen."""
    if len(obs.dice) == 2:
        read = Dice(obs.dice[0].value, obs.dice[1].value)
        flat = [d.value for d in obs.dice if d.flat]
        if len(flat) != 1:
            return (read,)
        others = (Dice(flat[0], w) for w in range(1, 7))
        return (read, *(d for d in others if (d.high, d.low) != (read.high, read.low)))
    if len(obs.dice) == 1:
        v = obs.dice[0].value
        return tuple(Dice(v, w) for w in range(1, 7))
    return ()


def _roll_read(reads: tuple[DieRead, ...]) -> Dice | None:
    """The throw the dice read show, when both were read and lie flat."""
    if len(reads) != 2 or not all(d.flat for d in reads):
        return None
    return Dice(reads[0].value, reads[1].value)


def _same_throw(a: Dice, b: Dice) -> bool:
    return (a.high, a.low) == (b.high, b.low)


def _one_die_of(a: Dice, b: Dice) -> bool:
    """Whether throw ``a`` is ``b`` with one die read otherwise (a die of each the same)."""
    return not _same_throw(a, b) and bool({a.high, a.low} & {b.high, b.low})


# --- turns settled by the board they lead to ------------------------------------------------


def settle(ev: Evidence, obs: BoardObservation, tables: Tables, *,
           then_first: Dice | None = None) -> Adoption | None:
    """The board is not the known position and the turn that led to it was not judged (its
    dice were not read, or unsurely): the legal turns that lead here from the last certain
    position, weighed with the dice read (:mod:`pibg.decoder`), settle it. The dominant
    explanation is adopted, its dice marked as inferred, and the reading goes on from the
    board it leads to. None when no explanation dominates. ``then_first``: only an
    explanation of two turns whose first is this throw (the dice were read surely; the
    opponent has moved too)."""
    g = ev.game
    if g is None or g.phase not in (Phase.OPENING, Phase.ROLL, Phase.MOVE):
        return None
    opening = g.phase is Phase.OPENING or (ev.opening and g.phase is not Phase.ROLL)
    known = Position.start() if opening else g.position
    down = flat_roll(obs)
    if not ev.dice_reads and isinstance(down, Dice) and then_first is None:
        # dice on a moved board, none read before: the mover's, not yet lifted?
        found = _played_with(known, down, obs, tables, ev.judge, opening)
        if found is not None:
            return _adoption(found, ev.dice_reads, still_down=True)
    if then_first is not None:
        return _settle_sure(ev, obs, tables, known, then_first)
    d = decode(known, obs, ev.dice_reads, opening=opening, same_end=True, tables=tables)
    if d is None or not d.turns:
        return None
    return _adoption(d, ev.dice_reads)


def _settle_sure(ev: Evidence, obs: BoardObservation, tables: Tables, known: Position,
                 sure: Dice) -> Adoption | None:
    """The dice were read surely, yet no play of them explains the board: two turns do, when
    the opponent moved too before the board was seen (the sure throw first), or when the
    mover's throw was never seen and passed, the sure throw being the opponent's (a player
    on the bar before a closed board)."""
    # Two stories, each searched once: the sure throw the first turn's, or the second's (the
    # first a pass nobody saw). Either may reach the board by two histories alike (a checker
    # entered and hit at once, against a pass): the board after them is sure, the first
    # turn's record marked; a story with one history is taken before such a one.
    mine = decode(known, obs, ev.dice_reads, opening=ev.opening, same_end=True, tables=tables)
    theirs = decode(known, obs, ev.earlier_reads, reads2=ev.dice_reads, opening=ev.opening,
                    first_passes=ev.lifted, same_end=True, tables=tables)
    moved = (mine if mine is not None and len(mine.turns) == 2
             and _same_throw(mine.turns[0].roll, sure) else None)
    passed = (theirs if theirs is not None and len(theirs.turns) == 2
              and _same_throw(theirs.turns[1].roll, sure) else None)
    plain = [(moved if moved is not None and moved.path_sure else None, 0),
             (passed if passed is not None and passed.path_sure
              and not passed.turns[0].play.moves else None, 1)]
    if ev.lifted:  # the side on roll was seen to lift dice without moving: a pass, likelier
        plain.reverse()
    if (passed is None and theirs is not None and len(theirs.turns) == 2 and theirs.path_sure
            and not theirs.turns[0].play.moves and _one_die_of(theirs.turns[1].roll, sure)):
        # no story with the sure throw itself: the pass nobody saw, then the opponent's
        # throw misread by one die (golden match m007 through pibg.sim's tournament board: a
        # dance unseen, the opponent's 5-1 read as 5-2 and taken for the dancer's)
        plain.append((theirs, 1))
    for d, turn in plain:
        if d is not None:
            return _adoption(d, ev.dice_reads, reads_turn=turn)
    found = [(d.score, turn, d) for d, turn in ((moved, 0), (passed, 1)) if d is not None]
    if not found:
        return None
    _, turn, d = max(found, key=lambda f: f[0])
    return _adoption(d, ev.dice_reads, reads_turn=turn)


def won_unseen(ev: Evidence, obs: BoardObservation, tables: Tables) -> Adoption | None:
    """The starting position is set up again while the side on roll could bear off its last
    checkers: the game's last play was not seen (the board was cleared for the next game
    before the camera saw it). The winning play is adopted, marked, and the game ends."""
    g = ev.game
    if g is None or g.phase not in (Phase.ROLL, Phase.MOVE) or ev.opening:
        return None
    if not any(tables.fits(Position.start(c), ev.judge.illegal_margin) for c in Color):
        return None
    throws = [ev.dice] if ev.dice is not None and g.phase is Phase.MOVE else list(ALL_THROWS)
    wins = [(r, p) for r in throws for p in legal_plays(g.position, r)
            if p.result.winner() is not None]
    if not wins:
        return None
    ranked = sorted(wins, key=lambda w: (w[0].is_double, -len(w[1].moves)))
    roll, play = ranked[0]
    others = tuple((r,) for r, _ in ranked[1:] if not _same_throw(r, roll))
    d = Decoded((Turn(roll, play),), play.result.swap_turn(), 0.0,
                dice_sure=ev.dice is not None and g.phase is Phase.MOVE, others=others)
    return _adoption(d, ev.dice_reads, note="the game's last play, not seen: the board was "
                     "set up for the next game")


def _played_with(known: Position, roll: Dice, obs: BoardObservation, tables: Tables,
                 cfg: JudgeConfig, opening: bool) -> Decoded | None:
    """A clear legal play of ``roll`` (the dice still on the board) from ``known``."""
    sides = [known.with_turn(c) for c in Color] if opening else [known]
    found = [v for v in (judge(p, roll, obs, cfg, tables=tables) for p in sides)
             if v.outcome is Outcome.PLAY and v.play is not None and v.play.moves]
    if len(found) != 1 or (opening and roll.is_double):
        return None
    play = found[0].play
    assert play is not None
    return Decoded((Turn(roll, play),), play.result.swap_turn(), found[0].score, True)


def _adoption(d: Decoded, reads: tuple[DieRead, ...], *, still_down: bool = False,
              reads_turn: int = 0, note: str = "") -> Adoption:
    """The turns of ``d`` as recorded: each marked with why it is in doubt. ``reads`` are the
    dice read for turn ``reads_turn``; ``still_down``: they lie on the board yet, the last
    turn's (its dice are seen); ``note`` is added to every turn's flag."""
    read = _roll_read(reads)
    turns: list[Adopted] = []
    for i, turn in enumerate(d.turns):
        roll = turn.roll
        seen = still_down or (i == reads_turn and read is not None and _same_throw(read, roll))
        why = []
        if not seen:
            why.append("dice not seen" if i != reads_turn or not reads else
                       "dice read " + "-".join(str(r.value) for r in reads) + " unsurely")
        if not d.dice_sure:
            alts = sorted({f"{t[i].high}-{t[i].low}" for t in d.others
                           if len(t) > i and not _same_throw(t[i], roll)})
            if alts:
                why.append(f"the board fits {' or '.join(alts)} too")
        if i != reads_turn:
            why.append("turn not seen: inferred from the board after it")
        if note:
            why.append(note)
        if not d.path_sure and i == 0:
            why.append("another history reaches the same board as well")
        turns.append(Adopted(roll, turn.play, seen, "; ".join(why)))
    alternatives: tuple[Dice, ...] = ()
    if turns and not turns[-1].dice_seen:
        last = len(turns) - 1
        roll = turns[-1].roll
        others = [t[last] for t in d.others if len(t) > last]
        alternatives = tuple(sorted(
            {(r.high, r.low): r for r in others if not _same_throw(r, roll)}.values(),
            key=lambda r: r.is_double))
    return Adoption(tuple(turns), alternatives, still_down)


# --- throws to ask about --------------------------------------------------------------------


def played_glimpsed(ev: Evidence, obs: BoardObservation, tables: Tables) -> Verdict | None:
    """The board, dice lifted, is a clear legal play of a throw seen but not taken (a die
    read as cocked, one die of it not found, or neither seen, and the player went on): ask
    whether that was the throw. Only when the throws it may have been that fit the board best
    all lead to that same board; they are then offered one at a time."""
    g = ev.game
    if g is None or obs.dice:
        return None
    fits: list[tuple[Dice, Verdict]] = []
    for roll in ev.glimpsed or ALL_THROWS:  # none seen: any throw
        if g.phase is Phase.OPENING:
            if roll.is_double:
                continue
            both = [v for v in (judge(Position.start(c), roll, obs, ev.judge, tables=tables)
                                for c in Color) if v.outcome is Outcome.PLAY]
            if len(both) == 1:
                fits.append((roll, both[0]))
        elif g.phase is Phase.ROLL:
            v = judge(g.position, roll, obs, ev.judge, tables=tables)
            if v.outcome is Outcome.PLAY and v.play is not None:
                fits.append((roll, v))
    if not fits:
        return None
    top = max(v.score for _, v in fits)  # throws whose plays fit clearly worse drop out
    fits = [f for f in fits if f[1].score >= top - ev.judge.ambiguity_margin]
    if len({v.play.result.key() for _, v in fits if v.play is not None}) != 1:
        return None  # throws leading to different boards fit alike: the reading is unsure
    # Several throws may make the same board (2-2 and 6-2 playing 14/8 3/1, or any bear-off
    # of the last checkers): offered one at a time, non-doubles (twice as likely) first.
    fits.sort(key=lambda f: f[0].is_double)
    roll, first = fits[0]
    play = first.play
    assert play is not None
    offers = tuple((r, f.play) for r, f in fits[1:] if f.play is not None)
    return Verdict(Outcome.ILLEGAL, play=play, reroll=roll, points=(), score=first.score,
                   offers=offers)


def passed_glimpsed(ev: Evidence) -> Verdict | None:
    """Dice seen but not read right were lifted from an unchanged board, and none of the
    throws they may have been has a legal move (the player is on the bar against a closed
    board): the turn passed. Ask with which throw, offering each in turn. (When only some of
    them are blocked, the dice may also have been thrown again, a die on the bar or leaning
    unseen: the next boards settle it, see :func:`_settle_sure`.)"""
    g = ev.game
    if (g is None or g.phase is not Phase.ROLL
            or any(legal_plays(g.position, r) for r in ev.glimpsed)):
        return None
    stay = Play((), (), g.position)  # a play of no moves: the pass
    throws = sorted(ev.glimpsed, key=lambda r: r.is_double)
    roll, offers = throws[0], tuple((r, stay) for r in throws[1:])
    return Verdict(Outcome.ILLEGAL, play=stay, reroll=roll, points=(), offers=offers)


def doubted_roll(ev: Evidence, v: Verdict, obs: BoardObservation, tables: Tables
                 ) -> Verdict | None:
    """A legal play (``v``) of the unsurely read dice fits the board only loosely (a checker
    more or less somewhere), while a clear play of another throw fits it much better: the
    likelier story is a misread die (a three whose corner pips the camera lost, read as a
    one). Ask with the throw the board fits, and offer the read one next."""
    g = ev.game
    assert g is not None and ev.dice is not None and v.play is not None
    cfg = ev.judge
    if v.score >= tables.best - cfg.ambiguity_margin:
        return None  # the read throw's play fits the board well: nothing to doubt
    alt = other_roll(g.position, ev.dice, obs, cfg, sure_die=ev.sure_die, tables=tables)
    if alt is None:
        return None
    board = alt[1].result  # the board a clear play of another throw makes
    if board == v.play.result or tables.score(board) < v.score + cfg.ambiguity_margin:
        return None
    read = ev.dice
    # every throw that makes that board is offered, those keeping a die read (the surer one
    # first) and non-doubles first; the dice read come last
    same: list[tuple[tuple[bool, bool, bool], Dice, Play]] = []
    for r in ALL_THROWS:
        if _same_throw(r, read):
            continue
        w = judge(g.position, r, obs, cfg, tables=tables)
        if w.outcome is Outcome.PLAY and w.play is not None and w.play.result == board:
            keeps = ev.sure_die in (r.a, r.b)
            shares = bool({r.a, r.b} & {read.a, read.b})
            same.append(((not keeps, not shares, r.is_double), r, w.play))
    same.sort(key=lambda t: t[0])
    if not same:
        return None
    (_, roll, play), rest = same[0], same[1:]
    return Verdict(Outcome.ILLEGAL, play=play, reroll=roll, points=(), score=v.score,
                   offers=(*((r, p) for _, r, p in rest), (read, v.play)))


def with_reroll(v: Verdict, before: Position, dice: Dice, obs: BoardObservation,
                cfg: JudgeConfig, doubles: bool = True, sure_die: int | None = None, *,
                tables: Tables) -> Verdict:
    """An illegal verdict that also says which other roll the board fits, if exactly one."""
    alt = other_roll(before, dice, obs, cfg, doubles=doubles, sure_die=sure_die,
                     tables=tables)
    if alt is None:
        return _blocked_reroll(v, before, dice, sure_die)
    roll, play = alt
    hint = (f"the board fits {roll.high}-{roll.low}: if that was thrown, press confirm")
    return replace(v, reroll=roll, play=play, reasons=(*v.reasons, hint))


def _blocked_reroll(v: Verdict, before: Position, dice: Dice, sure_die: int | None
                    ) -> Verdict:
    """The board is left as it was and the dice lifted, though the throw read can be played:
    the likelier story, where some throw of a read die cannot be played at all (a checker
    on the bar before a closed board), is a misread die. Those throws are offered, the ones
    keeping the surer die first, then non-doubles; "undo" passes to the next."""
    if v.seen is None or v.seen != before:
        return v
    blocked = sorted((r for r in ALL_THROWS
                      if not _same_throw(r, dice)
                      and {r.a, r.b} & {dice.a, dice.b} and not legal_plays(before, r)),
                     key=lambda r: (sure_die not in (r.a, r.b), r.is_double))
    if not blocked:
        return v
    stay = Play(moves=(), hits=(), result=before)
    roll, rest = blocked[0], blocked[1:]
    others = " or ".join(f"{r.high}-{r.low}" for r in blocked)
    hint = (f"{others} cannot be played: if {roll.high}-{roll.low} was thrown, press confirm"
            + ("; undo for the next" if rest else ""))
    return replace(v, reroll=roll, play=stay, offers=tuple((r, stay) for r in rest),
                   reasons=(*v.reasons, hint))


def revised_play(before: Position, roll: Dice, recorded: Position, obs: BoardObservation,
                 tables: Tables, cfg: JudgeConfig) -> Play | None:
    """The last play was recorded from a reading, and the board seen before the opponent
    throws is not that play's board but a clear other legal play of the same throw from the
    same position (``before``, the mover on roll): the reading it was recorded from was
    wrong (a hand over the board, a knock of the camera), or the player moved again before
    the opponent went on. The play the board shows, to record in its place; None when the
    board is no clear play of that throw, or is the one recorded (``recorded``, the mover
    still on roll)."""
    v = judge(before, roll, obs, cfg, tables=tables)
    if v.outcome is not Outcome.PLAY or v.play is None or v.play.result == recorded:
        return None
    return v.play


# --- boards taken as they stand -------------------------------------------------------------


def slipped_play(ev: Evidence, obs: BoardObservation, tables: Tables) -> Hypothesis | None:
    """The board is best explained as a legal play of the side on roll with one checker
    one point off (a play nobody saw the dice of, made carelessly, or one point misread),
    rather than as the known position with a checker knocked. Once the opponent has thrown
    on it, by the rules it stands."""
    g = ev.game
    if g is None or g.phase is not Phase.ROLL:
        return None
    found = hypotheses(g.position, obs, ev.dice_reads, turns=1, tables=tables)
    best = found[0] if found else None
    return best if best is not None and not best.legal and best.turns else None


def as_it_stands(known: Position, obs: BoardObservation, shown: tuple[object, ...] | None
                 ) -> AsItStands:
    """No legal turn explains the board. It is shown (lit) until the players go on from it,
    a throw lying on the board already shown (``shown``: its key): it is then taken as it
    stands. The side on roll moved if its checkers stand otherwise and nearer home (the
    opponent rolls next), else it is still to roll."""
    seen = seen_position(obs, known.turn)
    key = (obs.signed_points(), obs.bar_white.count, obs.bar_black.count)
    if seen is None or not isinstance(flat_roll(obs), Dice):
        return AsItStands(key)
    if shown != key:  # dice on a board first seen now: the turn may still be judged
        return AsItStands(key)
    mover = known.turn
    moved = seen.board(mover) != known.board(mover) and seen.pips(mover) < known.pips(mover)
    return AsItStands(key, seen.with_turn(mover.other if moved else mover))
