"""A match as the record formats see it: games, and the actions in each.

:func:`match_record` folds journal events (honouring undo) into a :class:`MatchRecord`, which
the two codecs write: :mod:`pibg.matfile` (Jellyfish ``.mat``) and :mod:`pibg.sgf` (gnubg SGF).
Both read back into events with the helpers here (:func:`apply_steps`,
:func:`resolve_any_order`, :func:`read_play`, :func:`decode_text`), and both write through
:func:`write_atomic`. A play's steps are listed once, as a record lists them
(:func:`recorded`), and every reader takes them from its event.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pibg.events import (
    Beavered,
    Doubled,
    Dropped,
    Event,
    GameEnded,
    GameStarted,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Resigned,
    SetUp,
    Took,
)
from pibg.exc import PibgError, RecordError, RecordWriteError
from pibg.match import GameResult, GameState, MatchState, Phase, apply, effective_events
from pibg.moves import Dice, Move, Play, format_moves, parse_moves
from pibg.position import OFF, Color, Position
from pibg.refit import (
    Budget,
    Fitted,
    Turn,
    closest_play,
    closest_roll,
    distance,
    fit_turns,
    moved,
    plays_of,
)
from pibg.rules import legal_plays, resolve

#: The mode of a new record file: the owner writes, everyone reads (as ``open()`` would
#: make it under the usual umask 022).
FILE_MODE = 0o644


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a player did: a move (``dice``, single ``steps`` with ``hits``), a ``roll``
    with no move recorded (``dice`` only: the player resigned before moving, or the move was
    never written), or a cube action (``double`` with the new ``value``; ``take``, ``drop``,
    ``beaver``), or ``resign`` (``value`` = 1, 2 or 3 times the cube). ``before`` is the
    position before it, the actor on roll (cube actions: the doubler on roll).

    ``setup``: the board was taken as it stands (``after``, its side on roll, the same side as
    ``before``'s): a board the referee adopted that no legal play leads to. The ``.sgf`` sets
    it up; a ``.mat`` cannot, and goes on from ``before`` (see :func:`mat_view`)."""

    kind: str
    player: Color
    before: Position
    dice: tuple[int, int] = (0, 0)
    steps: tuple[Move, ...] = ()
    hits: tuple[bool, ...] = ()
    value: int = 0
    after: Position | None = None
    #: what the record says about the action beyond the move (dice not seen, a doubt)
    comment: str = ""
    #: a move's dice were read at the table (else inferred from the boards)
    seen: bool = True


@dataclass(slots=True)
class GameRecord:
    number: int
    score: tuple[int, int]
    crawford: bool
    start: Position
    actions: list[Action] = field(default_factory=list)
    result: GameResult | None = None


@dataclass(slots=True)
class MatchRecord:
    settings: MatchSettings
    games: list[GameRecord]
    final: MatchState
    #: what the file formats cannot say (a resync, a set-up start, a condoned illegal play...)
    warnings: list[str] = field(default_factory=list)


def apply_steps(pos: Position, steps: Sequence[tuple[int, int]], dice: Dice | None = None
                ) -> tuple[Position, list[bool]] | None:
    """Play single steps (mover's side) in order; ``None`` if one cannot be played there.

    Without ``dice`` only the board is checked (a checker to move, no made point to land
    on). With ``dice`` each step must also use a die still unused, and the order must be
    playable: the bar first, bearing off only with every checker home and, with a die larger
    than the point, none on a higher point.
    """
    me = list(pos.mover)
    opp = list(pos.opponent)
    left = list(dice.steps) if dice is not None else []
    hits = []
    for src, dst in steps:
        s = src - 1
        if not 0 <= s <= 24 or me[s] == 0 or dst >= src:
            return None
        if dice is not None:
            dist = src - dst
            if me[24] and s != 24:
                return None
            if dist in left:
                left.remove(dist)
            elif dst == OFF and any(x > dist for x in left):
                left.remove(min(x for x in left if x > dist))
                if any(me[i] for i in range(s + 1, 6)):
                    return None
            else:
                return None
            if dst == OFF and any(me[i] for i in range(6, 25)):
                return None
        me[s] -= 1
        hit = False
        if dst != OFF:
            t = dst - 1
            if opp[23 - t] >= 2:
                return None
            if opp[23 - t] == 1:
                opp[23 - t] = 0
                opp[24] += 1
                hit = True
            me[t] += 1
        hits.append(hit)
    result = Position.from_boards(me, opp, pos.turn)
    return result, hits


