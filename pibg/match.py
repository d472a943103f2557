"""Match state: games, cube, score and Crawford, as a fold over :mod:`pibg.events`.

Pure and immutable. ``apply(state, event)`` returns the next state or raises
:class:`~pibg.exc.MatchError` / :class:`~pibg.exc.CubeError` naming the rule broken;
``replay(events)`` folds a whole journal (honouring ``undo``). The gnubg Match ID codec is
``MatchState.match_id()`` / :func:`decode_match_id`.
"""

from __future__ import annotations

import base64
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from pibg.cube import CubeState, double_problem
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
    Noted,
    OpeningRoll,
    Reread,
    Resigned,
    Rolled,
    SetUp,
    Took,
    Undone,
)
from pibg.exc import CubeError, InvalidMatchIdError, MatchError
from pibg.moves import ALL_THROWS, Dice, Play
from pibg.position import Color, Position, Termination
from pibg.rules import legal_plays


class Phase(enum.Enum):
    OPENING = "opening"  # waiting for the opening roll (one die each)
    ROLL = "roll"  # the player on turn may double, then rolls
    DOUBLED = "doubled"  # a double is offered: take, drop or beaver
    MOVE = "move"  # dice are known: the player moves
    OVER = "over"


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: Color
    points: int
    termination: str  # single | gammon | backgammon | drop | resign
    cube: int
    crawford: bool


@dataclass(frozen=True, slots=True)
class GameState:
    """One game in progress. ``position.turn`` is the side on turn (the doubler while a double
    is offered)."""

    position: Position
    cube: CubeState = CubeState()
    phase: Phase = Phase.OPENING
    dice: Dice | None = None
    crawford: bool = False
    automatic_doubles: int = 0
    plays: int = 0
    cube_turned: bool = False
    result: GameResult | None = None

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def decider(self) -> Color:
        """Who acts next: the taker while a double is offered, else the side on turn."""
        return self.turn.other if self.phase is Phase.DOUBLED else self.turn


@dataclass(frozen=True, slots=True)
class MatchState:
    settings: MatchSettings = MatchSettings()
    score: tuple[int, int] = (0, 0)
    games: tuple[GameResult, ...] = ()
    game: GameState | None = None
    crawford_done: bool = False
    start: tuple[int, int] = (0, 0)  # the score the match began at (a record from mid-way)

    @classmethod
    def new(cls, settings: MatchSettings | None = None) -> MatchState:
        return cls(settings or MatchSettings())

    @property
    def over(self) -> bool:
        n = self.settings.length
        return bool(n) and max(self.score) >= n

    @property
    def winner(self) -> Color | None:
        if not self.over:
            return None
        return Color.WHITE if self.score[0] >= self.settings.length else Color.BLACK

    def next_game_is_crawford(self) -> bool:
        n = self.settings.length
        # a 1-point match has no Crawford game: nobody reaches match point before it ends
        return (n > 1 and self.settings.crawford and not self.crawford_done
                and max(self.score) == n - 1)

    @property
    def post_crawford(self) -> bool:
        return self.crawford_done and not (self.game and self.game.crawford)

    def name(self, color: Color) -> str:
        return self.settings.white if color is Color.WHITE else self.settings.black

    def match_id(self) -> str:
        return encode_match_id(self)


def _game(state: MatchState, what: str) -> GameState:
    if state.game is None:
        raise MatchError(f"{what}: no game in progress (set up the starting position first)")
    return state.game


def _expect(game: GameState, phase: Phase, what: str) -> None:
    if game.phase is not phase:
        raise MatchError(f"{what}: not allowed now (the game is at '{game.phase.value}', "
                         f"expected '{phase.value}')")


def _end_game(state: MatchState, game: GameState, winner: Color, multiplier: int,
              how: str) -> MatchState:
    points = game.cube.value * multiplier
    result = GameResult(winner, points, how, game.cube.value, game.crawford)
    score = list(state.score)
    score[winner] += points
    done = state.crawford_done or game.crawford
    return replace(state, score=(score[0], score[1]), games=(*state.games, result),
                   game=replace(game, phase=Phase.OVER, dice=None, result=result),
                   crawford_done=done)


