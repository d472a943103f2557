"""What the camera would see while a recorded match is played at a real table.

Pure. :func:`table_script` turns match events into the physical scenes a referee sees (the
start position, dice down, checkers moved and dice lifted, the cube turned and pushed across,
a hand over the board) and the button presses that have no picture (a dropped double).
Optional mishaps are planted on purpose: an illegal move put right afterwards, a checker
bumped off its point and put back, a cocked die rolled again. Tests, ``pibg demo`` and the
synthetic camera use it; :func:`observe_exact` reads a scene perfectly, for referee tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    Event,
    GameStarted,
    MatchSettings,
    Moved,
    OpeningRoll,
    Resigned,
    Rolled,
    Took,
)
from pibg.match import MatchState, apply, effective_events
from pibg.moves import Dice
from pibg.observation import BoardObservation, CubeRead, DieRead
from pibg.position import Color, Position
from pibg.referee import (
    Input,
    Mode,
    Press,
    RefereeConfig,
    RefereeState,
    Step,
    new_match,
)
from pibg.rules import explain_result, legal_plays


@dataclass(frozen=True, slots=True)
class Scene:
    """One settled view of the table."""

    kind: str  # start | roll | moved | cube | hand | illegal | bump | cocked
    points: tuple[int, ...]  # signed, from White
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    dice: tuple[int, int] | None = None
    cocked: bool = False
    cube_value: int = 1
    cube_owner: str = "center"
    hand: bool = False
    note: str = ""
    roll: Dice | None = None  # the throw being played (moved, illegal scenes)
    mover: Color | None = None  # who plays it (who throws, in a roll scene)

    @classmethod
    def of(cls, kind: str, pos: Position, **kw: object) -> Scene:
        return cls(kind, pos.signed(), (pos.bar(Color.WHITE), pos.bar(Color.BLACK)),
                   (pos.off(Color.WHITE), pos.off(Color.BLACK)), **kw)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class ButtonPress:
    button: str
    long: bool = False


Action = Scene | ButtonPress


@dataclass(frozen=True, slots=True)
class Mishaps:
    """Which mishaps to plant, and how often (per turn), deterministic per seed."""

    illegal: float = 0.0
    bump: float = 0.0
    hand: float = 0.0
    cocked: float = 0.0
    seed: int = 0


def _cube(state: MatchState) -> tuple[int, str]:
    g = state.game
    if g is None:
        return 1, "center"
    owner = "center" if g.cube.owner is None else g.cube.owner.label
    return g.cube.value, owner


def illegal_variant(pos: Position, dice: Dice, rng: random.Random) -> Position | None:
    """A position a careless player might leave: one checker one pip off a legal play's."""
    plays = legal_plays(pos, dice)
    if not plays:
        return None
    for _ in range(20):
        play = rng.choice(plays)
        if not play.moves:
            continue
        mover = pos.turn
        board = list(play.result.board(mover))
        opp = play.result.board(mover.other)
        last = play.moves[-1]
        if last.dst == 0:
            continue
        i = last.dst - 1
        for j in (i - 1, i + 1):
            if 0 <= j < 24 and opp[23 - j] == 0 and board[i] > 0:
                b2 = list(board)
                b2[i] -= 1
                b2[j] += 1
                try:
                    cand = Position.from_boards(b2, opp, mover)
                except ValueError:
                    continue
                if explain_result(pos, dice, cand)[0]:
                    return cand
    return None


def _bumped(pos: Position, rng: random.Random) -> Position | None:
    signed = list(pos.signed())
    spots = [i for i, n in enumerate(signed) if abs(n) >= 2]
    rng.shuffle(spots)
    for i in spots:
        for j in (i - 1, i + 1):
            if 0 <= j < 24 and (signed[j] == 0 or (signed[j] > 0) == (signed[i] > 0)):
                s2 = list(signed)
                step = 1 if signed[i] > 0 else -1
                s2[i] -= step
                s2[j] += step
                return Position.from_signed(s2, (pos.bar(Color.WHITE), pos.bar(Color.BLACK)),
                                            turn=pos.turn)
    return None