def listed(before: Position, dice: Dice, steps: Sequence[tuple[int, int]], after: Position
           ) -> Play | None:
    """The play of ``dice`` from ``before`` to ``after`` with its steps as a record lists
    them: ``steps`` as they are where each is one die and they can be played in that order
    (as ``.mat`` files list them), else as the rules engine plays the throw, high die first;
    ``None`` where neither leads there."""
    d = Dice(dice.high, dice.low)
    if steps:
        done = apply_steps(before, steps, d)
        if done is not None and done[0] == after:
            return Play(tuple(Move(s, t) for s, t in steps), tuple(done[1]), done[0])
    legal = legal_plays(before, d)
    for play in legal:
        if play.result == after:
            return play
    if not legal and after == before:
        return Play((), (), before)
    return None


def read_play(before: Position, dice: Dice, text: str, after: Position, *,
              illegal: bool = False) -> Play | None:
    """The play that ``text``, in gnubg notation, writes from ``before`` to ``after`` (as
    :func:`listed` lists it; text that does not parse, as the rules engine plays it). An
    ``illegal`` play keeps the steps as written, each a hop of the text (which may span
    several dice), where they lead there, and else has none. ``None`` where no legal play
    leads there (for an ``illegal`` one: where the steps written do not).

    Reading a record (:mod:`pibg.matfile`, :mod:`pibg.sgf`) or a journal
    (:mod:`pibg.journal`) turns a play's text into its steps here, once."""
    try:
        segments = parse_moves(text)
    except PibgError:
        segments = ()
    if not illegal:
        return listed(before, dice, segments, after)
    if not segments:
        return Play((), (), after)
    done = apply_steps(before, segments)
    if done is None or done[0] != after:
        return None
    return Play(tuple(Move(s, t) for s, t in segments), tuple(done[1]), done[0])


def recorded(before: Position, dice: Dice, play: Play) -> Play:
    """``play``, a legal play of ``dice`` from ``before``, with its steps as a record lists
    them: as its notation lists them (:func:`listed`). The notation is all a journal keeps
    of the steps, so a play is recorded this way: the journal reads back the very play the
    table recorded, and the files written from either list the same steps."""
    return read_play(before, dice, str(play), play.result) or play


def resolve_any_order(before: Position, dice: Dice | tuple[int, int], text: str) -> Play:
    """:func:`pibg.rules.resolve`, but also accepting the steps of a legal play written in an
    order that cannot be played (some programs sort them); the first error is raised."""
    try:
        return resolve(before, dice, text)
    except PibgError as first:
        try:
            segments = parse_moves(text)
        except PibgError:
            raise first from None
        if len(segments) < 2:
            raise
        for perm in itertools.permutations(segments):
            try:
                return resolve(before, dice, " ".join(f"{a}/{b}" for a, b in perm))
            except PibgError:
                continue
        raise