def apply(state: MatchState, event: Event) -> MatchState:
    """The state after ``event``.

    :raises MatchError: the event does not fit the state (wrong phase or player, bad play).
    :raises CubeError: a cube action the rules forbid now.
    """
    s = state.settings
    if isinstance(event, MatchStarted):
        if state.games or state.game:
            raise MatchError("match_start: the match has already started")
        w, b = (int(n) for n in event.score)
        n = event.settings.length
        if min(w, b) < 0 or (n and max(w, b) >= n):
            raise MatchError(f"match_start: a match to {n} cannot begin at {w}-{b}")
        return replace(MatchState.new(event.settings), score=(w, b), start=(w, b))
    if isinstance(event, (IllegalFlagged, Corrected, MatchEnded, Noted, Amended)):
        if isinstance(event, MatchEnded) and (
            not state.over or tuple(event.score) != state.score
        ):
            raise MatchError(f"match_end {tuple(event.score)} does not match the score "
                             f"{state.score}")
        return state
    if isinstance(event, GameStarted):
        if state.over:
            raise MatchError("game_start: the match is over")
        if state.game is not None and state.game.phase is not Phase.OVER:
            raise MatchError("game_start: the current game is not over")
        return replace(state, game=GameState(event.position,
                                             crawford=state.next_game_is_crawford()))
    if isinstance(event, SetUp):
        game = _game(state, "setup")
        return replace(state, game=replace(game, position=event.position, phase=Phase.ROLL,
                                           dice=None))
    if isinstance(event, Undone):
        raise MatchError("undo: only replay() can take back a turn")
    game = _game(state, event.kind)
    if isinstance(event, GameEnded):
        _check_game_end(state, event)
        return state
    if game.phase is Phase.OVER:
        raise MatchError(f"{event.kind}: the game is over")

    if isinstance(event, OpeningRoll):
        _expect(game, Phase.OPENING, "opening_roll")
        w, b = event.white, event.black
        Dice(w, b)
        if w == b:
            if (s.money and s.automatic_doubles
                    and game.automatic_doubles < s.max_automatic_doubles):
                return replace(state, game=replace(
                    game, cube=game.cube.automatic_double(),
                    automatic_doubles=game.automatic_doubles + 1))
            return state
        first = Color.WHITE if w > b else Color.BLACK
        return replace(state, game=replace(game, position=game.position.with_turn(first),
                                           phase=Phase.MOVE, dice=Dice(w, b)))
    if isinstance(event, Rolled):
        _expect(game, Phase.ROLL, "roll")
        if event.player is not game.turn:
            raise MatchError(f"roll: it is {game.turn.label}'s turn, not "
                             f"{event.player.label}'s")
        return replace(state, game=replace(game, phase=Phase.MOVE, dice=event.dice))
    if isinstance(event, Reread):
        _expect(game, Phase.MOVE, "reread")
        if event.player is not game.turn:
            raise MatchError(f"reread: it is {game.turn.label}'s move, not "
                             f"{event.player.label}'s")
        return replace(state, game=replace(game, dice=event.dice))
    if isinstance(event, Moved):
        _expect(game, Phase.MOVE, "play")
        if event.player is not game.turn:
            raise MatchError(f"play: it is {game.turn.label}'s turn, not "
                             f"{event.player.label}'s")
        assert game.dice is not None
        if (event.dice.high, event.dice.low) != (game.dice.high, game.dice.low):
            raise MatchError(f"play: dice {event.dice} differ from the roll {game.dice}")
        result = event.result
        if not event.illegal:
            legal = legal_plays(game.position, game.dice)
            if legal and all(p.result != result for p in legal):
                raise MatchError(f"play {event.notation!r}: not a legal result for {game.dice} "
                                 f"in {game.position.position_id()}")
            if not legal and result != game.position:
                raise MatchError(f"play {event.notation!r}: no legal move exists for "
                                 f"{game.dice}")
        game = replace(game, position=result, plays=game.plays + 1)
        won = result.winner()
        if won is not None:
            term = result.termination()
            assert term is not None
            mult = int(term)
            if s.money and s.jacoby and not game.cube_turned:
                mult = 1
            return _end_game(state, game, won, mult, term.name.lower())
        return replace(state, game=replace(game, position=result.swap_turn(), phase=Phase.ROLL,
                                           dice=None))
    if isinstance(event, Doubled):
        player = event.player
        if game.phase is not Phase.ROLL:
            why = ("a double must be offered before rolling (rule 7)"
                   if game.phase is Phase.MOVE else f"not allowed at '{game.phase.value}'")
            raise CubeError(f"double by {player.label}: {why}")
        problem = double_problem(game.cube, player, on_roll=game.turn, rolled=False,
                                 crawford=game.crawford, limit=s.cube_limit)
        if problem:
            raise CubeError(f"double by {player.label}: {problem}")
        return replace(state, game=replace(game, phase=Phase.DOUBLED))
    if isinstance(event, (Took, Dropped, Beavered)):
        player = event.player
        _expect(game, Phase.DOUBLED, event.kind)
        if player is not game.turn.other:
            raise CubeError(f"{event.kind} by {player.label}: only the side doubled may answer")
        if isinstance(event, Dropped):
            return _end_game(state, game, game.turn, 1, "drop")
        if isinstance(event, Beavered):
            if not (s.money and s.beaver):
                raise CubeError("beaver: beavers are allowed only in money play with the "
                                "beaver option on (rule 9)")
            cube = game.cube.beavered(player)
        else:
            cube = game.cube.taken(player)
        return replace(state, game=replace(game, cube=cube, phase=Phase.ROLL, cube_turned=True))
    if isinstance(event, Resigned):
        player = event.player
        if event.multiplier not in (1, 2, 3):
            raise MatchError(f"resign: multiplier must be 1, 2 or 3, got {event.multiplier}")
        return _end_game(state, game, player.other, event.multiplier, "resign")
    raise MatchError(f"unknown event {event!r}")


