"""The referee: from board readings and button presses to a judged, recorded match.

Pure: ``step(state, input) -> Step``. Inputs carry their own time (``t`` in seconds); the
referee never reads a clock, a camera or a file. Each step returns the new state, the match
events to append to the journal (in order), the :class:`~pibg.effects.Effects` the LEDs and
display should show, and lines to announce.

How a turn goes (docs/rules.md, rules 12-14): the dice come to rest flat, the roll is known
(a cocked die: "re-roll"); the player moves; the dice are lifted (or confirm is pressed) and
the position that stands then is judged against every legal play. Readings are acted on only
once they have been stable for ``stable_seconds`` and while no hand covers the board; while
the board stays still, every frame's reading is weighed in with the ones before it
(:mod:`pibg.fusion`), so one frame's misread does not decide a turn.

This module is the state machine: modes, buttons, the cube, the flow of the match. What to
make of a board when the camera was unsure of a turn (its dice not read, or read unsurely,
or glimpsed and not taken; a question nobody answered; a board that differs from the known
position, or that no legal turn explains) is decided by :mod:`pibg.doubt`; the referee
applies its answers: records the events, says them, changes mode. A step builds the scoring
tables of the reading it judges once (:class:`pibg.infer.Tables`, held by the step's
collector) and passes them to every question asked of that reading.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace

from pibg import doubt
from pibg.decoder import Hypothesis
from pibg.effects import (
    AMBER,
    BLUE,
    GREEN,
    LED_STATUS,
    LED_TRAY_BLACK,
    LED_TRAY_WHITE,
    PURPLE,
    RED,
    RGB,
    WHITE_LIGHT,
    Animation,
    Effects,
    Sound,
    point_led,
)
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
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.exc import PibgError
from pibg.fusion import DIE_MOVED_PX, Pending, fuse, same_scene
from pibg.infer import (
    JudgeConfig,
    Outcome,
    Tables,
    Verdict,
    differing_points,
    judge,
    other_roll,
    seen_position,
    to_white_points,
)
from pibg.match import (
    MatchState,
    Phase,
    amendment_text,
    apply,
    check_amendment,
    effective_events,
    replay,
)
from pibg.moves import Dice, Play
from pibg.observation import BoardObservation, DieRead
from pibg.position import Color, Position
from pibg.record import recorded
from pibg.rules import legal_plays


class Mode(enum.Enum):
    SETUP = "setup"  # waiting for the starting position
    OPENING = "opening"  # waiting for the opening roll
    TO_ROLL = "to_roll"  # the player on turn may double, then rolls
    DOUBLED = "doubled"  # a double is offered: take / drop / beaver
    MOVING = "moving"  # the roll is known: the player moves, then lifts the dice
    ILLEGAL = "illegal"  # the board shows an illegal play: correct it, or confirm to condone
    ASK = "ask"  # the reading fits several plays: fix the lit points, or confirm the first
    RESYNC = "resync"  # the board differs from the known position: restore it
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"


BUTTONS = ("confirm", "undo", "double", "take", "drop", "beaver",
           "resign", "resign_gammon", "resign_backgammon")
_RESIGN = {"resign": 1, "resign_gammon": 2, "resign_backgammon": 3}


@dataclass(frozen=True, slots=True)
class Frame:
    """A reading of one camera frame at time ``t`` (seconds, any origin)."""

    t: float
    obs: BoardObservation


@dataclass(frozen=True, slots=True)
class Press:
    """A button press; ``long`` for a long press (confirm long = accept the board as set up)."""

    t: float
    button: str
    long: bool = False


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing with no new frame (lets a held reading become stable)."""

    t: float


@dataclass(frozen=True, slots=True)
class Amend:
    """A reviewer sets the dice of a turn in doubt of a game that has ended (the live page's
    ``/api/amend``): recorded as ``amended`` where :func:`pibg.match.check_amendment`
    allows it, refused with the reason said otherwise. Nothing else changes."""

    t: float
    amended: Amended


@dataclass(frozen=True, slots=True)
class Ended:
    """The recording ended: a replay's source has no more frames. A turn asked about and
    never answered is settled as when the players go on (the likeliest throw or play taken,
    marked for review): nothing later will say otherwise. (A live camera does not end so: a
    service stopped resumes its match, question and all.)"""

    t: float


Input = Frame | Press | Tick | Amend | Ended


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    stable_seconds: float = 1.0
    judge: JudgeConfig = field(default_factory=JudgeConfig)


_Sig = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class RefereeState:
    events: tuple[Event, ...]
    match: MatchState
    mode: Mode = Mode.SETUP
    config: RefereeConfig = field(default_factory=RefereeConfig)
    dice: Dice | None = None
    roll_confidence: float = 1.0  # how sure vision was of the dice (the least sure die)
    #: throws seen but not taken: the dice of a die read as cocked, or every throw with the
    #: one die seen when the other was not found
    glimpsed: tuple[Dice, ...] = ()
    sure_die: int | None = None  # the value of the die vision read surest, if it was unsure
    dice_at: tuple[tuple[float, float], ...] = ()  # where the dice in play lay in the image
    #: what the dice in play were read as before a re-read replaced them (a re-read on a
    #: frame where a hand half-hides a die can be the wrong one)
    read_before: tuple[Dice, ...] = ()
    opening: bool = False  # the roll being played is the opening roll (mover not yet known)
    pending: Pending | None = None  # the readings of the still board now in view
    signature: _Sig | None = None
    since: float = 0.0
    acted: _Sig | None = None
    last_obs: BoardObservation | None = None
    verdict: Verdict | None = None
    resume: Mode | None = None  # the mode to return to after RESYNC
    last_points: tuple[int, ...] = ()
    #: the dice read for the turn of the side on roll (evidence when the turn is inferred)
    dice_reads: tuple[DieRead, ...] = ()
    #: the dice read before them on the same board, not taken (a die read as cocked, or one
    #: die not found): the throw of a turn that may have passed unseen
    earlier_reads: tuple[DieRead, ...] = ()
    #: the side on roll lifted dice read that way from the board it had not moved
    lifted: bool = False
    #: a board no legal play explains, and whether the players went on from it (dice down)
    unexplained: tuple[object, ...] | None = None
    #: the other throws that make the board of the last turn inferred (undo offers them)
    alternatives: tuple[Dice, ...] = ()
    message: tuple[str, ...] = ()
    sound: Sound = Sound.NONE
    animation: Animation = Animation.NONE


@dataclass(frozen=True, slots=True)
class Step:
    state: RefereeState
    events: tuple[Event, ...]
    effects: Effects
    say: tuple[str, ...]


# --- construction ---------------------------------------------------------------------------


def new_match(settings: MatchSettings, config: RefereeConfig | None = None) -> Step:
    """A referee for a new match: records the match start and waits for the start position."""
    ev = MatchStarted(settings)
    st = RefereeState(events=(ev,), match=apply(MatchState.new(), ev),
                      config=config or RefereeConfig())
    st = replace(st, message=("set up the start",))
    return Step(st, (ev,), render(st), (f"match: {_describe(settings)}",))


def resume(events: tuple[Event, ...], config: RefereeConfig | None = None) -> Step:
    """A referee picking up a recorded match (after a restart): it shows the position it
    expects and waits until the board matches it."""
    match = replay(events)
    st = RefereeState(events=events, match=match, config=config or RefereeConfig())
    st = _mode_from_match(st)
    if st.mode in (Mode.TO_ROLL, Mode.MOVING, Mode.DOUBLED):
        st = replace(st, resume=st.mode, mode=Mode.RESYNC,
                     message=("restarted: set up", "the lit position"))
    return Step(st, (), render(st), (f"resumed: {_score_text(match)}",))


def _describe(s: MatchSettings) -> str:
    kind = f"{s.length}-point match" if s.length else "money game"
    return f"{s.white} (White) v {s.black} (Black), {kind}"


def _mode_from_match(st: RefereeState) -> RefereeState:
    m = st.match
    if m.over:
        return replace(st, mode=Mode.MATCH_OVER, dice=None)
    g = m.game
    if g is None:
        return replace(st, mode=Mode.SETUP, dice=None)
    mode = {Phase.OPENING: Mode.OPENING, Phase.ROLL: Mode.TO_ROLL, Phase.DOUBLED: Mode.DOUBLED,
            Phase.MOVE: Mode.MOVING, Phase.OVER: Mode.GAME_OVER}[g.phase]
    return replace(st, mode=mode, dice=g.dice, opening=False)