def match_record(events: Iterable[Event]) -> MatchRecord:
    """Fold events (honouring undo) into games and actions, ready for a writer.

    :raises RecordError: the events do not form a match.
    """
    evs = effective_events(events)
    if not evs or not isinstance(evs[0], MatchStarted):
        raise RecordError("a match record starts with a match_start event")
    state = MatchState.new(evs[0].settings)
    games: list[GameRecord] = []
    warnings: list[str] = []
    s = state.settings
    if s.length > 1 and not s.crawford:
        warnings.append("the match is played without the Crawford rule: SGF says so (no "
                        "RU[Crawford]), a .mat cannot, and gnubg assumes it")
    if s.money and s.jacoby:
        warnings.append("Jacoby rule on: SGF says so (RU[Jacoby]), a .mat cannot; set gnubg's "
                        "'set jacoby on' before importing it")
    for i, ev in enumerate(evs):
        before = state.game
        _warn_unwritable(ev, i, len(games), warnings)
        try:
            if isinstance(ev, GameEnded):
                continue
            state = apply(state, ev)
        except PibgError as exc:
            raise RecordError(f"event {i + 1} ({ev.kind}): {exc}") from exc
        game = state.game
        if (isinstance(ev, OpeningRoll) and before is not None and game is not None
                and game.cube.value != before.cube.value):
            warnings.append(f"event {i + 1} (game {len(games)}): an automatic double on a tied "
                            f"opening roll; the files cannot say so (the cube value is lost)")
        if isinstance(ev, GameStarted):
            assert game is not None
            games.append(GameRecord(len(games) + 1, state.score, game.crawford, game.position))
            continue
        if not games or before is None or game is None:
            continue
        rec = games[-1]
        if isinstance(ev, SetUp):
            if before.phase is not Phase.OVER:
                _adopt(rec, before, ev.position, None, f"event {i + 1} (game {len(games)})",
                       warnings)
        elif isinstance(ev, Moved):
            player = before.turn
            after = ev.result
            dice = (ev.dice.high, ev.dice.low)
            if ev.illegal and not ev.notation and after == before.position:
                # a move never recorded: the files say the roll alone, as they were read
                rec.actions.append(Action("roll", player, before.position, dice))
                continue
            # an illegal play is written as the steps it was written with where the dice
            # play them so, else as a legal play to its board where one leads there
            play = listed(before.position, ev.dice, [(m.src, m.dst) for m in ev.play.moves],
                          after) if ev.illegal else ev.play
            if play is None:  # an illegal play that stood
                _adopt(rec, before, after.swap_turn(), ev, f"event {i + 1} (game {len(games)})",
                       warnings)
            else:
                rec.actions.append(Action("move", player, before.position, dice, play.moves,
                                          play.hits, after=after, comment=move_comment(ev),
                                          seen=ev.dice_seen))
        elif isinstance(ev, Doubled):
            rec.actions.append(Action("double", before.turn, before.position,
                                      value=before.cube.value * 2))
        elif isinstance(ev, (Took, Dropped, Beavered)):
            rec.actions.append(Action(ev.kind, before.turn.other, before.position,
                                      value=game.cube.value))
        elif isinstance(ev, Resigned):
            if before.phase is Phase.MOVE and before.dice is not None:
                # rolled, then resigned before moving
                rec.actions.append(Action("roll", before.turn, before.position,
                                          (before.dice.high, before.dice.low)))
            rec.actions.append(Action("resign", ev.player, before.position,
                                      value=ev.multiplier))
        if game.result is not None and rec.result is None:
            rec.result = game.result
    return MatchRecord(state.settings, games, state, warnings)


def move_comment(ev: Moved) -> str:
    """What a move's record says beyond the move: ``dice not seen: inferred from the board``
    where the camera never read the roll, ``in doubt: ...`` with the referee's flag, and
    ``dice set after the game by a reviewer: 3-1; recorded at the table as ...`` where a
    reviewer set them (:class:`~pibg.events.Amended`)."""
    parts = []
    if not ev.dice_seen:
        parts.append(DICE_NOT_SEEN)
    if ev.flag:
        parts.append(f"{IN_DOUBT}{ev.flag}")
    if ev.reviewed:
        parts.append(f"{REVIEWED}{ev.dice.high}-{ev.dice.low}; {ev.reviewed}")
    return "\n".join(parts)


DICE_NOT_SEEN = "dice not seen: inferred from the board"
IN_DOUBT = "in doubt: "
REVIEWED = "dice set after the game by a reviewer: "