def _check_game_end(state: MatchState, event: GameEnded) -> None:
    last = state.games[-1] if state.games else None
    over = state.game is not None and state.game.phase is Phase.OVER
    if (not over or last is None or last.winner is not event.winner
            or last.points != event.points):
        said = "no game ended" if last is None else f"{last.winner.label} {last.points}"
        raise MatchError(f"game_end {event.winner.label} {event.points}: the moves say {said}")


def effective_events(events: Iterable[Event]) -> list[Event]:
    """The events that count once every ``undo`` has taken back its turn, and every
    :class:`~pibg.events.Amended` has set the dice of its turn.

    An undo removes the last ``play`` (or cube action) and everything recorded after it, but
    never an amendment (a reviewer's, of a game already over). An amended turn is played with
    the dice set (after a ``reread`` to them where they differ from the roll recorded): its
    ``play`` is their legal play to the same board, it is no longer in doubt (``flag``
    empty, ``dice_seen``) and ``reviewed`` says what the table had recorded. An amendment
    whose turn is no longer there, or no longer ends on that board (an undo took it back), is
    left out.
    """
    out: list[Event] = []
    for ev in events:
        if isinstance(ev, Undone):
            for i in range(len(out) - 1, -1, -1):
                if isinstance(out[i], (Moved, Doubled, Took, Dropped, Beavered)):
                    kept = [e for e in out[i:] if isinstance(e, Amended)]
                    del out[i:]
                    out.extend(kept)
                    break
            continue
        out.append(ev)
    if any(isinstance(ev, Amended) for ev in out):
        return _amended(out)
    return out


# --- turns in doubt, set after the game -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayedTurn:
    """A play that counts, where it stands: game ``game``'s play number ``move`` (both 1-based;
    every play of either side counts, as the page's move list numbers them), at ``index`` in
    the effective events it was found in, from board ``before`` (the mover on roll).
    ``opening``: the opening roll was played on it (never a double); ``ended``: its game is
    over by the end of those events."""

    game: int
    move: int
    index: int
    before: Position
    moved: Moved
    opening: bool = False
    ended: bool = False

    @property
    def amendable(self) -> bool:
        """Whether a reviewer may set its dice: a turn committed in doubt, one whose dice were
        not seen, or one a reviewer set before (set again)."""
        m = self.moved
        return bool(m.flag) or not m.dice_seen or bool(m.reviewed)

    def describe(self) -> str:
        """``game 2, move 7: black 3-1: 8/5 6/5`` (the dice high first)."""
        m = self.moved
        what = "(illegal play, condoned)" if m.illegal else (m.notation or "(no move)")
        return (f"game {self.game}, move {self.move}: {m.player.label} "
                f"{_throw(m.dice)}: {what}")


def _throw(dice: Dice) -> str:
    return f"{dice.high}-{dice.low}"


