"""End to end with the camera in the loop: synthetic frames (pibg.sim) read by the vision
stage and refereed; and the photoreal game of ``../shared/renders/game`` (also measured by
``benchmarks/replay_renders.py``).

Slow (a few hundred frames each): four of the 20 shortest golden matches here; all 60 run through
the referee in ``test_replay.py`` with perfect readings, and through the camera in
``benchmarks/replay_sim_vision.py``.
"""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from pibg.app import folder_frames, open_replay_source, replay
from pibg.events import IllegalFlagged, MatchSettings, Moved
from pibg.infer import Outcome, judge
from pibg.match import agreeing, effective_events
from pibg.match import replay as replay_match
from pibg.matfile import read_mat
from pibg.observation import BoardObservation
from pibg.position import Color, Position
from pibg.script import Mishaps, Scene, attentive, scenes_from_labels, table_script
from tests.conftest import shared_path


def _plays(events) -> list[tuple[Color, Position]]:
    return [(e.player, e.result) for e in effective_events(events)
            if isinstance(e, Moved)]


@pytest.mark.slow
def test_demo_match_through_sim_and_vision(tmp_path: Path):
    """The bundled match, rendered with a hand, bumps, an illegal move and cocked dice, read
    by the vision stage: the .mat written has the source's plays and score."""
    source, settings, corners = open_replay_source("sim")
    assert settings is not None
    res = replay(source, tmp_path, settings, corners=corners)
    from pibg.app import DEMO_MISHAPS, demo_events

    events = demo_events()
    assert _plays(read_mat(res.mat)) == _plays(events)
    planted = [a for a in table_script(events, DEMO_MISHAPS)
               if isinstance(a, Scene) and a.kind == "illegal"]
    assert sum(isinstance(e, IllegalFlagged) for e in res.state.events) == len(planted)


#: Four of the 20 shortest golden matches (1- to 5-point, 77 to 137 events, a few hundred
#: frames each), to keep CI within its time (six took three minutes of its 15);
#: ``benchmarks/replay_sim_vision.py --matches 60`` runs every one.
GOLDEN_SOME = ["m049_1pt", "m060_3pt", "m026_5pt", "m005_3pt"]


def _planted(actions) -> list[tuple[Scene, Scene]]:
    """(the board before the throw, the illegal board) of every planted illegal move."""
    out, before = [], None
    for a in actions:
        if isinstance(a, Scene) and a.kind == "roll" and not a.hand:
            before = a
        if isinstance(a, Scene) and a.kind == "illegal":
            assert before is not None
            out.append((before, a))
    return out


def _board(scene: Scene) -> tuple[tuple[int, ...], tuple[int, int]]:
    return scene.points, scene.bar


def _run_golden(name: str) -> dict[str, object]:
    """One golden match at the synthetic table, through vision and referee (a worker
    process): what the test below checks, in plain data."""
    path = shared_path("golden", "matches", f"{name}.mat")
    events = read_mat(path)
    mishaps = Mishaps(illegal=0.05, hand=0.1, bump=0.03, cocked=0.03, seed=int(name[1:4]) - 1)
    source, settings, corners = open_replay_source(f"sim:{path}", mishaps=mishaps)
    assert settings is not None
    with tempfile.TemporaryDirectory() as tmp:
        res = replay(source, Path(tmp), settings, corners=corners, respond=attentive)
        written = read_mat(res.mat)
    flags: dict[object, tuple[str, ...]] = {}
    for e in res.state.events:
        if isinstance(e, IllegalFlagged) and e.seen is not None:
            pos = e.seen
            flags.setdefault(
                (pos.signed(), (pos.bar(Color.WHITE), pos.bar(Color.BLACK))), e.reasons)
    return {"plays": (_plays(written), _plays(events)),
            "scores": (replay_match(written).score, replay_match(events).score),
            "flags": flags, "planted": _planted(table_script(events, mishaps))}