def _warn_unwritable(ev: Event, index: int, games: int, warnings: list[str]) -> None:
    where = f"event {index + 1} (game {max(games, 1)})"
    if isinstance(ev, GameStarted) and ev.set_up:
        warnings.append(f"{where}: game {games + 1} starts from a set-up position; .mat and "
                        f"SGF files start every game from the opening position")
    elif isinstance(ev, Beavered):
        warnings.append(f"{where}: a beaver is written as 'Beavers => N' / B[beaver], which "
                        f"gnubg 1.07 does not read (it sees a redouble, or nothing)")


# --- boards taken as they stand ---------------------------------------------------------------

#: how many turns before an adopted board may be fitted again to lead to it
REFIT_TURNS = 4

REFITTED = "recorded at the table as "
NOT_SEEN = "turn not seen at the table: inferred from the board the players went on from"
NEAREST = "no legal play leads to the board the players went on from"
TAKEN = "board taken as it stands"


def _adopt(rec: GameRecord, known: GameState, goal: Position, played: Moved | None,
           where: str, warnings: list[str]) -> None:
    """Record a board the referee adopted, as legal plays wherever they can lead to it.

    ``goal`` is the adopted board with its side next on roll: a resync (``played`` is
    ``None``; ``known`` may hold a roll the board overtook), or the board an illegal play
    left (``played``, the mover's turn). The plays recorded a few turns back, and the turn
    that led to the board, are fitted to it (:func:`pibg.refit.fit_turns`): legal plays with
    the rolls as read (any roll where none was read), changing as few recorded plays as
    possible; each changed play keeps the table's version in its comment. Where nothing
    legal leads there, the turn is written as the legal play of its roll nearest the board,
    and a ``setup`` action takes the board as it stands.
    """
    adopted = goal.position_id()
    opening = not any(a.kind in ("move", "roll") for a in rec.actions)
    if played is not None:
        extra = [(Turn(played.player, played.dice if played.dice_seen else None,
                       opening=opening), move_comment(played))]
        what = (f"{played.player.label}'s illegal play (to {played.result.position_id()}) "
                f"stood")
    else:
        what = f"the board was resynced to {adopted}, {goal.turn.label} to roll"
        if known.phase is Phase.OPENING:
            rec.actions.append(Action("setup", goal.turn, known.position.with_turn(goal.turn),
                                      after=goal, comment=f"{TAKEN} ({adopted})"))
            warnings.append(f"{where}: {what} before the opening roll: the .sgf sets it up; "
                            f"a .mat starts from the opening position and goes on from there "
                            f"(its first roll is read as the opening roll)")
            return
        extra = []
        if goal.turn is not known.turn:  # the side on roll moved, unseen
            pending = known.dice if known.phase is Phase.MOVE else None
            extra = [(Turn(known.turn, pending, opening=opening), NOT_SEEN)]
            if pending is not None:
                extra.append((Turn(known.turn, None, opening=opening), NOT_SEEN))
    variants: list[tuple[Turn, str] | None] = [*(extra[:1] if played is not None else extra)]
    tail = _refittable(rec.actions)
    budget = Budget()
    for k in range(min(REFIT_TURNS, len(tail)) + 1):
        first = tail[-k] if k else len(rec.actions)
        start = rec.actions[first].before if k else known.position
        turns = [Turn(a.player, Dice.of(a.dice) if a.seen else None,
                      moved(a.before, a.after, a.player) if a.after is not None else None,
                      opening=not any(b.kind in ("move", "roll") for b in rec.actions[:j]))
                 for j, a in enumerate(rec.actions) if j >= first and a.kind == "move"]
        for variant in variants or [None]:
            fit = fit_turns(start, turns + ([variant[0]] if variant else []), goal, budget)
            if fit is None:
                continue
            _rewrite(rec, first, start, fit[:len(turns)], adopted)
            if variant is not None:
                f = fit[-1]
                note = variant[1]
                if played is not None and f.play.result != played.result:
                    note = "\n".join(x for x in (note, f"{REFITTED}an illegal play (to "
                                                  f"{played.result.position_id()}); fitted "
                                                  f"to the board the players went on from "
                                                  f"({adopted})") if x)
                before = start
                for g in fit[:-1]:
                    before = g.play.result.swap_turn()
                _append_move(rec, f.dice, f.play, before,
                             _with_dice_note(note, variant[0].dice is None),
                             seen=variant[0].dice is not None)
            changed = sum(f.changed for f in fit[:len(turns)])
            warnings.append(f"{where}: {what}; written as legal plays that lead there"
                            + (f" ({changed} play(s) recorded at the table changed, the "
                               f"table's version in the .sgf comments)" if changed else ""))
            return
    # nothing legal leads there: the nearest legal play, then the board as it stands
    pos = known.position
    if played is not None:
        play = closest_play(pos, played.dice, played.result)
        _append_move(rec, (played.dice.high, played.dice.low), play, pos,
                     "\n".join(x for x in (move_comment(played), f"{NEAREST}: the play seen, "
                                            f"to {played.result.position_id()}, stood") if x),
                     seen=played.dice_seen)
        pos = play.result.swap_turn()
        if play.result.winner() is not None:
            warnings.append(f"{where}: {what} and ended the game; the files write the legal "
                            f"play nearest it, which ends it too, and the result")
            return
    elif extra:
        turn = extra[0][0]
        if turn.dice is not None:
            dice, play = turn.dice, closest_play(pos, turn.dice, goal.swap_turn())
        else:
            dice, play = closest_roll(pos, goal.swap_turn(), turn.opening)
        _append_move(rec, (dice.high, dice.low), play, pos,
                     _with_dice_note(f"{NOT_SEEN}; {NEAREST}", turn.dice is None),
                     seen=turn.dice is not None)
        pos = play.result.swap_turn()
    if pos != goal:
        rec.actions.append(Action("setup", goal.turn, pos, after=goal,
                                  comment=f"{TAKEN} ({adopted}): {what}"))
    warnings.append(f"{where}: {what}; no legal play leads there: the .sgf sets the board up, "
                    f"the .mat goes on from the legal play nearest it (its later moves are "
                    f"fitted to that board)")