def table_script(events: Iterable[Event], mishaps: Mishaps | None = None) -> list[Action]:
    """The scenes and presses of a recorded match, in table order."""
    mis = mishaps or Mishaps()
    rng = random.Random(mis.seed)
    out: list[Action] = []
    state = MatchState.new()
    pending_double: Doubled | None = None
    for ev in effective_events(events):
        before = state
        state = apply(state, ev)
        g0, g = before.game, state.game
        if isinstance(ev, GameStarted):
            assert g is not None
            out.append(Scene.of("start", g.position, cube_value=1, cube_owner="center"))
        elif isinstance(ev, OpeningRoll):
            if ev.white == ev.black:
                out.append(Scene.of("roll", Position.start(), dice=(ev.white, ev.black)))
                out.append(Scene.of("start", Position.start(), note="dice lifted after a tie"))
            else:
                out.append(_roll_scene(before, Position.start(), (ev.white, ev.black), mis,
                                       rng, out))
        elif isinstance(ev, Rolled):
            assert g0 is not None
            if mis.bump and rng.random() < mis.bump:
                bumped = _bumped(g0.position, rng)
                if bumped is not None:
                    cv, co = _cube(before)
                    out.append(Scene.of("bump", bumped, cube_value=cv, cube_owner=co,
                                        note="a checker knocked off its point"))
            out.append(_roll_scene(before, g0.position, (ev.dice.a, ev.dice.b), mis, rng, out,
                                   ev.player))
        elif isinstance(ev, Moved):
            assert g0 is not None and g0.dice is not None
            cv, co = _cube(before)
            pos_before = g0.position
            if mis.hand and rng.random() < mis.hand:
                out.append(Scene.of("hand", pos_before, dice=(ev.dice.a, ev.dice.b), hand=True,
                                    cube_value=cv, cube_owner=co))
            if mis.illegal and rng.random() < mis.illegal:
                bad = illegal_variant(pos_before, g0.dice, rng)
                if bad is not None:
                    out.append(Scene.of("illegal", bad, cube_value=cv, cube_owner=co,
                                        note="an illegal move, then put right",
                                        roll=g0.dice, mover=ev.player))
            out.append(Scene.of("moved", ev.result, cube_value=cv, cube_owner=co, roll=ev.dice,
                                mover=ev.player))
        elif isinstance(ev, Doubled):
            pending_double = ev
        elif isinstance(ev, Took) and pending_double is not None:
            assert g is not None
            cv, co = _cube(state)
            out.append(Scene.of("cube", g.position, cube_value=cv, cube_owner=co))
            pending_double = None
        elif isinstance(ev, Resigned):
            out.append(ButtonPress({1: "resign", 2: "resign_gammon",
                                    3: "resign_backgammon"}[ev.multiplier]))
        elif isinstance(ev, (Dropped, Beavered)) and pending_double is not None:
            out.append(ButtonPress("double"))
            out.append(ButtonPress("drop" if isinstance(ev, Dropped) else "beaver"))
            pending_double = None
    return out


def _roll_scene(state: MatchState, pos: Position, d: tuple[int, int], mis: Mishaps,
                rng: random.Random, out: list[Action], mover: Color | None = None) -> Scene:
    cv, co = _cube(state)
    if mis.cocked and rng.random() < mis.cocked:
        out.append(Scene.of("cocked", pos, dice=d, cocked=True, cube_value=cv, cube_owner=co))
        out.append(Scene.of("roll", pos, cube_value=cv, cube_owner=co, note="picked up"))
    return Scene.of("roll", pos, dice=d, cube_value=cv, cube_owner=co, mover=mover)


def observe_exact(scene: Scene) -> BoardObservation:
    """A perfect reading of a scene (what an ideal camera would report)."""
    if scene.hand:
        return BoardObservation.unreadable("a hand is over the board")
    dice: tuple[DieRead, ...] = ()
    if scene.dice is not None:
        dice = (DieRead(scene.dice[0], 700.0, 480.0, True),
                DieRead(scene.dice[1], 780.0, 480.0, not scene.cocked))
    owner = scene.cube_owner
    # the cube's value as in the renders' labels: 1 while centred (its face then shows 64)
    cube = CubeRead(scene.cube_value,
                    owner if owner in ("white", "black") else "center")  # type: ignore[arg-type]
    obs = BoardObservation.exact(scene.points, scene.bar, scene.off, dice, cube)
    return obs