def played_turns(events: Sequence[Event]) -> list[PlayedTurn]:
    """Every play of ``events`` (already effective: see :func:`effective_events`) numbered
    game by game, with the board before it. Reads the boards the events record and checks
    no rules (the events were checked when they were applied)."""
    out: list[PlayedTurn] = []
    ended: set[int] = set()
    game = move = 0
    board: Position | None = None
    opening = False
    for i, ev in enumerate(events):
        if isinstance(ev, GameStarted):
            game, move, board, opening = game + 1, 0, ev.position, False
        elif isinstance(ev, SetUp):
            board = ev.position
        elif isinstance(ev, OpeningRoll):
            opening = ev.white != ev.black
        elif isinstance(ev, Rolled):
            opening = False
        elif isinstance(ev, Moved) and board is not None:
            move += 1
            out.append(PlayedTurn(game, move, i, board.with_turn(ev.player), ev, opening))
            board, opening = ev.result, False
            if ev.result.winner() is not None:
                ended.add(game)
        elif isinstance(ev, (Dropped, Resigned)):
            ended.add(game)
    return [replace(t, ended=True) if t.game in ended else t for t in out]


def play_to(before: Position, dice: Dice, after: Position) -> Play | None:
    """The legal play of ``dice`` from ``before`` (the mover on roll) that leads to ``after``:
    no move (a play of no steps) where ``dice`` cannot be played and ``after`` is ``before``;
    ``None`` where no legal play leads there."""
    goal = after.with_turn(before.turn)
    legal = legal_plays(before, dice)
    if not legal:
        return Play((), (), before) if goal == before else None
    return next((p for p in legal if p.result == goal), None)


def throws_to(before: Position, after: Position, *, opening: bool = False
              ) -> tuple[Dice, ...]:
    """Every throw (high die first) whose legal play leads from ``before`` (the mover on
    roll) to ``after``; an opening roll is never a double.

    >>> from pibg.rules import resolve
    >>> start = Position.start()
    >>> [str(d) for d in throws_to(start, resolve(start, (3, 1), "8/5 6/5").result)]
    ['11', '31']
    """
    return _throws_to(before, after.with_turn(before.turn), opening)


@lru_cache(maxsize=1024)
def _throws_to(before: Position, after: Position, opening: bool) -> tuple[Dice, ...]:
    # the live page asks for every turn in doubt at each update; boards are immutable
    return tuple(d for d in ALL_THROWS if not (opening and d.is_double)
                 and play_to(before, d, after) is not None)


def check_amendment(events: Iterable[Event], amend: Amended) -> PlayedTurn:
    """The turn ``amend`` sets the dice of, once the events so far allow it: its game has
    ended, the turn is in doubt (:attr:`PlayedTurn.amendable`), and a legal play of the new
    dice leads from the board before it to the board recorded after it.

    :raises MatchError: which of these does not hold, and what to do instead.
    """
    evs = effective_events(events)
    games = sum(isinstance(ev, GameStarted) for ev in evs)
    g, m, dice = amend.game, amend.move, amend.dice
    listing = "`pibg amend JOURNAL` lists the turns in doubt"
    if g > games:
        raise MatchError(f"there is no game {g}: the match has {games} game(s) so far "
                         f"({listing})")
    turns = [t for t in played_turns(evs) if t.game == g]
    if not turns:
        raise MatchError(f"game {g} has no plays: there is no turn to set ({listing})")
    if not turns[0].ended:
        raise MatchError(f"game {g} has not ended: a turn's dice are set once its game is "
                         f"over")
    if m > len(turns):
        raise MatchError(f"game {g} has {len(turns)} plays, not {m}: number them from 1, both "
                         f"sides' plays in order, as the move list does ({listing})")
    turn = turns[m - 1]
    if not turn.amendable:
        raise MatchError(f"{turn.describe()} was seen plainly: only a turn in doubt (flagged, "
                         f"or its dice not seen) can have its dice set ({listing})")
    throws = throws_to(turn.before, turn.moved.result, opening=turn.opening)
    if not throws:
        raise MatchError(f"no throw's legal play makes the board recorded after "
                         f"{turn.describe()}: its dice cannot be set, and it stands as recorded")
    pick = ", ".join(_throw(d) for d in throws)
    if turn.opening and dice.is_double:
        raise MatchError(f"{turn.describe()} is the opening roll, never a double: set one of "
                         f"{pick}")
    if play_to(turn.before, dice, turn.moved.result) is None:
        raise MatchError(f"no legal play of {_throw(dice)} makes the board recorded after "
                         f"{turn.describe()}: set one of {pick}")
    return turn


