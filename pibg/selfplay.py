"""Seeded random matches, as event lists: test and benchmark material for records and referee.

Pure (``random.Random`` with a seed). Players pick uniformly among legal plays, or prefer hits
or racing; they double, take, drop and beaver now and then, so generated matches contain every
cube action, gammons, backgammons, Crawford games, bar entries, bear-offs and passes.
"""

from __future__ import annotations

import random

from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    Event,
    GameStarted,
    MatchEnded,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Rolled,
    Took,
)
from pibg.match import MatchState, Phase, apply
from pibg.moves import Dice, Play
from pibg.position import Color
from pibg.record import recorded
from pibg.rules import legal_plays


def _pick(plays: list[Play], style: str, rng: random.Random) -> Play:
    if style == "hitter":
        hitting = [p for p in plays if any(p.hits)]
        if hitting:
            return rng.choice(hitting)
    if style == "racer":
        me = plays[0].result.turn
        return min(plays, key=lambda p: (p.result.pips(me), rng.random()))
    return rng.choice(plays)


def random_match(seed: int, settings: MatchSettings | None = None, *,
                 double_rate: float = 0.06, drop_rate: float = 0.35,
                 max_games: int = 30) -> list[Event]:
    """A whole match (or ``max_games`` money games) of seeded random play."""
    rng = random.Random(seed)
    s = settings or MatchSettings(length=rng.choice([1, 3, 5, 7]), white="alice", black="bob")
    styles = (rng.choice(["uniform", "hitter", "racer"]), rng.choice(["uniform", "hitter"]))
    events: list[Event] = []
    state = MatchState.new()

    def rec(ev: Event) -> None:
        nonlocal state
        state = apply(state, ev)
        events.append(ev)

    rec(MatchStarted(s))
    games = 0
    while not state.over and games < max_games:
        games += 1
        rec(GameStarted())
        while True:
            w, b = rng.randint(1, 6), rng.randint(1, 6)
            rec(OpeningRoll(white=w, black=b))
            if w != b:
                break
        while True:
            g = state.game
            assert g is not None
            if g.phase is Phase.OVER:
                break
            if g.phase is Phase.ROLL:
                me = g.turn
                if (not g.crawford and g.cube.may_double(me) and rng.random() < double_rate
                        and (not s.cube_limit or g.cube.value * 2 <= s.cube_limit)):
                    rec(Doubled(player=me))
                    r = rng.random()
                    if r < drop_rate:
                        rec(Dropped(player=me.other))
                        break
                    if s.money and s.beaver and r > 0.9:
                        rec(Beavered(player=me.other))
                    else:
                        rec(Took(player=me.other))
                d = Dice(rng.randint(1, 6), rng.randint(1, 6))
                rec(Rolled(player=me, dice=d))
            g = state.game
            assert g is not None and g.dice is not None
            plays = legal_plays(g.position, g.dice)
            mover = g.turn
            if plays:
                # random players can block each other for ever: after 150 plays both race home
                style = styles[int(mover is Color.BLACK)] if g.plays < 150 else "racer"
                p = _pick(plays, style, rng)
                rec(Moved(player=mover, dice=g.dice, play=recorded(g.position, g.dice, p)))
            else:
                rec(Moved(player=mover, dice=g.dice, play=Play((), (), g.position)))
    if state.over:
        winner = state.winner
        assert winner is not None
        rec(MatchEnded(winner=winner, score=state.score))
    return events