def _with_dice_note(note: str, inferred: bool) -> str:
    """``note``, after a line saying the dice were inferred where they were (once)."""
    if not inferred or DICE_NOT_SEEN in note.splitlines():
        return note
    return "\n".join(x for x in (DICE_NOT_SEEN, note) if x)


def _refittable(actions: Sequence[Action]) -> list[int]:
    """Indices of the moves at the end of a game's actions that may be fitted again (back to
    the last board taken as it stands or roll with no move), oldest first."""
    out: list[int] = []
    for j in range(len(actions) - 1, -1, -1):
        a = actions[j]
        if a.kind in ("setup", "roll", "resign"):
            break
        if a.kind == "move":
            out.append(j)
    return out[::-1]


def _rewrite(rec: GameRecord, first: int, start: Position, fitted: Sequence[Fitted],
             adopted: str) -> None:
    """Replace the moves from ``actions[first]`` on by ``fitted`` (cube actions between them
    keep their place); a changed play keeps the table's version in its comment."""
    pos = start
    it = iter(fitted)
    for j in range(first, len(rec.actions)):
        a = rec.actions[j]
        if a.kind != "move":
            rec.actions[j] = replace(a, before=pos.with_turn(a.before.turn))
            continue
        f = next(it)
        comment = a.comment
        if f.changed:
            table = f"{a.dice[0]}{a.dice[1]}: {format_moves(a.steps, a.hits) or 'no move'}"
            comment = "\n".join(x for x in (comment, f"{REFITTED}{table}; fitted to the "
                                              f"board the players went on from ({adopted})")
                                 if x)
        rec.actions[j] = replace(a, before=pos, dice=(f.dice.high, f.dice.low),
                                 steps=f.play.moves, hits=f.play.hits, after=f.play.result,
                                 comment=comment)
        pos = f.play.result.swap_turn()