def turns_in_doubt(events: Iterable[Event]) -> list[tuple[PlayedTurn, tuple[Dice, ...]]]:
    """The turns of the games that have ended whose dice a reviewer may set (see
    :func:`check_amendment`), each with the throws that make the board recorded after it."""
    return [(t, throws_to(t.before, t.moved.result, opening=t.opening))
            for t in played_turns(effective_events(events)) if t.ended and t.amendable]


#: what comes before a reviewer's note in :attr:`Moved.reviewed`
NOTE = "; note: "
DICE_NOT_SEEN = "dice not seen"


def amended_turn(turn: PlayedTurn, amend: Amended) -> Moved:
    """The play of ``turn`` with the dice ``amend`` sets (see :func:`effective_events`)."""
    from pibg.record import recorded  # pibg.record imports this module

    m = turn.moved
    play = play_to(turn.before, amend.dice, m.result)
    assert play is not None, "check_amendment first"
    doubt = [x for x in ("" if m.dice_seen or DICE_NOT_SEEN in m.flag else DICE_NOT_SEEN,
                         f"in doubt: {m.flag}" if m.flag else "") if x]
    # set again (a record read back): what the table recorded stays, the earlier note goes
    was = m.reviewed.split(NOTE)[0] if m.reviewed else (
        f"recorded at the table as {_throw(m.dice)}: {m.notation or '(no move)'}"
        + (f" ({'; '.join(doubt)})" if doubt else ""))
    note = " ".join(amend.note.split())
    reviewed = f"{was}{NOTE}{note}" if note else was
    return replace(m, dice=amend.dice, play=recorded(turn.before, amend.dice, play),
                   illegal=False, dice_seen=True, flag="", reviewed=reviewed, written="")


def amendment_text(turn: PlayedTurn, amend: Amended) -> str:
    """What ``amend`` changes, in a line: ``game 2, move 7: black 1-1 (8/7 7/6 6/5(2)) is
    now 3-1 (8/5 6/5), set after the game``."""
    m = turn.moved
    play = play_to(turn.before, amend.dice, m.result)
    new = "" if play is None else str(play)
    return (f"game {turn.game}, move {turn.move}: {m.player.label} {_throw(m.dice)} "
            f"({m.notation or 'no move'}) is now {_throw(amend.dice)} ({new or 'no move'}), set "
            f"after the game")


def _amended(evs: list[Event]) -> list[Event]:
    """``evs`` without their amendments, each amended turn played with its new dice."""
    plain = [ev for ev in evs if not isinstance(ev, Amended)]
    turns = {(t.game, t.move): t for t in played_turns(plain)}
    new: dict[int, Moved] = {}
    for ev in evs:
        if not isinstance(ev, Amended):
            continue
        t = turns.get((ev.game, ev.move))
        if (t is None or not t.amendable or (t.opening and ev.dice.is_double)
                or play_to(t.before, ev.dice, t.moved.result) is None):
            continue
        new[t.index] = amended_turn(t, ev)
    out: list[Event] = []
    for i, ev in enumerate(plain):
        moved = new.get(i)
        if moved is not None and isinstance(ev, Moved):
            if (moved.dice.high, moved.dice.low) != (ev.dice.high, ev.dice.low):
                out.append(Reread(ev.player, moved.dice))
            ev = moved
        out.append(ev)
    return out


def plays(events: Iterable[Event]) -> list[tuple[Color, Dice, Position]]:
    """The plays that count (undo honoured): player, dice (high first) and the board after."""
    return [(e.player, Dice(e.dice.high, e.dice.low), e.result)
            for e in effective_events(events) if isinstance(e, Moved)]


def agreeing(got: Sequence[object], want: Sequence[object]) -> int:
    """How many of ``got`` agree with ``want`` before the first difference."""
    n = 0
    for a, b in zip(got, want, strict=False):
        if a != b:
            break
        n += 1
    return n