# --- the step function ----------------------------------------------------------------------


class _Out:
    """Collects what one step records and says, and holds the scoring tables of the reading
    it judges: a step weighs one reading against many positions (the known one, each throw's
    plays, the decoder's search), and the tables are built for it once."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.say: list[str] = []
        self._read: BoardObservation | None = None
        self._tables: Tables | None = None

    def tables(self, obs: BoardObservation) -> Tables:
        """``obs``'s scoring tables, built on first use."""
        if self._tables is None or self._read is not obs:
            self._read, self._tables = obs, Tables(obs)
        return self._tables


def step(state: RefereeState, inp: Input) -> Step:
    """Advance the referee by one input."""
    out = _Out()
    st = replace(state, sound=Sound.NONE, animation=Animation.NONE)
    if isinstance(inp, Press):
        st = _press(st, inp, out)
    elif isinstance(inp, Amend):
        st = _amend(st, inp.amended, out)
    elif isinstance(inp, Ended):
        st = _ended(st, out)
    else:
        st = _observe(st, inp, out)
    return Step(st, tuple(out.events), render(st), tuple(out.say))


def _ended(st: RefereeState, out: _Out) -> RefereeState:
    """The recording ended (:class:`Ended`) with a question open: the throw asked about is
    taken, marked; a question about plays, the first of them (:func:`_settle_pending`)."""
    if st.mode is not Mode.ASK:
        return st
    v = st.verdict
    if v is not None and v.reroll is not None and v.play is not None:
        return _accept_reroll(st, v.reroll, v.play, out, flag="nobody confirmed the dice "
                              "before the recording ended: the likeliest throw taken")
    return _settle_pending(st, out)


def _amend(st: RefereeState, amended: Amended, out: _Out) -> RefereeState:
    try:
        turn = check_amendment(st.events, amended)
    except PibgError as exc:
        out.say.append(f"dice not set: {exc}")
        return st
    st = _record(st, amended, out)
    out.say.append(amendment_text(turn, amended))
    return st


def _record(st: RefereeState, ev: Event, out: _Out) -> RefereeState:
    """Apply ``ev`` to the match (raising if it does not fit) and record it."""
    match = apply(st.match, ev)
    out.events.append(ev)
    st = replace(st, match=match, events=(*st.events, ev))
    if isinstance(ev, (Moved, SetUp)):
        return replace(st, dice_reads=(), earlier_reads=(), lifted=False, unexplained=None,
                       alternatives=())
    return st


def _signature(obs: BoardObservation) -> _Sig:
    dice = tuple(sorted((d.value, d.flat) for d in obs.dice))
    cube = None if obs.cube is None else (obs.cube.value, obs.cube.owner)
    return (obs.signed_points(), obs.bar_white.count, obs.bar_black.count,
            obs.off_white.count, obs.off_black.count, dice, cube)


def _observe(st: RefereeState, inp: Frame | Tick, out: _Out) -> RefereeState:
    if isinstance(inp, Frame):
        obs = inp.obs
        if not obs.readable:
            if st.signature is not None and obs.reason:  # once, as it comes over the board
                out.say.append(f"not judged: {obs.reason.split(': ')[0]}")
            return replace(st, pending=None, signature=None)
        if st.pending is not None and same_scene(st.pending, obs):
            pending = fuse(st.pending, obs)
        else:
            pending = Pending.first(obs)
        sig = _signature(pending.obs)
        st = replace(st, pending=pending)
        if sig != st.signature:
            st = replace(st, signature=sig, since=inp.t)
    if st.pending is None or st.signature is None:
        return st
    if inp.t - st.since < st.config.stable_seconds or st.signature == st.acted:
        return st
    obs = st.pending.obs
    st = replace(st, acted=st.signature, last_obs=obs)
    return _on_stable(st, obs, out)


def _matches(st: RefereeState, obs: BoardObservation, pos: Position, out: _Out) -> bool:
    return out.tables(obs).fits(pos, st.config.judge.illegal_margin)