def _append_move(rec: GameRecord, dice: tuple[int, int] | Dice, play: Play, before: Position,
                 comment: str, *, seen: bool) -> None:
    d = Dice.of(dice)
    rec.actions.append(Action("move", before.turn, before, (d.high, d.low), play.moves,
                              play.hits, after=play.result, comment=comment, seen=seen))


def mat_view(rec: MatchRecord) -> MatchRecord:
    """The record as a ``.mat`` can say it: legal moves only, one board all game long.

    A ``.mat`` has no way to set a board up. From a ``setup`` action on, until the boards
    meet again, each move is written as the legal play of its roll that leads to the board
    the game was in after it, or else nearest it (:func:`pibg.refit.closest_play`): every
    roll, cube action and result is kept, and gnubg and :func:`pibg.matfile.read_mat` read
    every move; the ``.sgf`` has the boards as they stood. A game its moves no longer end is
    won by the ``Wins`` line (a resignation to both readers, for the same points)."""
    if not any(a.kind == "setup" for g in rec.games for a in g.actions):
        return rec
    s = rec.settings
    games: list[GameRecord] = []
    warnings = list(rec.warnings)
    score = rec.games[0].score if rec.games else (0, 0)
    crawford_done = False
    for game in rec.games:
        if s.length and max(score) >= s.length:
            warnings.append(f".mat: the match ends after game {len(games)} there; the games "
                            f"after it are in the .sgf only")
            break
        crawford = (s.length > 1 and s.crawford and not crawford_done
                    and max(score) == s.length - 1)
        view = replace(_mat_game(game), score=score, crawford=crawford)
        cut = sum(a.kind == "move" for a in game.actions) - sum(
            a.kind == "move" for a in view.actions)
        if cut:
            points = view.result.points if view.result is not None else 0
            warnings.append(f".mat: game {game.number} stops {cut} roll(s) before its end, "
                            f"where every legal play would end it otherwise than it ended; "
                            f"its result line gives {points} point(s) (the .sgf has it all)")
        games.append(view)
        crawford_done = crawford_done or crawford
        if view.result is not None:
            won = list(score)
            won[view.result.winner] += view.result.points
            score = (won[0], won[1])
    return MatchRecord(s, games, rec.final, warnings)


def _mat_game(game: GameRecord) -> GameRecord:
    if not any(a.kind == "setup" for a in game.actions):
        return game
    out: list[Action] = []
    board = Position.start() if game.start.with_turn(Color.WHITE) != Position.start() else (
        game.start)
    opening = True
    ended = False
    moves = [j for j, a in enumerate(game.actions) if a.kind == "move"]
    for j, a in enumerate(game.actions):
        if ended or a.kind == "setup":
            continue
        here = board.with_turn(a.before.turn)
        if a.kind == "move":
            assert a.after is not None
            if opening:
                board = here
            opening = False
            if here == a.before:
                out.append(a)
                result = a.after
            else:
                dice = Dice.of(a.dice)
                play = _mat_play(here, dice, a.after, game.result if j == moves[-1] else None)
                if play is None:
                    # every legal play would end the game otherwise than it ended: the game
                    # stops before this roll, and its result line says who won (the rest
                    # is in the .sgf only; a double the .mat then cannot say makes its
                    # result, and the score of the games after it, differ)
                    break
                note = "" if play.result == a.after else (
                    f"the .mat goes on from {here.position_id()}: the legal play nearest the "
                    f"board that stood ({a.after.position_id()})")
                out.append(replace(a, before=here, steps=play.moves, hits=play.hits,
                                   after=play.result,
                                   comment="\n".join(x for x in (a.comment, note) if x)))
                result = play.result
            board = result.swap_turn()
            ended = result.winner() is not None
        elif a.kind == "roll":
            opening = False
            out.append(replace(a, before=here))
            if j + 1 < len(game.actions) and game.actions[j + 1].kind != "resign":
                board = here.swap_turn()
        else:
            out.append(replace(a, before=here))
    return _won_unended(replace(game, actions=out), _cube_value(game, out))