def replay(events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """Fold events (honouring undo) into the match state."""
    st = state or MatchState.new()
    for ev in effective_events(events):
        st = apply(st, ev)
    return st


# --- gnubg Match ID ---------------------------------------------------------------------------
# 66 bits, least significant first: cube log2 (4), cube owner (2; 3 = centred), player on roll
# (1), Crawford (1), game state (3), player to decide (1), doubled (1), resignation (2), dice
# (3+3), match length (15), score of player 0 (15), score of player 1 (15), Jacoby rule (1).
# White = player 0.

_FIELDS = (("cube", 4), ("owner", 2), ("move", 1), ("crawford", 1), ("state", 3), ("turn", 1),
           ("doubled", 1), ("resign", 2), ("die0", 3), ("die1", 3), ("length", 15),
           ("score0", 15), ("score1", 15), ("jacoby", 1))


@dataclass(frozen=True, slots=True)
class MatchIdFields:
    cube: int = 1
    owner: Color | None = None
    move: Color = Color.WHITE
    crawford: bool = False
    state: int = 0  # 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped
    turn: Color = Color.WHITE
    doubled: bool = False
    resign: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False


def _pack(f: MatchIdFields) -> str:
    values = {
        "cube": f.cube.bit_length() - 1, "owner": 3 if f.owner is None else int(f.owner),
        "move": int(f.move), "crawford": int(f.crawford), "state": f.state,
        "turn": int(f.turn), "doubled": int(f.doubled), "resign": f.resign,
        "die0": f.dice[0], "die1": f.dice[1], "length": f.length,
        "score0": f.score[0], "score1": f.score[1],
        "jacoby": int(f.jacoby),
    }
    bits = 0
    shift = 0
    for name, width in _FIELDS:
        bits |= (values[name] & ((1 << width) - 1)) << shift
        shift += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchIdFields:
    """Decode a gnubg Match ID (12 characters).

    :raises InvalidMatchIdError: not a Match ID.
    """
    text = match_id.strip()
    try:
        if len(text) != 12:
            raise ValueError
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise InvalidMatchIdError(f"bad Match ID {match_id!r}: expected 12 base64 characters "
                                  f"like 'cAkAAAAAAAAA'") from None
    bits = int.from_bytes(raw, "little")
    v: dict[str, int] = {}
    for name, width in _FIELDS:
        v[name] = bits & ((1 << width) - 1)
        bits >>= width
    if v["owner"] == 2 or v["state"] > 4 or v["die0"] > 6 or v["die1"] > 6:
        raise InvalidMatchIdError(f"bad Match ID {match_id!r}: fields out of range")
    return MatchIdFields(
        cube=1 << v["cube"], owner=None if v["owner"] == 3 else Color(v["owner"]),
        move=Color(v["move"]), crawford=bool(v["crawford"]), state=v["state"],
        turn=Color(v["turn"]), doubled=bool(v["doubled"]), resign=v["resign"],
        dice=(v["die0"], v["die1"]), length=v["length"], score=(v["score0"], v["score1"]),
        jacoby=bool(v["jacoby"]),
    )


def encode_match_id(state: MatchState) -> str:
    game = state.game
    if game is None:
        return _pack(MatchIdFields(length=state.settings.length, score=state.score,
                                   jacoby=state.settings.jacoby))
    if game.phase is Phase.OVER:
        gs = 4 if game.result and game.result.termination == "drop" else (
            3 if game.result and game.result.termination == "resign" else 2)
    else:
        gs = 1
    dice = (game.dice.a, game.dice.b) if game.dice and game.phase is Phase.MOVE else (0, 0)
    return _pack(MatchIdFields(
        cube=game.cube.value, owner=game.cube.owner, move=game.turn,
        crawford=game.crawford, state=gs, turn=game.decider,
        doubled=game.phase is Phase.DOUBLED, dice=dice, length=state.settings.length,
        score=state.score, jacoby=state.settings.jacoby,
    ))


def encode_fields(fields: MatchIdFields) -> str:
    return _pack(fields)


__all__ = [
    "GameResult",
    "GameState",
    "MatchIdFields",
    "MatchSettings",
    "MatchState",
    "Phase",
    "PlayedTurn",
    "Termination",
    "amended_turn",
    "amendment_text",
    "apply",
    "check_amendment",
    "decode_match_id",
    "effective_events",
    "encode_fields",
    "encode_match_id",
    "play_to",
    "played_turns",
    "replay",
    "throws_to",
    "turns_in_doubt",
]
