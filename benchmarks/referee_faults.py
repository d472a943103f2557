"""The referee against a camera that errs: seeded random matches at a synthetic table, every
frame read perfectly and then, at a given rate, spoilt by one fault. Nobody presses a button
unless the match has one (a dropped double). Prints a table per fault kind and rate:

- matches followed to the end (every play recorded, the final score right);
- wrong plays recorded (a play whose board is not the one played; 0 is the target);
- turns committed without a question (the referee never entered "ask");
- plays whose dice were inferred, and plays flagged for review;
- the time of the steps that record a play (p99 and the worst; on a loaded machine the
  worst is noise: read the p99).

    python benchmarks/referee_faults.py [--matches 100] [--rates 0.01 0.03 0.1]
                                        [--kinds notflat pip missed ...]

Each scene is seen in six frames 0.3 s apart (the referee's one-second stability window
fuses them), each spoilt independently; with ``--persistent`` the rate is of scenes, and a
spoilt scene's six frames share its fault, as a camera misreads a still scene alike (the
harder case: the frames cannot outvote it). Faults:

notflat  a flat die read as cocked            pip      a die read one pip off (conf 0.6)
missed   a die not found                      phantom  a point read one checker off
hand     a hand read as a board (three points read wrong, conf 0.6)
drop     the frame is lost                    light    every region unsure (0.7 / 0.3)
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pibg.events import Event, Moved
from pibg.match import agreeing, effective_events
from pibg.match import replay as replay_match
from pibg.observation import BoardObservation, RegionRead
from pibg.position import Color, Position
from pibg.referee import Frame, Mode, Press, RefereeState, Tick, new_match, step
from pibg.script import ButtonPress, observe_exact, table_script
from pibg.selfplay import random_match

KINDS = ("notflat", "pip", "missed", "phantom", "hand", "drop", "light")


def _unsure(count: int, conf: float, other: int) -> RegionRead:
    return RegionRead.from_mapping({count: conf, other: 1 - conf})


def spoil(obs: BoardObservation, kind: str, rng: random.Random) -> BoardObservation | None:
    """``obs`` with one fault of ``kind`` (None: the frame is lost)."""
    dice = list(obs.dice)
    if kind == "drop":
        return None
    if kind in ("notflat", "pip", "missed") and dice:
        i = rng.randrange(len(dice))
        if kind == "notflat":
            dice[i] = replace(dice[i], flat=False)
        elif kind == "pip":
            v = dice[i].value
            dice[i] = replace(dice[i], value=v + 1 if v < 6 and (v == 1 or rng.random() < .5)
                              else v - 1, confidence=0.6)
        else:
            del dice[i]
        return replace(obs, dice=tuple(dice))
    points = list(obs.points)
    if kind == "phantom":
        i = rng.randrange(24)
        c = points[i].count
        wrong = c + (1 if c > 0 else -1 if c < 0 else rng.choice((1, -1)))
        if c and rng.random() < 0.5:
            wrong = c - (1 if c > 0 else -1)
        points[i] = _unsure(wrong, 0.7, c)
        return replace(obs, points=tuple(points))
    if kind == "hand":
        for i in rng.sample(range(24), 3):
            c = points[i].count
            points[i] = _unsure(c + rng.choice((1, -1, 2)), 0.6, c)
        return replace(obs, points=tuple(points))
    if kind == "light":
        out = []
        for r in points:
            c = r.count
            out.append(RegionRead.from_mapping({c: 0.7, c + 1: 0.15, c - 1: 0.15}))
        return replace(obs, points=tuple(out))
    return obs


@dataclass
class Run:
    followed: bool
    right: int
    plays: int
    wrong: int
    turns: int
    asked: int
    inferred: int
    flagged: int
    seconds: float
    commits: list[float]  # seconds of each step that recorded a play


def _thrown(obs: BoardObservation, dice: object, landed: dict[object, tuple[float, ...]],
            place: random.Random) -> BoardObservation:
    """Dice where a throw lands: a new place for each throw, the same while it lies (a
    perfect reading puts every die at one place, which hides a new throw of equal dice)."""
    if not obs.dice:
        landed.clear()
        return obs
    if dice not in landed:
        landed.clear()
        landed[dice] = (place.uniform(300, 1000), place.uniform(380, 580),
                        place.uniform(-60, 60))
    x, y, dx = landed[dice]
    return replace(obs, dice=tuple(replace(d, x=x + i * (80 + dx), y=y)
                                   for i, d in enumerate(obs.dice)))


def _plays(events: Sequence[Event]) -> list[tuple[Color, Position]]:
    return [(e.player, e.result) for e in effective_events(events) if isinstance(e, Moved)]


def run_match(seed: int, kind: str, rate: float, persistent: bool = False) -> Run:
    events = random_match(seed)
    settings = events[0].settings  # type: ignore[attr-defined]
    rng = random.Random(seed * 7919 + KINDS.index(kind))
    st: RefereeState = new_match(settings).state
    t = 0.0
    asked_turns: set[int] = set()
    commits: list[float] = []
    landed: dict[object, tuple[float, ...]] = {}
    place = random.Random(seed)
    t0 = time.perf_counter()
    for action in table_script(events):
        if isinstance(action, ButtonPress):
            t += 0.5
            st = step(st, Press(t, action.button, action.long)).state
            continue
        clean = _thrown(observe_exact(action), action.dice, landed, place)
        # persistent: a scene's frames share one fault (a camera misreads a still scene alike)
        scene = spoil(clean, kind, rng) if persistent and rng.random() < rate else clean
        for k in range(6):
            obs = scene if persistent else (
                spoil(clean, kind, rng) if rng.random() < rate else clean)
            if obs is not None:
                c0 = time.perf_counter()
                res = step(st, Frame(t + 0.3 * k, obs))
                if any(isinstance(e, Moved) for e in res.events):
                    commits.append(time.perf_counter() - c0)
                st = res.state
            if st.mode is Mode.ASK:
                asked_turns.add(len(_plays(st.events)))
        st = step(st, Tick(t + 2.6)).state
        t += 3.0
    want, got = _plays(events), _plays(st.events)
    right = agreeing(got, want)
    # a wrong play: recorded, but its board differs from the source's at the same turn
    wrong = sum(1 for a, b in zip(got, want, strict=False) if a != b)
    moves = [e for e in effective_events(st.events) if isinstance(e, Moved)]
    score_ok = st.match.score == replay_match(events).score
    return Run(right == len(want) and score_ok, right, len(want), wrong, len(got),
               len(asked_turns), sum(not e.dice_seen for e in moves),
               sum(bool(e.flag) or e.illegal for e in moves), time.perf_counter() - t0,
               commits)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--rates", type=float, nargs="+", default=[0.01, 0.03, 0.1])
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--persistent", action="store_true",
                    help="the rate is of scenes, and all frames of a spoilt scene share the "
                         "fault (a lost scene: no frame of it at all)")
    args = ap.parse_args()
    print("| fault | rate | matches followed | wrong plays | turns without a question | "
          "dice inferred | flagged | commit p99 / max ms | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in args.kinds:
        for rate in args.rates:
            runs = [run_match(1000 + i, kind, rate, args.persistent)
                    for i in range(args.matches)]
            turns = sum(r.turns for r in runs)
            asked = sum(r.asked for r in runs)
            commits = sorted(c for r in runs for c in r.commits)
            p99 = commits[int(0.99 * (len(commits) - 1))] * 1000 if commits else 0.0
            worst = commits[-1] * 1000 if commits else 0.0
            print(f"| {kind} | {rate:.0%} | {sum(r.followed for r in runs)} of {len(runs)} | "
                  f"{sum(r.wrong for r in runs)} | "
                  f"{100 * (1 - asked / max(turns, 1)):.1f} % of {turns} | "
                  f"{sum(r.inferred for r in runs)} | {sum(r.flagged for r in runs)} | "
                  f"{p99:.1f} / {worst:.0f} | {sum(r.seconds for r in runs):.0f} |", flush=True)


if __name__ == "__main__":
    main()
