"""Drive the real GNU Backgammon as an oracle for the files pibg writes.

One ``gnubg -t -q -p script.py`` process imports a whole batch of ``.mat``/``.sgf`` files and
dumps, for each, ``gnubg.match(boards=1)``: every action with its player, dice, steps and the
Position ID *before* it, and each game's scores, winner and points. :func:`compare` checks
that against what pibg meant to write (a :class:`~pibg.record.MatchRecord`): the same
positions move by move, the same cube actions, the same results and scores (of
:func:`~pibg.record.mat_view` and :func:`~pibg.record.sgf_view`: what each format can say).

gnubg is found through ``$PIBG_GNUBG``, ``gnubg`` on ``PATH``, or ``/usr/games/gnubg``
(Debian's package puts it there, outside a normal user's ``PATH``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pibg.events import Event
from pibg.exc import PibgError
from pibg.position import Color
from pibg.record import GameRecord, MatchRecord, mat_view, sgf_view

_SCRIPT = r'''
import json, sys
import gnubg
with open(sys.argv[-1] if sys.argv[-1].endswith(".json") else JOBS) as fh:
    jobs = json.load(fh)
gnubg.command("set confirm new off")
out = []
for path, fmt, jacoby in jobs:
    entry = {"file": path}
    try:
        gnubg.command("set jacoby %s" % ("on" if jacoby else "off"))
        gnubg.command("new match 1")
        cmd = "import mat" if fmt == "mat" else "load match"
        gnubg.command('%s "%s"' % (cmd, path))
        entry["match"] = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
        entry["matchid"] = gnubg.matchid()
    except Exception as exc:
        entry["error"] = "%s: %s" % (type(exc).__name__, exc)
    out.append(entry)
with open(OUT, "w") as fh:
    json.dump(out, fh)
'''


class GnubgNotFoundError(PibgError, RuntimeError):
    """GNU Backgammon is not installed (or ``$PIBG_GNUBG`` points nowhere)."""


def find_gnubg() -> str | None:
    """The gnubg executable, or ``None``."""
    env = os.environ.get("PIBG_GNUBG")
    if env:
        return env if Path(env).exists() else None
    found = shutil.which("gnubg")
    if found:
        return found
    for candidate in ("/usr/games/gnubg", "/usr/local/games/gnubg"):
        if Path(candidate).exists():
            return candidate
    return None


def gnubg_import(files: Sequence[tuple[str | os.PathLike[str], str]], exe: str | None = None,
                 timeout: float = 600.0, jacoby: Sequence[bool] | None = None
                 ) -> list[dict[str, Any]]:
    """Import each ``(path, "mat"|"sgf")`` into one gnubg process; return gnubg's match dicts.

    ``jacoby[i]`` sets gnubg's Jacoby rule before file ``i`` (default off): a ``.mat`` money
    session carries no Jacoby flag, so gnubg applies its own setting (on, out of the box).

    Each result is ``{"file": path, "match": {...}}`` or ``{"file": path, "error": "..."}``.

    :raises GnubgNotFoundError: no gnubg.
    """
    exe = exe or find_gnubg()
    if exe is None:
        raise GnubgNotFoundError("GNU Backgammon not found: install gnubg (Debian: apt install "
                                 "gnubg) or set PIBG_GNUBG")
    with tempfile.TemporaryDirectory(prefix="pibg-gnubg-") as tmp:
        jobs = Path(tmp, "jobs.json")
        out = Path(tmp, "out.json")
        flags = list(jacoby) if jacoby is not None else [False] * len(files)
        jobs.write_text(json.dumps([[str(Path(p).resolve()), fmt, flag]
                                    for (p, fmt), flag in zip(files, flags, strict=True)]))
        script = Path(tmp, "oracle.py")
        script.write_text(f"JOBS = {str(jobs)!r}\nOUT = {str(out)!r}\n" + _SCRIPT)
        proc = subprocess.run([exe, "-t", "-q", "-p", str(script)], cwd=tmp,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
        if not out.exists():
            err = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise PibgError(f"gnubg exited {proc.returncode} without results: {' | '.join(err)}")
        result: list[dict[str, Any]] = json.loads(out.read_text())
        return result


# --- comparison -------------------------------------------------------------------------------


@dataclass(slots=True)
class Comparison:
    """What was checked against gnubg for one file, and every disagreement found."""

    file: str = ""
    games: int = 0
    moves: int = 0
    cube_actions: int = 0
    resigns: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _side(color: Color) -> str:
    return "X" if color is Color.WHITE else "O"  # gnubg's player 0 is "X" in gnubg.match()


def compare(record: MatchRecord, gnubg_result: dict[str, Any], final: bool = True
            ) -> Comparison:
    """Compare what pibg wrote (``record``) with what gnubg read back (one result dict);
    ``final``: the Match ID gnubg ends on too (not for a match with a board set up: gnubg
    1.07 leaves such a game out of the match state it ends on, and a ``.mat`` may end it
    on another cube)."""
    cmp = Comparison(str(gnubg_result.get("file", "")))
    bad = cmp.mismatches
    if "error" in gnubg_result:
        bad.append(f"gnubg could not import: {gnubg_result['error']}")
        return cmp
    match = gnubg_result["match"]
    info = match.get("match-info", {})
    s = record.settings
    if info.get("match-length") != s.length:
        bad.append(f"match length: gnubg {info.get('match-length')}, pibg {s.length}")
    names = (info.get("X", {}).get("name"), info.get("O", {}).get("name"))
    if names != (s.white, s.black):
        bad.append(f"players: gnubg {names}, pibg {(s.white, s.black)}")
    ggames = match.get("games", [])
    if len(ggames) != len(record.games):
        bad.append(f"games: gnubg {len(ggames)}, pibg {len(record.games)}")
    for k, (game, gg) in enumerate(zip(record.games, ggames, strict=False), start=1):
        cmp.games += 1
        _compare_game(cmp, k, game_record=game, gnubg_game=gg)
    if gnubg_result.get("matchid") and final:
        _compare_match_id(cmp, record, gnubg_result["matchid"])
    return cmp


def _compare_match_id(cmp: Comparison, record: MatchRecord, match_id: str) -> None:
    """The Match ID gnubg ends on against pibg's final state: the fields both define the same
    way once a game is over (score, length, cube value and owner, Crawford)."""
    from pibg.match import decode_match_id

    theirs = decode_match_id(match_id)
    mine = decode_match_id(record.final.match_id())
    for name in ("length", "score", "cube", "owner", "crawford"):
        a, b = getattr(theirs, name), getattr(mine, name)
        if a != b:
            cmp.mismatches.append(f"final Match ID {match_id}: {name}: gnubg {a}, pibg {b}")


def _compare_game(cmp: Comparison, k: int, game_record: GameRecord,
                  gnubg_game: dict[str, Any]) -> None:
    bad = cmp.mismatches
    gi = gnubg_game.get("info", {})
    score = (gi.get("score-X"), gi.get("score-O"))
    if score != game_record.score:
        bad.append(f"game {k}: score before it: gnubg {score}, pibg {game_record.score}")
    if "crawford" in gi and bool(gi["crawford"]) != game_record.crawford:
        bad.append(f"game {k}: Crawford: gnubg {gi['crawford']}, pibg {game_record.crawford}")
    res = game_record.result
    if res is not None:
        if gi.get("winner") != _side(res.winner) or gi.get("points-won") != res.points:
            bad.append(f"game {k}: result: gnubg {gi.get('winner')} +{gi.get('points-won')}, "
                       f"pibg {_side(res.winner)} +{res.points}")
        if bool(gi.get("resigned")) != (res.termination == "resign"):
            bad.append(f"game {k}: resigned: gnubg {gi.get('resigned')}, "
                       f"pibg {res.termination}")
    elif gi.get("winner") is not None:
        bad.append(f"game {k}: gnubg has a winner ({gi.get('winner')}), pibg none")
    gacts = [a for a in gnubg_game.get("game", []) if a.get("action") != "set"]
    # gnubg's 'set' (dice only, or a board set up): the moves after a board set up are
    # checked from the board gnubg has
    mine = [a for a in game_record.actions if a.kind not in ("roll", "setup")]
    if len(gacts) != len(mine):
        bad.append(f"game {k}: actions: gnubg {len(gacts)}, pibg {len(mine)}")
    for j, (a, g) in enumerate(zip(mine, gacts, strict=False), start=1):
        where = f"game {k} action {j}"
        if g.get("player") != _side(a.player) or g.get("action") != a.kind:
            bad.append(f"{where}: gnubg {g.get('player')} {g.get('action')}, pibg "
                       f"{_side(a.player)} {a.kind}")
            break  # everything after is out of step
        if a.kind == "move":
            cmp.moves += 1
            if g.get("board") != a.before.position_id():
                bad.append(f"{where}: position before: gnubg {g.get('board')}, pibg "
                           f"{a.before.position_id()}")
            if sorted(g.get("dice", ())) != sorted(a.dice):
                bad.append(f"{where}: dice: gnubg {g.get('dice')}, pibg {a.dice}")
            gsteps = sorted(tuple(s) for s in g.get("move", ()))
            psteps = sorted((m.src, m.dst) for m in a.steps)
            if gsteps != psteps:
                bad.append(f"{where}: steps: gnubg {gsteps}, pibg {psteps}")
        elif a.kind == "double":
            cmp.cube_actions += 1
            if g.get("board") != a.before.position_id():
                bad.append(f"{where}: position at the double: gnubg {g.get('board')}, pibg "
                           f"{a.before.position_id()}")
        elif a.kind == "resign":
            cmp.resigns += 1
            if g.get("points") != a.value:
                bad.append(f"{where}: resign: gnubg {g.get('points')}, pibg {a.value}")
        else:
            cmp.cube_actions += 1


__all__ = ["Comparison", "GnubgNotFoundError", "compare", "find_gnubg", "gnubg_import"]


# --- batches ----------------------------------------------------------------------------------


@dataclass(slots=True)
class RoundTrip:
    """Totals of a batch checked with gnubg."""

    matches: int = 0
    files: int = 0
    games: int = 0
    moves: int = 0
    cube_actions: int = 0
    resigns: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds: float = 0.0
    gnubg_seconds: float = 0.0


def check_with_gnubg(records: Sequence[tuple[str, MatchRecord]], workdir: str | os.PathLike[str],
                     formats: Sequence[str] = ("mat", "sgf"), exe: str | None = None
                     ) -> RoundTrip:
    """Write every record in each format into ``workdir``, import them all into one gnubg,
    and compare move by move. Returns the totals and every disagreement."""
    import time

    from pibg.matfile import write_mat
    from pibg.sgf import write_sgf

    start = time.monotonic()
    out = RoundTrip(matches=len(records))
    jobs: list[tuple[str | os.PathLike[str], str]] = []
    jacoby: list[bool] = []
    by_file: dict[str, MatchRecord] = {}
    set_up: set[str] = set()
    for name, rec in records:
        for fmt in formats:
            path = Path(workdir, f"{name}.{fmt}")
            (write_mat if fmt == "mat" else write_sgf)(rec, path)
            jobs.append((path, fmt))
            jacoby.append(rec.settings.jacoby)
            # a .mat says boards taken as they stand its own way (see mat_view)
            by_file[str(path.resolve())] = (mat_view if fmt == "mat" else sgf_view)(rec)
            if any(a.kind == "setup" for g in rec.games for a in g.actions):
                set_up.add(str(path.resolve()))
    t_write = time.monotonic()
    results = gnubg_import(jobs, exe=exe, jacoby=jacoby)
    out.gnubg_seconds = time.monotonic() - t_write
    for res in results:
        rec = by_file[res["file"]]
        cmp = compare(rec, res, final=res["file"] not in set_up)
        out.files += 1
        out.games += cmp.games
        out.moves += cmp.moves
        out.cube_actions += cmp.cube_actions
        out.resigns += cmp.resigns
        for msg in cmp.mismatches:
            line = f"{Path(res['file']).name}: {msg}"
            out.mismatches.append(line)
    out.seconds = time.monotonic() - start
    return out


# --- random matches ---------------------------------------------------------------------------


@dataclass(slots=True)
class GeneratorStats:
    """What the generated matches contain (to check they exercise every feature)."""

    matches: int = 0
    games: int = 0
    moves: int = 0
    doubles: int = 0
    takes: int = 0
    drops: int = 0
    resigns: int = 0
    gammons: int = 0
    backgammons: int = 0
    crawford_games: int = 0
    post_crawford_doubles: int = 0
    bar_entries: int = 0
    bear_offs: int = 0
    no_move: int = 0
    opening_ties: int = 0
    undos: int = 0
    money: int = 0

    def add(self, other: GeneratorStats) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def random_match(seed: int, length: int | None = None, max_games: int = 4,
                 crawford: bool = True, jacoby: bool = False
                 ) -> tuple[list[Event], GeneratorStats]:
    """A random but legal match as events, from a seeded random player.

    The player picks among :func:`pibg.rules.legal_plays` (sometimes the one that hits most or
    races), doubles now and then, takes or drops, resigns rarely, and sometimes takes back a
    play (``undo``) and plays another. ``length`` 0 is money play (``max_games`` games).
    """
    import random

    from pibg.events import (
        Doubled,
        Dropped,
        GameEnded,
        GameStarted,
        MatchEnded,
        MatchSettings,
        MatchStarted,
        Moved,
        OpeningRoll,
        Resigned,
        Rolled,
        Took,
        Undone,
    )
    from pibg.match import MatchState, Phase, apply
    from pibg.moves import Dice, Play
    from pibg.record import recorded
    from pibg.rules import legal_plays

    rng = random.Random(seed)
    st = GeneratorStats(matches=1)
    if length is None:
        length = rng.choice((0, 1, 1, 3, 3, 3, 5, 5, 7))
    settings = MatchSettings(length=length, white=f"w{seed}", black=f"b{seed}",
                             crawford=crawford, jacoby=jacoby and length == 0)
    st.money = int(settings.money)
    events: list[Event] = []
    state = MatchState.new(settings)
    style = rng.choice(("uniform", "hitter", "racer", "racer", "racer"))
    p_double = rng.choice((0.05, 0.1, 0.2))

    def emit(ev: Event) -> None:
        nonlocal state
        state = apply(state, ev)
        events.append(ev)

    emit(MatchStarted(settings))
    while not state.over and st.games < (max_games if settings.money else 40):
        emit(GameStarted())
        st.games += 1
        game = state.game
        assert game is not None
        st.crawford_games += game.crawford
        while True:
            w, b = rng.randint(1, 6), rng.randint(1, 6)
            emit(OpeningRoll(w, b))
            if w != b:
                break
            st.opening_ties += 1
        while True:
            game = state.game
            assert game is not None
            if game.phase is Phase.OVER:
                break
            me = game.turn
            if game.phase is Phase.ROLL:
                if rng.random() < 0.001:
                    mult = rng.choice((1, 1, 2, 3))
                    emit(Resigned(me, mult))
                    st.resigns += 1
                    break
                if (not game.crawford and game.cube.may_double(me) and rng.random() < p_double
                        and game.cube.value < 64):
                    emit(Doubled(me))
                    st.doubles += 1
                    st.post_crawford_doubles += state.crawford_done
                    if rng.random() < 0.6:
                        emit(Took(me.other))
                        st.takes += 1
                    else:
                        emit(Dropped(me.other))
                        st.drops += 1
                        break
                emit(Rolled(me, Dice(rng.randint(1, 6), rng.randint(1, 6))))
            game = state.game
            assert game is not None and game.dice is not None
            dice = game.dice
            pos = game.position
            plays = legal_plays(pos, game.dice)
            if not plays:
                st.no_move += 1
                emit(Moved(me, dice, Play((), (), pos)))
                continue
            if len(plays) > 1 and rng.random() < 0.01:
                wrong = rng.choice(plays)
                before = state
                emit(Moved(me, dice, recorded(pos, dice, wrong)))
                events.append(Undone())
                st.undos += 1
                state = before
            if style == "hitter":
                play = max(plays, key=lambda p: (sum(p.hits), rng.random()))
            elif style == "racer":
                play = max(plays, key=lambda p: (-p.result.pips(me) - 30 * sum(
                    p.result.board(me)[18:25]), rng.random()))
            else:
                play = rng.choice(plays)
            st.moves += 1
            st.bar_entries += sum(1 for m in play.moves if m.src == 25)
            st.bear_offs += sum(1 for m in play.moves if m.dst == 0)
            emit(Moved(me, dice, recorded(pos, dice, play)))
        game = state.game
        assert game is not None and game.result is not None
        res = game.result
        st.gammons += res.termination == "gammon"
        st.backgammons += res.termination == "backgammon"
        events.append(GameEnded(res.winner, res.points, res.termination))
    if state.over and state.winner is not None:
        events.append(MatchEnded(state.winner, state.score))
    return events, st