@pytest.fixture(scope="module")
def golden_runs() -> dict[str, dict[str, object]]:
    """The matches run two at a time (a few minutes each way; two cores here and on CI)."""
    shared_path("golden", "matches")
    with ProcessPoolExecutor(2) as pool:
        return dict(zip(GOLDEN_SOME, pool.map(_run_golden, GOLDEN_SOME), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("name", GOLDEN_SOME)
def test_golden_matches_through_sim_and_vision(golden_runs, name: str):
    """A golden match played at a synthetic table (hands over the board, bumped checkers,
    illegal moves put right after the flag, cocked dice), every frame rendered by pibg.sim
    and read by the vision stage; the players answer the referee's questions from what they
    see (``attentive``). The .mat written has the source's plays and score; every planted
    illegal move is flagged on the board played, with the reason the rules give for the
    throw; no other board is flagged."""
    run = golden_runs[name]
    got_plays, want_plays = run["plays"]
    assert got_plays == want_plays
    got_score, want_score = run["scores"]
    assert got_score == want_score
    flags, planted = run["flags"], run["planted"]
    for before, bad in planted:
        assert _board(bad) in flags, f"planted illegal move not flagged: {bad.note}"
        assert bad.roll is not None and bad.mover is not None
        start = Position.from_signed(before.points, before.bar, before.off, bad.mover)
        want = judge(start, bad.roll, BoardObservation.exact(bad.points, bad.bar, bad.off))
        assert want.outcome is Outcome.ILLEGAL
        assert flags[_board(bad)][0] == want.reasons[0]
    assert set(flags) <= {_board(bad) for _, bad in planted}, "a legal board was flagged"


def _renders_game(shared, answer: bool, tmp_path: Path) -> tuple[int, int, tuple[int, int]]:
    """(plays recorded right before the first difference, plays in the game, score) for the
    photoreal game of ``../shared/renders/game`` replayed through vision and referee."""
    frames = shared("renders", "game", "frames")
    truth = json.loads((frames.parent / "truth.json").read_text())
    source = folder_frames(frames, scenes_from_labels(truth))
    res = replay(source, tmp_path, MatchSettings(length=9),
                 respond=attentive if answer else None)
    want = _plays(read_mat(shared("golden", "matches", "m023_9pt.mat")))
    moved = sum(1 for f in truth if f["kind"] == "moved")
    return agreeing(_plays(res.state.events), want), moved, res.state.match.score


@pytest.mark.slow
def test_photoreal_game_whole(shared, tmp_path: Path):
    """The photoreal game (tournament board, black glossy dice, glare, hands) with the
    players answering the referee's questions about dice it could not read: all 40 plays
    are recorded as game 1 of the source match has them, and the game ends as it does
    (White, the .mat's first player, wins 2 points with the cube on 2)."""
    right, moved, score = _renders_game(shared, True, tmp_path)
    assert moved == 40
    assert right == moved
    assert score == (2, 0)


@pytest.mark.slow
def test_photoreal_game_followed_with_nobody_answering(shared, tmp_path: Path):
    """The photoreal game with nobody at the table pressing anything: every doubt (a die
    not found, a die read unsurely) is settled by the boards that follow. All 40 plays are
    recorded as game 1 of the source match has them, the replay reports it followed the
    game to its end, and GNU Backgammon reads the same boards from pibg's .mat as from the
    source's."""
    from pibg.gnubg_oracle import find_gnubg, gnubg_import

    frames = shared("renders", "game", "frames")
    source = folder_frames(frames)
    res = replay(source, tmp_path, MatchSettings(length=9))
    golden = shared("golden", "matches", "m023_9pt.mat")
    want = _plays(read_mat(golden))
    assert agreeing(_plays(res.state.events), want) == 40
    assert res.state.match.score == (2, 0)
    lines, failed = res.summary()
    assert failed is None, failed
    assert "plays recorded: 40" in lines[0]
    if find_gnubg() is None:
        pytest.skip("GNU Backgammon not installed: the .mat check needs it")
    mine, theirs = gnubg_import([(res.mat, "mat"), (golden, "mat")])

    def boards(result: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
        game = dict(result["match"]["games"][0])["game"]
        return [(a["player"], a["board"]) for a in game if a["action"] == "move"]

    assert boards(mine) == boards(theirs)