def drive(actions: Iterable[Action], settings: MatchSettings,
          observe: Callable[[Scene], BoardObservation] = observe_exact,
          config: RefereeConfig | None = None, start_t: float = 0.0,
          on_step: Callable[[Step], None] | None = None) -> RefereeState:
    """Play ``actions`` to a new referee, nothing recorded: each scene is held for the
    stability window, through the :class:`~pibg.driver.Driver` every command feeds its
    source through. ``on_step`` sees the first step, every press's and every other step
    that records or says something."""
    from pibg.driver import Driver, PureReferee

    cfg = config or RefereeConfig()
    first = new_match(settings, cfg)
    if on_step:
        on_step(first)
    ref = PureReferee(first)

    def sink(inp: Input, res: Step, _image: object) -> None:
        if on_step and (isinstance(inp, Press) or res.events or res.say):
            on_step(res)

    Driver(ref, observe, stable_seconds=cfg.stable_seconds, sinks=[sink],
           start_t=start_t).run(actions)
    return ref.state


def attentive(state: RefereeState, scene: Scene) -> list[ButtonPress]:
    """What players who watch the display press after ``scene`` (they know the truth).

    Only the answers a player can give by looking: "yes" when the referee asks whether the
    dice showed what they did and the board is that play ("dice 6-3?", "played 6-3?"),
    after "undo" past the throws offered before the one thrown, or which of two plays was
    made; "the board is right" when it asks for the position it knows and the board already
    is that position; "undo" when the display shows this turn's play recorded with dice
    that were not thrown. Nothing else: a misread that is flagged
    illegal stays flagged (condoning it would record the misreading).
    """
    g = state.match.game
    if g is None:
        return []
    truth = (scene.points, scene.bar)

    def shows(pos: Position) -> bool:
        return (pos.signed(), (pos.bar(Color.WHITE), pos.bar(Color.BLACK))) == truth

    if scene.roll is not None and scene.mover is not None and state.mode not in (
            Mode.GAME_OVER, Mode.MATCH_OVER):  # a game's last throw: the score stands
        events = effective_events(state.events)
        starts = [i for i, e in enumerate(events) if isinstance(e, GameStarted)]
        this_game = events[starts[-1]:] if starts else events  # not the last game's end
        played = [e for e in this_game if isinstance(e, (Moved, Rolled))]
        last = played[-1] if played else None
        if (isinstance(last, Moved) and last.player is scene.mover and not last.illegal
                and last.play.moves
                and (last.dice.high, last.dice.low) != (scene.roll.high, scene.roll.low)
                and state.mode is not Mode.RESYNC and shows(last.result)):
            return [ButtonPress("undo")]  # the play on the board, recorded with other dice

    v = state.verdict
    if state.mode in (Mode.ASK, Mode.ILLEGAL) and v is not None:
        if v.reroll is not None and v.play is not None and scene.roll is not None:
            thrown = scene.roll
            if ((v.reroll.high, v.reroll.low) == (thrown.high, thrown.low)
                    and shows(v.play.result)):
                return [ButtonPress("confirm")]
            offered = [(r.high, r.low) for r, _ in v.offers]
            if shows(v.play.result) and (thrown.high, thrown.low) in offered:
                # "undo = other dice" until the throw they saw comes up
                n = offered.index((thrown.high, thrown.low)) + 1
                return [*[ButtonPress("undo")] * n, ButtonPress("confirm")]
        elif state.mode is Mode.ASK and v.candidates and shows(v.candidates[0].result):
            return [ButtonPress("confirm")]
    if state.mode is Mode.RESYNC and not scene.hand and shows(g.position):
        return [ButtonPress("confirm")]
    return []


def scenes_from_labels(truth: list[dict[str, Any]]) -> list[Scene]:
    """Labelled frames (``renders/game/truth.json``: each frame's kind, position, dice and
    cube) as :class:`Scene` objects, so that :func:`attentive` players can answer the referee
    at a recorded table; a moved or hand frame plays the throw of the roll frame before it."""
    out: list[Scene] = []
    throw: Dice | None = None
    roller: Color | None = None
    for f in truth:
        bar = f["bar"] or {"white": 0, "black": 0}
        off = f["off"] or {"white": 0, "black": 0}
        dice = f["dice"]
        values = (int(dice["values"][0]), int(dice["values"][1])) if dice else None
        sc = Scene(f["kind"], tuple(f["points"]), (bar["white"], bar["black"]),
                   (off["white"], off["black"]), values, bool(dice and dice["cocked"]),
                   f["cube"]["value"], f["cube"]["owner"], hand=f["kind"] == "hand")
        if f["kind"] == "roll" and dice:
            throw = Dice(*values) if values and min(values) >= 1 else None
            roller = {"white": Color.WHITE, "black": Color.BLACK}.get(dice["roller"])
            sc = replace(sc, mover=roller)
        if f["kind"] in ("moved", "hand"):
            sc = replace(sc, roll=throw, mover=roller)
        out.append(sc)
    return out