def _cube_value(game: GameRecord, actions: Sequence[Action]) -> int | None:
    """The cube's value at the end of ``actions``, part of ``game``'s (``None``: all)."""
    res = game.result
    if res is None:
        return None
    turns = sum(a.kind in ("double", "beaver") for a in game.actions)
    kept = sum(a.kind in ("double", "beaver") for a in actions)
    return res.cube >> (turns - kept)


def _mat_play(here: Position, dice: Dice, want: Position, last: GameResult | None
              ) -> Play | None:
    """The legal play a ``.mat`` writes for a move made from another board: the one nearest
    ``want`` among those that end the game only where it ended (``last``, the result, at
    the game's last move), as it ended; ``None`` where every one ends it otherwise."""
    ok = []
    for play in plays_of(here, dice):
        won = play.result.winner()
        term = play.result.termination()
        if won is None or (last is not None and won is last.winner and term is not None
                           and term.name.lower() == last.termination):
            ok.append(play)
    if not ok:
        return None
    return min(ok, key=lambda p: (p.result.winner() != want.winner(), distance(p.result, want)))


def sgf_view(rec: MatchRecord) -> MatchRecord:
    """The record as an ``.sgf`` says it: a game won on a board set up (an illegal play
    that stood and bore off the last checkers) ends by ``RE[..R]``, a resignation."""
    if not any(a.kind == "setup" for g in rec.games for a in g.actions):
        return rec
    return MatchRecord(rec.settings, [_won_unended(g) for g in rec.games], rec.final,
                       rec.warnings)


def _won_unended(game: GameRecord, cube: int | None = None) -> GameRecord:
    """A game whose actions, as a file has them, do not end it: the file says its result as
    a resignation by the loser, for as many times the cube (``cube``: the value the file's
    cube actions give, where the file has fewer of them than the game)."""
    res = game.result
    last = game.actions[-1] if game.actions else None
    if res is None or last is None or last.kind in ("drop", "resign") or (
            last.kind == "move" and last.after is not None and last.after.winner() is not None):
        return game
    mult = max(1, min(3, res.points // res.cube))
    value = res.cube if cube is None else cube
    board = last.after if last.kind == "setup" and last.after is not None else last.before
    resign = Action("resign", res.winner.other, board.with_turn(res.winner.other), value=mult)
    return replace(game, actions=[*game.actions, resign],
                   result=replace(res, points=mult * value, cube=value, termination="resign"))


# --- files ------------------------------------------------------------------------------------


def decode_text(data: bytes) -> str:
    """A record's bytes as text: UTF-8 (with or without a byte-order mark), else Windows-1252,
    else Latin-1 (which decodes anything)."""
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically: temp file in the same directory, fsync, rename,
    fsync the directory. Readers see the old file or the new one, never half of one. A new
    file is readable by all (``0644``); a file written over keeps its mode.

    :raises RecordWriteError: a missing folder, a read-only or full file system (no temporary
        file is left behind).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise RecordWriteError(f"{target}: cannot write: {exc.strerror or exc} (check that "
                               f"the folder {directory} exists and is writable)") from exc
    try:
        # mkstemp makes the file 0600; a match file is the user's to share like any other
        # (an existing file keeps its mode)
        os.fchmod(fd, _mode_of(target))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise RecordWriteError(f"{target}: cannot write: {exc.strerror or exc}; the file was "
                               f"left as it was") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


def _mode_of(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return FILE_MODE


__all__ = [
    "DICE_NOT_SEEN",
    "FILE_MODE",
    "IN_DOUBT",
    "NEAREST",
    "NOT_SEEN",
    "REFITTED",
    "REVIEWED",
    "TAKEN",
    "Action",
    "GameRecord",
    "MatchRecord",
    "apply_steps",
    "decode_text",
    "listed",
    "mat_view",
    "match_record",
    "move_comment",
    "read_play",
    "recorded",
    "resolve_any_order",
    "sgf_view",
    "write_atomic",
]