def _on_stable(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    mode = st.mode
    if mode in (Mode.SETUP, Mode.GAME_OVER):
        if st.match.over:
            return replace(st, mode=Mode.MATCH_OVER)
        if _matches(st, obs, Position.start(), out):
            st = _record(st, GameStarted(), out)
            g = st.match.game
            crawford = " (Crawford game)" if g is not None and g.crawford else ""
            out.say.append(f"game {len(st.match.games) + 1}{crawford}: opening roll")
            st = replace(st, mode=Mode.OPENING, message=("opening roll",), last_points=())
            return _on_stable(st, obs, out) if obs.dice else st
        return st
    if mode is Mode.OPENING:
        return _opening(st, obs, out)
    if mode is Mode.RESYNC:
        g = st.match.game
        if g is not None and _matches(st, obs, g.position, out):
            out.say.append("board matches again")
            st = replace(st, mode=st.resume or Mode.TO_ROLL, resume=None, verdict=None)
            return _on_stable(st, obs, out)
        return _resync_seen(st, obs, out)
    if mode is Mode.TO_ROLL:
        return _to_roll(st, obs, out)
    if mode is Mode.DOUBLED:
        return _doubled_seen(st, obs, out)
    if mode is Mode.ASK and st.dice is None:  # asked about a throw never taken: look again
        if st.opening:
            return _opening(replace(st, mode=Mode.OPENING, verdict=None, opening=False), obs,
                            out)
        return _to_roll(replace(st, mode=Mode.TO_ROLL, verdict=None), obs, out)
    if mode in (Mode.MOVING, Mode.ILLEGAL, Mode.ASK):
        if mode is not Mode.MOVING:
            went = _went_on(st, obs, out)
            if went is not None:
                return went
        roll = doubt.flat_roll(obs)
        if mode is Mode.MOVING and st.dice is not None and isinstance(roll, Dice) and (
                sorted((roll.a, roll.b)) == sorted((st.dice.a, st.dice.b))):
            return st  # the dice are still down: the player is moving
        if mode is Mode.MOVING and roll == "cocked":
            return st
        if mode is Mode.MOVING and isinstance(roll, Dice) and _dice_reread(st, obs, out):
            return _reread(st, roll, obs, out)
        if mode is Mode.MOVING and roll is None and _a_die_still_down(st, obs):
            return st  # one die lifted, the other not yet (or under a hand): not judged yet
        st = _judge(st, obs, out)
        if st.mode is Mode.TO_ROLL and isinstance(doubt.flat_roll(obs), Dice):
            return _to_roll(st, obs, out)
        return st
    return st


def _a_die_still_down(st: RefereeState, obs: BoardObservation) -> bool:
    """A die of the throw in play still lies where it came to rest: the dice are not lifted
    yet, so the turn is not over (the other die may be in a hand, or under one)."""
    if st.dice is None:
        return False
    values = (st.dice.a, st.dice.b)
    return any(d.flat and d.value in values and math.hypot(d.x - x, d.y - y) <= DIE_MOVED_PX
               for d in obs.dice for x, y in st.dice_at)


def _before_move(st: RefereeState) -> Position:
    g = st.match.game
    assert g is not None
    return Position.start() if st.opening else g.position


def _dice_reread(st: RefereeState, obs: BoardObservation, out: _Out) -> bool:
    """Other dice values on a board nobody has moved yet: the same dice, read better (the
    recorded roll had plays to make, so this is no next player's roll after a pass)."""
    return (st.dice is not None and st.match.game is not None
            and bool(legal_plays(_before_move(st), st.dice))
            and _matches(st, obs, _before_move(st), out))


def _in_play(st: RefereeState, roll: Dice, obs: BoardObservation) -> RefereeState:
    """``roll`` is the throw now played, as read in ``obs``: how sure vision was of it (the
    least sure die) and which die it read clearly surer, if one (a misread is the other)."""
    dice = sorted(obs.dice, key=lambda d: -d.confidence)
    sure = (dice[0].value if len(dice) == 2 and dice[0].confidence > dice[1].confidence + 0.2
            else None)
    return replace(st, dice=roll, glimpsed=(), sure_die=sure, read_before=(), dice_reads=obs.dice,
                   dice_at=tuple((d.x, d.y) for d in obs.dice),
                   roll_confidence=min((d.confidence for d in obs.dice), default=1.0))


def _reread(st: RefereeState, roll: Dice, obs: BoardObservation, out: _Out) -> RefereeState:
    g = st.match.game
    assert g is not None and st.dice is not None
    old = f"{st.dice.high}-{st.dice.low}"
    if st.opening:
        if roll.is_double:
            return st
    else:
        st = _record(st, Reread(player=g.turn, dice=roll), out)
    out.say.append(f"dice read again: {roll.high}-{roll.low}, not {old}")
    before = (*st.read_before, st.dice) if st.dice is not None else st.read_before
    return replace(_in_play(st, roll, obs), read_before=before,
                   message=(f"dice: {roll.high}-{roll.low}",))


def _opening(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    roll = doubt.flat_roll(obs)
    if not _matches(st, obs, Position.start(), out):
        # no opening roll off the start position: the start is set up again, or the first
        # move was made with dice read as cocked (ask), or with dice never seen
        settled = _settle(st, obs, out)
        if settled is not None:
            return settled
        asked = _played_glimpsed(st, obs, out)
        if asked is not None:
            return asked
        seen = doubt.glimpse(obs) if isinstance(roll, Dice) else ()  # on a misread start?
        return replace(st, message=("set up the start",), glimpsed=seen or st.glimpsed)
    if obs.dice:
        st = replace(st, dice_reads=obs.dice)
    if roll == "cocked":
        out.say.append("a die of the opening roll is not flat: roll again")
        return replace(st, message=("die not flat:", "roll again"), sound=Sound.ASK,
                       glimpsed=doubt.glimpse(obs))
    if not isinstance(roll, Dice):
        return replace(st, message=("opening roll",),
                       glimpsed=doubt.glimpse(obs) or st.glimpsed)
    if roll.is_double:
        st = _record(st, OpeningRoll(white=roll.a, black=roll.b), out)
        g = st.match.game
        extra = f": cube {g.cube.value}" if g is not None and g.cube.value > 1 else ""
        out.say.append(f"opening roll tie {roll.a}-{roll.b}{extra}: roll again")
        return replace(st, message=("tie: roll again",))
    out.say.append(f"opening roll {roll.high}-{roll.low}: the higher die moves")
    return replace(_in_play(st, roll, obs), mode=Mode.MOVING, opening=True,
                   message=(f"opening {roll.high}-{roll.low}", "higher die moves"))


def _to_roll(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    g = st.match.game
    assert g is not None
    player = g.turn
    if not _matches(st, obs, g.position, out):
        st = _cube_seen(st, obs, out)
        if st.mode is not Mode.TO_ROLL:
            return st
        settled = _settle(st, obs, out) or _won_unseen(st, obs, out)
        if settled is not None:
            return settled
        asked = _played_glimpsed(st, obs, out)
        if asked is not None:
            return asked
        revised = _revised(st, obs, out)
        if revised is not None:
            return revised
        out.say.append("the board differs from the known position: restore it")
        st = replace(st, mode=Mode.RESYNC, resume=Mode.TO_ROLL)
        return _resync_seen(st, obs, out, tried=True)
    st = _cube_seen(st, obs, out)
    if st.mode is not Mode.TO_ROLL:
        return st
    if obs.dice:
        if st.glimpsed and st.dice_reads and obs.dice != st.dice_reads:
            st = replace(st, earlier_reads=st.dice_reads)
        st = replace(st, dice_reads=obs.dice)
    roll = doubt.flat_roll(obs)
    if roll == "cocked":
        out.say.append(f"{_name(st, player)}'s die is not flat: roll again")
        return replace(st, message=("die not flat:", "roll again"), sound=Sound.ASK,
                       glimpsed=doubt.glimpse(obs))
    if not isinstance(roll, Dice):  # no dice yet, or one die seen and the other not found
        if not obs.dice and st.glimpsed:
            passed = _passed_glimpsed(replace(st, lifted=True), out)
            if passed is not None:
                return passed
            st = replace(st, lifted=True)  # thrown again, or passed: the next board says
        return replace(st, message=(f"{_name(st, player)} to roll",),
                       glimpsed=doubt.glimpse(obs) or st.glimpsed)
    return _take_roll(st, roll, obs, out)


def _played_glimpsed(st: RefereeState, obs: BoardObservation, out: _Out
                     ) -> RefereeState | None:
    """The board, dice lifted, is a clear legal play of a throw seen but not taken: ask
    whether that was the throw (:func:`pibg.doubt.played_glimpsed`)."""
    v = doubt.played_glimpsed(_evidence(st), obs, out.tables(obs))
    if v is None:
        return None
    g = st.match.game
    assert g is not None and v.reroll is not None and v.play is not None
    roll, play = v.reroll, v.play
    how = "dice not read right" if st.glimpsed else "dice not seen"
    st = _ask(st, v, out, f"{_name(st, play.result.turn)} played {roll.high}-{roll.low} "
              f"({play}) with {how}: press confirm if those were the dice")
    return replace(st, opening=g.phase is Phase.OPENING)


def _passed_glimpsed(st: RefereeState, out: _Out) -> RefereeState | None:
    """Dice seen but not read right were lifted from an unchanged board, and none of the
    throws they may have been can move: ask with which throw the turn passed
    (:func:`pibg.doubt.passed_glimpsed`)."""
    v = doubt.passed_glimpsed(_evidence(st))
    if v is None:
        return None
    g = st.match.game
    assert g is not None and v.reroll is not None
    roll = v.reroll
    return _ask(st, v, out, f"{_name(st, g.turn)} could not move with {roll.high}-{roll.low} "
                "(dice not read right): press confirm if those were the dice")


def _ask(st: RefereeState, v: Verdict, out: _Out, text: str) -> RefereeState:
    """Ask whether ``v.reroll``, played as ``v.play``, was the throw (confirm: yes; undo:
    the next of ``v.offers``)."""
    assert v.reroll is not None and v.play is not None
    out.say.append(text)
    return replace(st, mode=Mode.ASK, verdict=v, sound=Sound.ASK,
                   message=_offer_message(v.reroll, v.play, v.offers))


def _offer_message(roll: Dice, play: Play, offers: tuple[tuple[Dice, Play], ...]
                   ) -> tuple[str, ...]:
    more = ("undo = other dice",) if offers else ()
    return (f"played {roll.high}-{roll.low}?", str(play) or "no move", "confirm = yes", *more)


def _next_offer(st: RefereeState, out: _Out) -> RefereeState:
    """Not that throw: offer the next one that makes the same board."""
    v = st.verdict
    assert v is not None and v.offers
    (roll, play), rest = v.offers[0], v.offers[1:]
    out.say.append(f"then {roll.high}-{roll.low} ({play})? press confirm if those were the dice")
    v = replace(v, reroll=roll, play=play, offers=rest)
    return replace(st, verdict=v, message=_offer_message(roll, play, rest))


def _take_roll(st: RefereeState, roll: Dice, obs: BoardObservation, out: _Out) -> RefereeState:
    """Record the throw on the board; the player on turn moves next."""
    g = st.match.game
    assert g is not None
    player = g.turn
    st = _record(st, Rolled(player=player, dice=roll), out)
    if not legal_plays(g.position, roll):
        out.say.append(f"{_name(st, player)} rolls {roll.high}-{roll.low}")
        msg: tuple[str, ...] = (f"{roll.high}-{roll.low}: no move", "lift the dice")
    else:
        out.say.append(f"{_name(st, player)} rolls {roll.high}-{roll.low}")
        msg = (f"{_name(st, player)} {roll.high}-{roll.low}",)
    return replace(_in_play(st, roll, obs), mode=Mode.MOVING, opening=False, message=msg)


def _resync_seen(st: RefereeState, obs: BoardObservation, out: _Out, *,
                 tried: bool = False) -> RefereeState:
    """A board that still differs from the known position while resyncing.

    A throw seen meanwhile is recorded (the dice stand even if a checker was knocked off);
    once the dice are lifted, a board that is a clear legal play of that throw from the
    known position is taken: the difference was put right, or was a misreading. A board
    that is a legal play of dice read as cocked is asked about. ``tried``: the turns that
    explain the board, a revised last play and a play of a throw glimpsed were looked for
    on this board already (by :func:`_to_roll`, which found none)."""
    g = st.match.game
    assert g is not None
    settled = None if tried else _settle(st, obs, out)
    if settled is not None:
        return settled
    roll = doubt.flat_roll(obs)
    if st.resume is Mode.TO_ROLL and g.phase is Phase.ROLL:
        revised = None if tried else _revised(st, obs, out)
        if revised is not None:
            return revised
        asked = None if tried else _played_glimpsed(st, obs, out)
        if asked is not None:
            return asked
        # dice on a board the player on turn has not moved (a knock, a misreading): the
        # throw stands. On a board that is a play from the known position, they are the
        # opponent's dice after a move that was not seen: not this player's.
        slipped = (doubt.slipped_play(_evidence(st), obs, out.tables(obs))
                   if isinstance(roll, Dice) else None)
        if slipped is not None:
            return _stands(st, obs, out, slipped)
        if isinstance(roll, Dice) and other_roll(g.position, None, obs, st.config.judge,
                                                   tables=out.tables(obs)) is None:
            st = _take_roll(st, roll, obs, out)
            return _show_resync(replace(st, mode=Mode.RESYNC, resume=Mode.MOVING), obs)
    if (st.resume is Mode.MOVING and roll is None and st.dice is not None
            and g.phase is Phase.MOVE and not st.opening):
        v = judge(g.position, st.dice, obs, st.config.judge, tables=out.tables(obs))
        if v.outcome in (Outcome.PLAY, Outcome.PASS):
            out.say.append("the board fits the known position and the throw: going on")
            st = replace(st, mode=Mode.MOVING, resume=None, verdict=None)
            return _apply_verdict(st, g.position, v, out)
    return _go_on_from(st, obs, out)


def _revised(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState | None:
    """The board differs from the known position before the next throw is taken, and is a
    clear other legal play of the last turn's throw from where that turn began
    (:func:`pibg.doubt.revised_play`): the reading the turn was recorded from was wrong, and
    this board settles it. The turn is taken back (an undo, in the journal) and recorded
    again as the board shows it, marked with what was first read; the board is then read
    as the next player's (their throw may lie on it). None where that is not so."""
    g = st.match.game
    last = st.events[-1] if st.events else None
    if g is None or g.phase is not Phase.ROLL or not isinstance(last, Moved) or last.illegal:
        return None
    # the throws read during the turn too: its dice set otherwise by an undo, the player
    # plays the throw again (see _same_board_throws)
    at = len(st.events) - 1
    return _revise(st, at, obs, out, throws=_throws_read(st, at))


def _revised_previous(st: RefereeState, obs: BoardObservation, out: _Out
                      ) -> RefereeState | None:
    """The player on roll has not moved, and the board is not the position their throw was
    taken on but a clear other legal play of the opponent's last turn, with the throw it was
    recorded with or one read during it (a turn recorded from a misread board, or passed
    with a throw nobody confirmed, and the true board seen only after the next throw was
    taken): that turn is recorded again as the board shows it, and the throw taken since is
    read again from the board (render sim m023: White's throw, read again after a cocked die
    as the same numbers, was taken for Black's). None where that is not so."""
    g = st.match.game
    if g is None or g.phase is not Phase.MOVE or st.opening:
        return None
    at = next((i for i in range(len(st.events) - 1, -1, -1)
               if isinstance(st.events[i], Moved)), None)
    if at is None or not all(isinstance(e, (Rolled, Reread, IllegalFlagged))
                             for e in st.events[at + 1:]):
        return None
    last = st.events[at]
    assert isinstance(last, Moved)
    if last.illegal or last.player is g.turn:
        return None
    return _revise(st, at, obs, out, throws=_throws_read(st, at))


def _throws_read(st: RefereeState, at: int) -> tuple[Dice, ...]:
    """The throws read during the turn ``st.events[at]`` (a :class:`Moved`), the last first
    (over a turn taken back within it: its dice set otherwise by an undo)."""
    last = st.events[at]
    assert isinstance(last, Moved)
    read: list[Dice] = []
    for e in reversed(effective_events(st.events[:at])):
        if isinstance(e, (Rolled, Reread)) and e.player is last.player:
            read.append(e.dice)
        if isinstance(e, Rolled) or not isinstance(e, (Reread, IllegalFlagged, Corrected)):
            break
    return tuple(read)


def _revise(st: RefereeState, at: int, obs: BoardObservation, out: _Out, *,
            throws: tuple[Dice, ...] = ()) -> RefereeState | None:
    """Record the turn ``st.events[at]`` (the last :class:`Moved`) again as the board shows
    it, where the board is a clear other legal play of its throw, or else of one of
    ``throws`` (read during that turn), from where the turn began; everything after it is
    taken back with it (one undo). The board is then read as the next player's. None where
    the board is no such play."""
    last = st.events[at]
    assert isinstance(last, Moved)
    undone = replay((*st.events, Undone()))
    back = undone.game
    if (back is None or back.phase is not Phase.MOVE or back.dice is None
            or back.turn is not last.player):
        return None
    found = None
    for roll in dict.fromkeys((back.dice, *throws)):
        play = doubt.revised_play(back.position, roll, last.play.result, obs,
                                  out.tables(obs), st.config.judge)
        if play is not None:
            found = roll, play
            break
    if found is None:
        return None
    roll, play = found
    ev = Undone()
    out.events.append(ev)
    st = replace(st, events=(*st.events, ev), match=undone)
    if roll != back.dice:
        st = _record(st, Reread(player=last.player, dice=roll), out)
    first = last.notation or "no move"
    if roll != last.dice:
        first += f" with {last.dice.high}-{last.dice.low}"
    play = recorded(back.position, roll, play)
    note = f"first read as {first}; the board then showed this play"
    kept = last.flag if roll == last.dice else ""  # a flag on the throw taken goes with it
    st = _record(st, Moved(player=last.player, dice=roll, play=play,
                           dice_seen=last.dice_seen or roll != last.dice,
                           flag=f"{kept}; {note}" if kept else note), out)
    out.say.append(f"{_name(st, last.player)} {roll.high}-{roll.low}: {play}, not "
                   f"{first} as first read (the board shows it)")
    points = tuple(sorted({p for m in play.moves for p in (m.src, m.dst)}))
    st = replace(st, mode=Mode.MOVING, verdict=None, resume=None, dice=None, glimpsed=(),
                 read_before=(), last_points=to_white_points(points, last.player))
    st = _after_move(st, out)
    return _to_roll(st, obs, out) if st.mode is Mode.TO_ROLL else st


def _cube_seen(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    """A cube turned to twice its value and pushed to the opponent: a double, taken.

    The cube's new place says it: moved to the opponent's side before the roll, it can only
    have been doubled and taken (its value then is twice the old by the rules, whatever number
    the camera made of its face)."""
    g = st.match.game
    if g is None or obs.cube is None:
        return st
    player = g.turn
    taker = player.other
    if obs.cube.owner == taker.label and g.cube.owner is not taker:
        try:
            st = _record(st, Doubled(player=player), out)
            st = _record(st, Took(player=taker), out)
        except PibgError as exc:
            out.say.append(f"cube: {exc}")
            return replace(st, message=("cube not allowed:", str(exc)[-21:]), sound=Sound.ASK)
        out.say.append(f"{_name(st, player)} doubles to {g.cube.value * 2}, "
                       f"{_name(st, taker)} takes")
        return replace(st, mode=Mode.TO_ROLL, message=(f"cube {g.cube.value * 2} taken",))
    return st


def _doubled_seen(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    g = st.match.game
    if g is None or obs.cube is None:
        return st
    taker = g.turn.other
    if obs.cube.value == g.cube.value * 2 and obs.cube.owner == taker.label:
        return _answer(st, "take", out)
    return st


def _judge(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    g = st.match.game
    assert g is not None and st.dice is not None
    if st.opening:
        return _judge_opening(st, obs, out)
    tables = out.tables(obs)
    verdict = judge(g.position, st.dice, obs, st.config.judge, tables=tables)
    if verdict.outcome is Outcome.ILLEGAL:
        for earlier in reversed(st.read_before):
            # the board is a clear legal play of the dice as first read: the re-read was the
            # misread (camera against camera, the board decides)
            first = judge(g.position, earlier, obs, st.config.judge, tables=tables)
            if first.outcome is Outcome.PLAY:
                st = _record(st, Reread(player=g.turn, dice=earlier), out)
                out.say.append(f"the board fits {earlier.high}-{earlier.low}, the dice as "
                               f"first read: {earlier.high}-{earlier.low} it was")
                st = replace(st, dice=earlier, read_before=())
                return _apply_verdict(st, g.position, first, out)
        assert st.dice is not None
        revised = _revised_previous(st, obs, out)
        if revised is not None:
            return revised
        won = _won_unseen(st, obs, out)
        if won is not None:
            return won
        # the turn before the opponent's, the opponent's not seen (frames lost); or, with the
        # dice read unsurely, a misread die: the boards the legal turns lead to decide
        unsure = st.roll_confidence < st.config.judge.sure_roll
        settled = _settle(st, obs, out, then_first=None if unsure else st.dice)
        if settled is not None:
            return settled
        verdict = doubt.with_reroll(verdict, g.position, st.dice, obs, st.config.judge,
                                    sure_die=st.sure_die, tables=tables)
    elif verdict.outcome is Outcome.PLAY and st.roll_confidence < st.config.judge.sure_roll:
        asked = _doubted_roll(st, verdict, obs, out)
        if asked is not None:
            return _settle(st, obs, out) or asked
    return _apply_verdict(st, g.position, verdict, out)


def _doubted_roll(st: RefereeState, v: Verdict, obs: BoardObservation, out: _Out
                  ) -> RefereeState | None:
    """The legal play ``v`` of the unsurely read dice fits the board only loosely, a clear
    play of another throw much better: ask with that throw, the read one offered next
    (:func:`pibg.doubt.doubted_roll`)."""
    asked = doubt.doubted_roll(_evidence(st), v, obs, out.tables(obs))
    if asked is None:
        return None
    g = st.match.game
    assert g is not None and st.dice is not None and asked.reroll is not None
    roll, play, read = asked.reroll, asked.play, st.dice
    return _ask(st, asked, out, f"{_name(st, g.turn)} played {roll.high}-{roll.low} ({play})? "
                f"The board fits it better than {read.high}-{read.low} ({v.play}), the dice "
                "read: press confirm if those were the dice, undo for other dice")


def _judge_opening(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    assert st.dice is not None
    tables = out.tables(obs)
    verdicts = [(c, judge(Position.start(c), st.dice, obs, st.config.judge, tables=tables))
                for c in Color]
    plays = [(c, v) for c, v in verdicts if v.outcome is Outcome.PLAY]
    if len(plays) == 1:
        mover = plays[0][0]
    else:
        # neither (or both) explains it: judge as the side whose reading is closer
        mover = max(verdicts, key=lambda cv: cv[1].score)[0]
    high, low = st.dice.high, st.dice.low
    verdict = dict(verdicts)[mover]
    if not plays:
        alts = [(c, doubt.with_reroll(v, Position.start(c), st.dice, obs, st.config.judge,
                                      False, st.sure_die, tables=tables))
                for c, v in verdicts if v.outcome is Outcome.ILLEGAL]
        alts = [(c, v) for c, v in alts if v.reroll is not None]
        if len(alts) == 1:
            mover, verdict = alts[0]
    if verdict.outcome is Outcome.PLAY:
        white, black = (high, low) if mover is Color.WHITE else (low, high)
        st = _record(st, OpeningRoll(white=white, black=black), out)
        st = replace(st, opening=False)
    return _apply_verdict(st, Position.start(mover), verdict, out)


def _apply_verdict(st: RefereeState, before: Position, v: Verdict, out: _Out, *,
                   flag: str = "", dice_seen: bool = True) -> RefereeState:
    assert st.dice is not None
    roll = st.dice
    mover = before.turn
    if v.outcome in (Outcome.PLAY, Outcome.PASS):
        if st.mode is Mode.ILLEGAL:
            st = _record(st, Corrected(player=mover), out)
            out.say.append(f"put right by {_name(st, mover)}")
        if v.outcome is Outcome.PLAY:
            assert v.play is not None
            play = recorded(before, roll, v.play)
            points = tuple(sorted({p for m in v.play.moves for p in (m.src, m.dst)}))
            last = to_white_points(points, mover)
        else:
            play, last = Play((), (), before), ()
        text = str(play)
        st = _record(st, Moved(player=mover, dice=roll, play=play, dice_seen=dice_seen,
                               flag=flag), out)
        why_text = f" ({flag})" if flag else ""
        out.say.append(f"{_name(st, mover)} {roll.high}-{roll.low}: "
                       f"{text or 'no legal move, the turn passes'}{why_text}")
        st = replace(st, verdict=None, last_points=last, dice=None)
        return _after_move(st, out)
    if v.outcome is Outcome.AMBIGUOUS:
        first = str(v.candidates[0])
        out.say.append(f"unsure between {' | '.join(str(c) for c in v.candidates[:3])}: "
                       "fix the lit points or press confirm for the first")
        return replace(st, mode=Mode.ASK, verdict=v, sound=Sound.ASK,
                       message=("which play?", first, "confirm = yes"))
    if v.outcome is Outcome.UNREADABLE:
        out.say.append(v.reasons[0])
        return replace(st, mode=Mode.ASK if st.mode is Mode.ASK else st.mode, verdict=v,
                       message=("check the board",), sound=Sound.ASK)
    # illegal for the dice read; when vision was unsure of them and the board fits another
    # throw, the likelier story is a misread: ask about the dice (the flag still stands)
    unsure = v.reroll is not None and st.roll_confidence < st.config.judge.sure_roll
    first_flag = (st.mode not in (Mode.ILLEGAL, Mode.ASK) or st.verdict is None
                  or st.verdict.seen != v.seen)
    if unsure and v.reroll is not None:
        alt = f"{v.reroll.high}-{v.reroll.low}"
        if first_flag:
            st = _record(st, IllegalFlagged(player=mover, seen=v.seen, reasons=v.reasons),
                         out)
            out.say.append(f"the board fits {alt}, not the {roll.high}-{roll.low} read "
                           f"({'; '.join(v.reasons[:-1])}; points "
                           f"{', '.join(map(str, v.points))}): press confirm if {alt} was "
                           "thrown")
        more = ("undo = other dice",) if v.offers else ()
        return replace(st, mode=Mode.ASK, verdict=v, sound=Sound.ASK,
                       message=(f"dice {alt}?", str(v.play) or "no move", "confirm = yes",
                                *more))
    if first_flag:
        st = _record(st, IllegalFlagged(player=mover, seen=v.seen, reasons=v.reasons), out)
        out.say.append(f"ILLEGAL ({_name(st, mover)} {roll.high}-{roll.low}): "
                       f"{'; '.join(v.reasons)} (lit: points {', '.join(map(str, v.points))})")
    return replace(st, mode=Mode.ILLEGAL, verdict=v, sound=Sound.ILLEGAL,
                   message=("ILLEGAL", *v.reasons[:2]))


# --- doubts settled by what happens next (decided by pibg.doubt, applied here) -------------


def _evidence(st: RefereeState) -> doubt.Evidence:
    """What the doubt policy is told of the turn in doubt."""
    return doubt.Evidence(st.match.game, st.config.judge, opening=st.opening, dice=st.dice,
                          sure_die=st.sure_die, glimpsed=st.glimpsed,
                          dice_reads=st.dice_reads, earlier_reads=st.earlier_reads,
                          lifted=st.lifted)


def _settle(st: RefereeState, obs: BoardObservation, out: _Out, *,
            then_first: Dice | None = None) -> RefereeState | None:
    """The board is not the known position and the turn that led to it was not judged: the
    turns that explain it (:func:`pibg.doubt.settle`) are recorded, the reading going on
    from where they lead. None when nothing is settled."""
    adopted = doubt.settle(_evidence(st), obs, out.tables(obs), then_first=then_first)
    return None if adopted is None else _adopt(st, adopted, obs, out)


def _won_unseen(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState | None:
    """The starting position is set up again while the side on roll could bear off its last
    checkers: the winning play nobody saw is recorded (:func:`pibg.doubt.won_unseen`) and
    the game ends; the board is then read as the next game's."""
    adopted = doubt.won_unseen(_evidence(st), obs, out.tables(obs))
    if adopted is None:
        return None
    out.say.append("the board is set up for the next game: the last play was not seen")
    st = _adopt(st, adopted, obs, out)
    return _on_stable(st, obs, out) if st.mode is Mode.GAME_OVER else st


def _adopt(st: RefereeState, a: doubt.Adoption, obs: BoardObservation, out: _Out
           ) -> RefereeState:
    """Record the turns of an explanation, then read ``obs`` again from where they lead
    (the next throw may lie on it) unless its dice are the last turn's, still down."""
    for i, turn in enumerate(a.turns):
        g = st.match.game
        assert g is not None
        roll, play = turn.roll, turn.play
        mover = play.result.turn
        if g.phase is Phase.OPENING:
            hi, lo = roll.high, roll.low
            white, black = (hi, lo) if mover is Color.WHITE else (lo, hi)
            st = _record(st, OpeningRoll(white=white, black=black), out)
        elif g.phase is Phase.ROLL:
            st = _record(st, Rolled(player=mover, dice=roll), out)
        elif g.dice is not None and (g.dice.high, g.dice.low) != (roll.high, roll.low):
            st = _record(st, Reread(player=mover, dice=roll), out)
        play = recorded(g.position.with_turn(mover), roll, play)
        text = str(play)
        st = _record(st, Moved(player=mover, dice=roll, play=play, dice_seen=turn.dice_seen,
                               flag=turn.flag), out)
        if i == len(a.turns) - 1 and not turn.dice_seen:
            st = replace(st, alternatives=a.alternatives)
        why_text = f" ({turn.flag})" if turn.flag else ""
        out.say.append(f"{_name(st, mover)} {roll.high}-{roll.low}: "
                       f"{text or 'no legal move, the turn passes'}{why_text}")
        points = tuple(sorted({p for m in play.moves for p in (m.src, m.dst)}))
        st = replace(st, last_points=to_white_points(points, mover))
        g = st.match.game
        assert g is not None
        if g.phase is Phase.OVER:
            break
    st = replace(st, mode=Mode.MOVING, verdict=None, resume=None, dice=None, glimpsed=(),
                 opening=False, read_before=(), sure_die=None, dice_at=())
    st = _after_move(st, out)
    if a.still_down or st.mode is not Mode.TO_ROLL:
        return st
    return _to_roll(st, obs, out)


def _went_on(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState | None:
    """A question was asked or an illegal play flagged, nobody answered, and the players went
    on: a new throw lies on the board (the dice of the turn in question are gone). By the
    rules the play stands once the opponent rolls: the turn is settled by the board
    (a misread die when a legal play of another throw explains it, the first of the plays
    asked about, or the illegal play condoned), marked for review, and the throw taken."""
    g = st.match.game
    roll = doubt.flat_roll(obs)
    if (g is None or (g.phase is not Phase.MOVE and not st.opening) or st.dice is None
            or not isinstance(roll, Dice) or _a_die_still_down(st, obs)):
        return None
    v = st.verdict
    passed = v is not None and v.play is not None and v.reroll is not None and not v.play.moves
    if _matches(st, obs, _before_move(st), out) and not passed:  # nothing moved: thrown again
        if st.opening:  # (an opening tie read as two numbers, say): a new opening roll
            out.say.append("the opening roll read was not played: a new opening roll")
            return _opening(replace(st, mode=Mode.OPENING, verdict=None, opening=False,
                                    dice=None), obs, out)
        return _reread(replace(st, mode=Mode.MOVING, verdict=None), roll, obs, out)
    if (st.mode is Mode.ILLEGAL and not st.opening
            and judge(g.position, st.dice, obs, st.config.judge,
                      tables=out.tables(obs)).outcome is Outcome.PLAY):
        # the board is a clear legal play of the throw after all (put right as the next
        # throw came, or the board flagged was misread): judged as such, the throw then taken
        return None
    sure = st.roll_confidence >= st.config.judge.sure_roll and not st.opening
    settled = _settle(st, obs, out, then_first=st.dice if sure else None)
    if settled is not None:
        return settled
    st = _settle_pending(st, out)
    if st.mode is Mode.TO_ROLL:
        return _to_roll(st, obs, out)
    return st if st.mode is not Mode.ILLEGAL and st.mode is not Mode.ASK else None


def _settle_pending(st: RefereeState, out: _Out) -> RefereeState:
    """The players went on (a new throw, or the next player's double) while a question was
    asked or an illegal play flagged: the turn is settled as it stands, marked for review
    (the throw the board fits, the first of the plays asked about, or the illegal play
    condoned). The state is returned unchanged when nothing can be settled."""
    g = st.match.game
    v = st.verdict
    if g is None or v is None or st.dice is None or st.mode not in (Mode.ASK, Mode.ILLEGAL):
        return st
    if v.reroll is not None and v.play is not None:
        return _accept_reroll(st, v.reroll, v.play, out, flag="nobody confirmed the dice: "
                              "the likeliest throw taken")
    if v.candidates and not st.opening:
        return _apply_verdict(replace(st, mode=Mode.MOVING), g.position,
                              Verdict(Outcome.PLAY, play=v.candidates[0]), out,
                              flag="unsure between " + " | ".join(map(str, v.candidates[:3])))
    if v.seen is not None and st.mode is Mode.ILLEGAL:
        return _condone(st, out, flag="not put right before the players went on: the play "
                        "stands")
    return st


def _stands(st: RefereeState, obs: BoardObservation, out: _Out, h: Hypothesis
            ) -> RefereeState:
    """A play made with dice nobody saw, one checker off a legal play, and the opponent has
    thrown on it: by the rules it stands. Recorded as played (an illegal play, marked), with
    the throw of the legal play it is nearest; the opponent's throw is taken."""
    g = st.match.game
    assert g is not None
    seen = h.board.swap_turn()  # the board as played, the mover still on roll
    turn = h.turns[0]
    mover = g.turn
    flag = (f"dice not seen; one checker off {turn.roll.high}-{turn.roll.low} {turn.play}: "
            "the play stands (the opponent threw on it)")
    st = _record(st, Rolled(player=mover, dice=turn.roll), out)
    st = _record(st, Moved(player=mover, dice=turn.roll, play=Play((), (), seen), illegal=True,
                           dice_seen=False, flag=flag), out)
    out.say.append(f"{_name(st, mover)} played a board one checker off {turn.play} with dice "
                   "not seen: it stands, marked for review")
    st = replace(st, mode=Mode.MOVING, verdict=None, resume=None, dice=None, glimpsed=(),
                 last_points=differing_points(g.position, seen))
    st = _after_move(st, out)
    return _to_roll(st, obs, out) if st.mode is Mode.TO_ROLL else st


def _go_on_from(st: RefereeState, obs: BoardObservation, out: _Out) -> RefereeState:
    """No legal turn explains the board. Shown on the lit points; once the players go on
    from it (a throw lies on it), it is taken as it stands, noted in the journal
    (:func:`pibg.doubt.as_it_stands`)."""
    g = st.match.game
    assert g is not None
    stands = doubt.as_it_stands(g.position, obs, st.unexplained)
    if stands.board is None:
        return replace(_show_resync(st, obs), unexplained=stands.key)
    board = stands.board
    turn = board.turn
    st = _record(st, SetUp(position=board), out)
    out.say.append(f"the players went on from a board no legal turn explains: taken as it "
                   f"stands ({board.position_id()}), {_name(st, turn)} to roll")
    st = replace(st, mode=Mode.TO_ROLL, dice=None, verdict=None, resume=None, opening=False,
                 message=(f"{_name(st, turn)} to roll",))
    return _to_roll(st, obs, out)


def _after_move(st: RefereeState, out: _Out) -> RefereeState:
    g = st.match.game
    assert g is not None
    if g.phase is Phase.OVER:
        return _game_over(st, out)
    return replace(st, mode=Mode.TO_ROLL, message=(f"{_name(st, g.turn)} to roll",))


def _game_over(st: RefereeState, out: _Out) -> RefereeState:
    g = st.match.game
    assert g is not None and g.result is not None
    r = g.result
    st = _record(st, GameEnded(winner=r.winner, points=r.points,
                               termination=r.termination), out)
    kind = {"gammon": "a gammon", "backgammon": "a BACKGAMMON", "drop": "by a drop",
            "resign": "by resignation"}.get(r.termination, "a single game")
    pts = "point" if r.points == 1 else "points"
    out.say.append(f"{_name(st, r.winner)} wins {kind}: {r.points} {pts}. "
                   f"{_score_text(st.match)}")
    sound = {"gammon": Sound.GAMMON, "backgammon": Sound.BACKGAMMON}.get(r.termination,
                                                                         Sound.GAME_WON)
    anim = {"gammon": Animation.GAMMON, "backgammon": Animation.BACKGAMMON}.get(
        r.termination, Animation.NONE)
    msg = (f"{_name(st, r.winner)} wins", f"{r.termination} {r.points} {pts}")
    if st.match.over:
        winner = st.match.winner
        assert winner is not None
        st = _record(st, MatchEnded(winner=winner, score=st.match.score), out)
        out.say.append(f"{_name(st, winner)} wins the match {st.match.score[0]}-"
                       f"{st.match.score[1]}")
        return replace(st, mode=Mode.MATCH_OVER, sound=Sound.MATCH_WON,
                       animation=Animation.MATCH, message=(*msg, "MATCH OVER"))
    if st.match.next_game_is_crawford():
        out.say.append("next game is the Crawford game: no doubling")
    return replace(st, mode=Mode.GAME_OVER, sound=sound, animation=anim,
                   message=(*msg, "set up next game"))


# --- buttons --------------------------------------------------------------------------------


def _press(st: RefereeState, p: Press, out: _Out) -> RefereeState:
    if p.button not in BUTTONS:
        out.say.append(f"unknown button {p.button!r}")
        return st
    try:
        if p.button == "confirm":
            return _confirm(st, p, out)
        if p.button == "undo":
            if (st.mode in (Mode.ASK, Mode.ILLEGAL) and st.verdict is not None
                    and st.verdict.offers):
                return _next_offer(st, out)
            return _undo(st, out)
        if p.button == "double":
            return _double(st, out)
        if p.button in _RESIGN:
            return _resign(st, _RESIGN[p.button], out)
        return _answer(st, p.button, out)
    except PibgError as exc:
        out.say.append(f"{p.button}: {exc}")
        return replace(st, message=(f"{p.button} refused:", *_wrap(str(exc))), sound=Sound.ASK)


def _wrap(text: str, width: int = 21) -> tuple[str, ...]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if len(cur) + len(w) + 1 > width and cur:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    if cur:
        lines.append(cur)
    return tuple(lines[:2])


def _confirm(st: RefereeState, p: Press, out: _Out) -> RefereeState:
    g = st.match.game
    if p.long:
        if g is None or st.last_obs is None:
            out.say.append("confirm (long): nothing to set up yet")
            return st
        turn = g.turn
        seen = seen_position(st.last_obs, turn)
        if seen is None:
            out.say.append("confirm (long): the board is not a valid position")
            return replace(st, message=("board not valid",), sound=Sound.ASK)
        st = _record(st, SetUp(position=seen.with_turn(turn)), out)
        out.say.append(f"position set up by hand: {seen.position_id()}, {turn.label} to roll")
        return replace(st, mode=Mode.TO_ROLL, dice=None, verdict=None, resume=None,
                       message=(f"{_name(st, turn)} to roll",))
    if st.mode is Mode.RESYNC and g is not None:
        return _board_as_known(st, out)
    if (st.mode in (Mode.ILLEGAL, Mode.ASK) and st.verdict is not None
            and st.verdict.reroll is not None and st.verdict.play is not None):
        return _accept_reroll(st, st.verdict.reroll, st.verdict.play, out)
    if st.mode is Mode.ILLEGAL and st.verdict is not None and st.verdict.seen is not None:
        return _condone(st, out)
    if st.mode is Mode.ASK and st.verdict is not None and st.verdict.candidates:
        g2 = st.match.game
        assert g2 is not None
        v = Verdict(Outcome.PLAY, play=st.verdict.candidates[0])
        return _apply_verdict(replace(st, mode=Mode.MOVING), g2.position, v, out)
    if st.mode is Mode.MOVING and st.last_obs is not None:
        return _judge(st, st.last_obs, out)
    return st


def _condone(st: RefereeState, out: _Out, *, flag: str = "") -> RefereeState:
    """The illegal play flagged stands (the opponent accepted it, or rolled on it)."""
    g = st.match.game
    assert g is not None and st.dice is not None
    assert st.verdict is not None and st.verdict.seen is not None
    roll = st.dice
    seen = st.verdict.seen
    mover = seen.turn if st.opening else g.turn
    if st.opening:
        hi, lo = roll.high, roll.low
        white, black = (hi, lo) if mover is Color.WHITE else (lo, hi)
        st = _record(st, OpeningRoll(white=white, black=black), out)
        st = replace(st, opening=False)
        g = st.match.game
        assert g is not None
    st = _record(st, Moved(player=mover, dice=roll, play=Play((), (), seen), illegal=True,
                           flag=flag), out)
    out.say.append(f"illegal play condoned by {_name(st, mover.other)}"
                   + (f" ({flag})" if flag else ""))
    st = replace(st, verdict=None, dice=None, last_points=differing_points(g.position, seen))
    return _after_move(st, out)


def _board_as_known(st: RefereeState, out: _Out) -> RefereeState:
    """Confirm while resyncing: the players say the board is the position shown (the camera
    misread it); go on from there, taking a throw that lies on it."""
    out.say.append("the board is as shown: going on")
    st = replace(st, mode=st.resume or Mode.TO_ROLL, resume=None, verdict=None)
    obs = st.last_obs
    if st.mode is Mode.TO_ROLL:
        roll = doubt.flat_roll(obs) if obs is not None else None
        if obs is not None and isinstance(roll, Dice):
            return _take_roll(st, roll, obs, out)
        g = st.match.game
        assert g is not None
        return replace(st, message=(f"{_name(st, g.turn)} to roll",))
    return replace(st, message=("go on",))


def _accept_reroll(st: RefereeState, roll: Dice, play: Play, out: _Out, *, flag: str = ""
                   ) -> RefereeState:
    """Confirmed: the dice were misread; ``play`` of ``roll`` is what was played."""
    g = st.match.game
    assert g is not None
    mover = play.result.turn
    out.say.append(f"dice set right: {roll.high}-{roll.low}")
    if st.opening:
        white, black = (roll.high, roll.low) if mover is Color.WHITE else (roll.low, roll.high)
        st = _record(st, OpeningRoll(white=white, black=black), out)
        before = Position.start(mover)
    elif g.phase is Phase.ROLL:  # the throw was never taken (a die read as cocked)
        st = _record(st, Rolled(player=mover, dice=roll), out)
        before = g.position
    else:
        st = _record(st, Reread(player=mover, dice=roll), out)
        before = g.position
    st = replace(st, mode=Mode.MOVING, dice=roll, opening=False, verdict=None, glimpsed=(),
                 resume=None)
    return _apply_verdict(st, before, Verdict(Outcome.PLAY if play.moves else Outcome.PASS,
                                              play=play), out, flag=flag, dice_seen=not flag)


def _undo(st: RefereeState, out: _Out) -> RefereeState:
    last = st.events[-1] if st.events else None
    if isinstance(last, Moved) and st.alternatives:
        return _other_dice(st, last, out)
    if (isinstance(last, Moved) and last.dice_seen and not last.illegal
            and not last.flag.startswith(_SET_BY_UNDO)):  # once round them: taken back
        others = _same_board_throws(st, last, out)
        if others:
            return _other_dice(replace(st, alternatives=others), last, out)
    if not any(isinstance(e, (Moved, Doubled, Took, Dropped, Beavered)) for e in st.events):
        out.say.append("undo: nothing to take back")
        return st
    ev = Undone()
    match = replay((*st.events, ev))
    out.events.append(ev)
    st = replace(st, events=(*st.events, ev), match=match, verdict=None, last_points=())
    st = _mode_from_match(st)
    g = match.game
    out.say.append("undone: the last turn is taken back")
    if g is not None and g.phase is Phase.MOVE and g.dice is not None:
        return replace(st, acted=None, message=("undone: move again",))
    return replace(st, acted=None, message=("undone",))


#: The flag of a turn recorded again with other dice by undo (:func:`_other_dice`).
_SET_BY_UNDO = "dice set by undo"


def _same_board_throws(st: RefereeState, last: Moved, out: _Out) -> tuple[Dice, ...]:
    """The throws other than the one read that make the board of ``last`` (the last turn,
    its dice read from the board) from where it began, while the board still shows it: undo
    there says the dice were misread (a turn played otherwise is read from the board as it
    is changed; a four-one bearing two checkers off the ace point read as four-two, golden
    match m008 through pibg.sim's tournament board). Throws keeping a die of the one read
    come first, the other die nearest in value first (one die misread); no double for an
    opening roll; none where the board shows something else or no other throw makes it."""
    want = last.play.result
    if st.last_obs is None or not _matches(st, st.last_obs, want, out):
        return ()
    back = replay((*st.events, Undone())).game
    if back is None or back.turn is not last.player:
        return ()
    before = back.position.with_turn(last.player)
    read = (last.dice.high, last.dice.low)
    thrown = next((e for e in reversed(effective_events(st.events)[:-1])
                   if isinstance(e, (Rolled, OpeningRoll))), None)
    found = [Dice(hi, lo) for hi in range(6, 0, -1) for lo in range(hi, 0, -1)
             if (hi, lo) != read and not (hi == lo and isinstance(thrown, OpeningRoll))
             and any(p.result == want for p in legal_plays(before, Dice(hi, lo)))]

    def misread(d: Dice) -> tuple[int, int]:
        """The read's higher die kept first, then its lower, then neither; within each,
        the other die nearest the one it replaces."""
        for i, (keep, rest) in enumerate(((read[0], read[1]), (read[1], read[0]))):
            if keep in (d.high, d.low):
                other = d.low if d.high == keep else d.high
                return i, abs(other - rest)
        return 2, 0

    return tuple(sorted(found, key=misread))


def _other_dice(st: RefereeState, last: Moved, out: _Out) -> RefereeState:
    """Undo on a turn whose dice were inferred, or misread (:func:`_same_board_throws`),
    when other throws make the same board: "not those dice". The turn is recorded again with
    the next of them (the board stands)."""
    roll, rest = st.alternatives[0], st.alternatives[1:]
    ev = Undone()
    out.events.append(ev)
    st = replace(st, events=(*st.events, ev), match=replay((*st.events, ev)))
    g = st.match.game
    assert g is not None
    mover = g.turn
    if g.phase is Phase.OPENING:
        white, black = (roll.high, roll.low) if mover is Color.WHITE else (roll.low, roll.high)
        st = _record(st, OpeningRoll(white=white, black=black), out)
    elif g.phase is Phase.ROLL:
        st = _record(st, Rolled(player=mover, dice=roll), out)
    else:
        st = _record(st, Reread(player=mover, dice=roll), out)
    g = st.match.game
    assert g is not None
    before = g.position
    moved = replace(last, dice=roll, flag=f"{_SET_BY_UNDO}: {roll.high}-{roll.low}, the "
                                          f"board unchanged")
    legal = next((p for p in legal_plays(before, roll) if p.result == last.result), None)
    if legal is not None:
        moved = replace(moved, play=recorded(before, roll, legal), written="")
    st = _record(st, moved, out)
    out.say.append(f"dice set right: {roll.high}-{roll.low} ({moved.notation})"
                   + ("; undo for other dice" if rest else ""))
    st = replace(st, alternatives=rest, verdict=None, last_points=())
    return _after_move(replace(st, mode=Mode.MOVING), out)


def _double(st: RefereeState, out: _Out) -> RefereeState:
    if st.mode in (Mode.ASK, Mode.ILLEGAL):  # the next player doubles: the turn is over
        st = _settle_pending(st, out)
    g = st.match.game
    if g is None or st.mode is not Mode.TO_ROLL:
        out.say.append("double: a double is offered before rolling, on one's own turn")
        return replace(st, message=("no double now",), sound=Sound.ASK)
    st = _record(st, Doubled(player=g.turn), out)
    out.say.append(f"{_name(st, g.turn)} doubles to {g.cube.value * 2}")
    return replace(st, mode=Mode.DOUBLED, message=(f"double to {g.cube.value * 2}",
                                                   "take or drop?"))


def _resign(st: RefereeState, multiplier: int, out: _Out) -> RefereeState:
    """The side to act concedes the game (1, 2 or 3 times the cube)."""
    g = st.match.game
    if g is None or g.phase in (Phase.OVER, Phase.OPENING):
        out.say.append("resign: no game in progress (a game starts with the opening roll)")
        return replace(st, message=("no game to resign",), sound=Sound.ASK)
    who = g.decider
    st = _record(st, Resigned(player=who, multiplier=multiplier), out)
    out.say.append(f"{_name(st, who)} resigns")
    return _game_over(replace(st, dice=None, verdict=None), out)


def _answer(st: RefereeState, button: str, out: _Out) -> RefereeState:
    g = st.match.game
    if g is None or st.mode is not Mode.DOUBLED:
        out.say.append(f"{button}: no double is offered")
        return replace(st, message=(f"no double to {button}",), sound=Sound.ASK)
    taker = g.turn.other
    ev = {"take": Took, "drop": Dropped, "beaver": Beavered}[button](player=taker)
    st = _record(st, ev, out)
    g2 = st.match.game
    assert g2 is not None
    if button == "drop":
        out.say.append(f"{_name(st, taker)} drops")
        return _game_over(st, out)
    verb = "takes" if button == "take" else "beavers"
    out.say.append(f"{_name(st, taker)} {verb}: cube {g2.cube.value}")
    return replace(st, mode=Mode.TO_ROLL, message=(f"cube {g2.cube.value}",
                                                   f"{_name(st, g.turn)} to roll"))


# --- effects --------------------------------------------------------------------------------


def _name(st: RefereeState, c: Color) -> str:
    return st.match.name(c)


def _score_text(m: MatchState) -> str:
    """The score as said: "score: erin 0 - 2 judy, 5-point match (Crawford game next)"."""
    s = m.settings
    kind = f", {s.length}-point match" if s.length else ", money game"
    return f"score: {s.white} {m.score[0]} - {m.score[1]} {s.black}{kind}"


def _score_line(m: MatchState) -> str:
    s = m.settings
    total = f"/{s.length}" if s.length else ""
    cr = " Crawford" if m.game is not None and m.game.crawford else ""
    return f"{s.white} {m.score[0]} - {m.score[1]} {s.black}{total}{cr}"


def _show_resync(st: RefereeState, obs: BoardObservation) -> RefereeState:
    g = st.match.game
    assert g is not None
    seen = seen_position(obs, g.turn)
    pts = differing_points(g.position, seen) if seen is not None else ()
    return replace(st, verdict=Verdict(Outcome.ILLEGAL, seen=seen, points=pts),
                   message=("restore lit points", "confirm: board right", "hold: take as new"))


def render(st: RefereeState) -> Effects:
    """The LEDs and display for a state (whole state: idempotent)."""
    lit: dict[int, RGB] = {}
    blink: set[int] = set()
    g = st.match.game
    for p in st.last_points:
        lit[point_led(p)] = BLUE
    v = st.verdict
    if v is not None and st.mode in (Mode.ILLEGAL, Mode.ASK, Mode.RESYNC):
        colour = {Mode.ILLEGAL: RED, Mode.ASK: AMBER, Mode.RESYNC: PURPLE}[st.mode]
        for p in v.points:
            lit[point_led(p)] = colour
            blink.add(point_led(p))
    if g is not None and st.mode not in (Mode.GAME_OVER, Mode.MATCH_OVER):
        lit[LED_STATUS] = WHITE_LIGHT if g.decider is Color.WHITE else RED
    if g is not None and g.result is not None:
        lit[LED_TRAY_WHITE if g.result.winner is Color.WHITE else LED_TRAY_BLACK] = GREEN
    lines = (_score_line(st.match)[:21], *st.message)
    return Effects.build(lit, lines, blink, st.sound, st.animation)
