"""The web page's view of a referee state: one JSON-ready dict, built purely.

:func:`snapshot` reads a :class:`~pibg.referee.RefereeState` (and the LEDs/display it asked
for) and returns what the page shows: the board as signed counts seen from White, bar, off,
dice, cube, pip counts, whose turn, score and Crawford state, the move list in gnubg notation,
the illegal-move flag with its reasons, and the display lines. The board is the referee's
*position* (what it believes), not the camera's reading.
"""

from __future__ import annotations

from typing import Any

from pibg.effects import Effects
from pibg.events import (
    Beavered,
    Corrected,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    IllegalFlagged,
    MatchEnded,
    Moved,
    OpeningRoll,
    Resigned,
    Rolled,
    SetUp,
    Took,
)
from pibg.match import Phase, effective_events, played_turns, throws_to
from pibg.position import Color, Position
from pibg.referee import Mode, RefereeState

Snapshot = dict[str, Any]


def _colour(c: Color | None) -> str | None:
    return None if c is None else c.label


def board_dict(pos: Position) -> dict[str, Any]:
    """The position as the page draws it: signed counts from White, bar and off per colour."""
    return {
        "points": list(pos.signed()),
        "bar": {"white": pos.bar(Color.WHITE), "black": pos.bar(Color.BLACK)},
        "off": {"white": pos.off(Color.WHITE), "black": pos.off(Color.BLACK)},
        "position_id": pos.position_id(),
    }


def move_list(events: tuple[Event, ...] | list[Event]) -> list[dict[str, Any]]:
    """The moves and cube actions of the match (undone turns removed), game by game.

    Each entry: ``game`` (1-based), ``player``, ``kind`` (``play``, ``double``, ``take``,
    ``drop``, ``beaver``, ``resign``, ``illegal``, ``setup``, ``game_end``) and ``text``; a play
    also has ``move`` (its number in the game, 1-based, both sides' plays counted: what
    ``pibg amend`` and ``/api/amend`` take), ``dice``, ``illegal`` (a condoned illegal play),
    ``dice_seen`` (false where the dice were inferred from the board), ``flag`` (why the turn
    is marked for review), ``reviewed`` (what the table recorded, where a reviewer set the
    dice after the game) and ``throws``: for a turn in doubt of a game that has ended, the
    throws whose legal play makes the same board (high die first), else empty.
    """
    out: list[dict[str, Any]] = []
    game = 0
    evs = effective_events(events)
    turns = {t.index: t for t in played_turns(evs)}
    for i, ev in enumerate(evs):
        if isinstance(ev, GameStarted):
            game += 1
            continue
        entry: dict[str, Any] | None = None
        if isinstance(ev, Moved):
            text = ev.notation or "(no move)"
            if ev.illegal:
                text = "(illegal play, condoned)"
            turn = turns.get(i)
            throws = (throws_to(turn.before, ev.result, opening=turn.opening)
                      if turn is not None and turn.ended and turn.amendable else ())
            entry = {"kind": "play", "player": ev.player.label, "dice": [ev.dice.a, ev.dice.b],
                     "text": text, "illegal": ev.illegal, "dice_seen": ev.dice_seen,
                     "flag": ev.flag, "move": turn.move if turn is not None else 0,
                     "reviewed": ev.reviewed, "throws": [[d.high, d.low] for d in throws]}
        elif isinstance(ev, Doubled):
            entry = {"kind": "double", "player": ev.player.label, "text": "doubles"}
        elif isinstance(ev, Took):
            entry = {"kind": "take", "player": ev.player.label, "text": "takes"}
        elif isinstance(ev, Dropped):
            entry = {"kind": "drop", "player": ev.player.label, "text": "drops"}
        elif isinstance(ev, Beavered):
            entry = {"kind": "beaver", "player": ev.player.label, "text": "beavers"}
        elif isinstance(ev, Resigned):
            entry = {"kind": "resign", "player": ev.player.label,
                     "text": f"resigns ({ev.multiplier})"}
        elif isinstance(ev, IllegalFlagged):
            entry = {"kind": "illegal", "player": ev.player.label,
                     "text": "ILLEGAL: " + "; ".join(ev.reasons)}
        elif isinstance(ev, Corrected):
            entry = {"kind": "corrected", "player": ev.player.label, "text": "corrected"}
        elif isinstance(ev, SetUp):
            entry = {"kind": "setup", "player": ev.position.turn.label,
                     "text": f"position set up ({ev.position.position_id()})"}
        elif isinstance(ev, GameEnded):
            entry = {"kind": "game_end", "player": ev.winner.label,
                     "text": f"wins {ev.points} ({ev.termination})"}
        elif isinstance(ev, MatchEnded):
            entry = {"kind": "match_end", "player": ev.winner.label,
                     "text": f"wins the match {ev.score[0]}-{ev.score[1]}"}
        elif isinstance(ev, (OpeningRoll, Rolled)):
            continue  # the dice are shown with the play
        if entry is not None:
            entry["game"] = max(game, 1)
            out.append(entry)
    return out


def snapshot(state: RefereeState, effects: Effects | None = None) -> Snapshot:
    """Everything the page shows about ``state`` (JSON-ready)."""
    m = state.match
    s = m.settings
    g = m.game
    pos = g.position if g is not None else Position.start()
    dice = state.dice if state.dice is not None else (g.dice if g is not None else None)
    verdict = state.verdict
    flag: dict[str, Any] | None = None
    if verdict is not None and state.mode in (Mode.ILLEGAL, Mode.ASK, Mode.RESYNC):
        flag = {
            "kind": state.mode.value,
            "reasons": list(verdict.reasons),
            "points": list(verdict.points),
            "candidates": [str(c) for c in verdict.candidates[:3]],
            "seen": None if verdict.seen is None else board_dict(verdict.seen),
        }
    cube: dict[str, Any] = {"value": 1, "owner": None, "offered": False}
    if g is not None:
        cube = {"value": g.cube.value, "owner": _colour(g.cube.owner),
                "offered": g.phase is Phase.DOUBLED}
    playing = g is not None and g.phase is not Phase.OVER
    return {
        "mode": state.mode.value,
        "message": list(state.message),
        "display": list(effects.display) if effects is not None else [],
        "players": {"white": s.white, "black": s.black},
        "board": board_dict(pos),
        "in_game": playing,
        "turn": _colour(pos.turn) if playing and state.mode is not Mode.OPENING else None,
        "decider": _colour(g.decider) if playing and g is not None else None,
        "dice": None if dice is None else [dice.a, dice.b],
        "cube": cube,
        "pips": {"white": pos.pips(Color.WHITE), "black": pos.pips(Color.BLACK)},
        "score": {"white": m.score[0], "black": m.score[1], "length": s.length,
                  "money": s.money},
        "crawford": {"game": bool(g is not None and g.crawford and playing),
                     "post": m.post_crawford, "next": m.next_game_is_crawford() and not playing},
        "game_number": len(m.games) + (1 if playing else 0),
        "games": [{"winner": r.winner.label, "points": r.points,
                   "termination": r.termination, "cube": r.cube, "crawford": r.crawford}
                  for r in m.games],
        "match_over": m.over,
        "winner": _colour(m.winner),
        "moves": move_list(state.events),
        "flag": flag,
        "last_points": list(state.last_points),
    }
