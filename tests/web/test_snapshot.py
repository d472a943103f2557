"""The page's data: the snapshot of a referee state, and the board SVG drawn from it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest

from pibg import referee
from pibg.events import GameStarted, MatchSettings, Moved, OpeningRoll, Undone
from pibg.moves import Dice
from pibg.observation import BoardObservation
from pibg.position import Color, Position
from pibg.referee import Step
from pibg.rules import legal_plays
from pibg.web import LiveView
from pibg.web.snapshot import board_dict, move_list, snapshot
from pibg.web.svg import board_svg

from .conftest import match_events, replay_steps

SVG = "{http://www.w3.org/2000/svg}"


def drawn(svg: str) -> dict[str, object]:
    """What the SVG shows, read back from its elements (not only its data attributes)."""
    root = ET.fromstring(svg)
    points: list[int] = [0] * 24
    for g in root.iter(f"{SVG}g"):
        cls = g.get("class", "")
        if cls == "point":
            p = int(g.get("data-point", "0"))
            circles = [c for c in g.iter(f"{SVG}circle") if "checker" in c.get("class", "")]
            white = sum("white" in c.get("class", "") for c in circles)
            black = sum("black" in c.get("class", "") for c in circles)
            assert not (white and black), f"point {p} drawn with both colours"
            points[p - 1] = white - black
            assert int(g.get("data-count", "99")) == points[p - 1]
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "bar")
    off = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "off")
    bar_c = [c.get("class", "") for c in bar.iter(f"{SVG}circle")]
    off_r = [r.get("class", "") for r in off.iter(f"{SVG}rect") if "borne" in r.get("class", "")]
    return {
        "points": points,
        "bar": (sum("white" in c for c in bar_c), sum("black" in c for c in bar_c)),
        "off": (sum("white" in c for c in off_r), sum("black" in c for c in off_r)),
        "position_id": root.get("data-position-id"),
    }


def expected(pos: Position) -> dict[str, object]:
    return {"points": list(pos.signed()),
            "bar": (pos.bar(Color.WHITE), pos.bar(Color.BLACK)),
            "off": (pos.off(Color.WHITE), pos.off(Color.BLACK)),
            "position_id": pos.position_id()}


def test_svg_draws_every_checker_of_every_position_in_a_match(steps: list[Step]) -> None:
    seen = 0
    for step in steps:
        g = step.state.match.game
        if g is None:
            continue
        snap = snapshot(step.state, step.effects)
        assert drawn(board_svg(snap)) == expected(g.position)
        seen += 1
    assert seen > 50


@pytest.mark.parametrize("pos", [
    Position.start(),
    Position.from_signed([0] * 23 + [-1], bar=(14, 0)),  # a tall bar stack is squeezed
    Position.from_signed([15] + [0] * 22 + [-15]),  # 15 on one point
    Position.from_signed([0] * 24, bar=(0, 2), off=(15, 13)),
])
def test_svg_of_extreme_positions(pos: Position) -> None:
    snap = {"board": board_dict(pos), "turn": "white", "dice": [6, 6],
            "cube": {"value": 4, "owner": "black", "offered": False}}
    svg = board_svg(snap)
    assert drawn(svg) == expected(pos)
    root = ET.fromstring(svg)
    groups = {g.get("class"): g for g in root.iter(f"{SVG}g")}
    assert groups["dice"].get("data-dice") == "6,6"
    assert groups["cube"].get("data-value") == "4"
    assert groups["cube"].get("data-owner") == "black"


def test_snapshot_fields_follow_the_match(steps: list[Step]) -> None:
    final = steps[-1].state
    snap = snapshot(final, steps[-1].effects)
    m = final.match
    assert snap["score"] == {"white": m.score[0], "black": m.score[1], "length": 3,
                             "money": False}
    assert snap["players"] == {"white": "alice", "black": "bob"}
    assert snap["match_over"] is True and snap["winner"] == m.winner.label  # type: ignore[union-attr]
    assert len(snap["games"]) == len(m.games)
    plays = [e for e in final.events if isinstance(e, Moved)]
    listed = [e for e in snap["moves"] if e["kind"] == "play"]
    assert [e["text"] for e in listed] == [p.notation or "(no move)" for p in plays]
    assert [e["dice"] for e in listed] == [[p.dice.a, p.dice.b] for p in plays]
    assert [e["player"] for e in listed] == [p.player.label for p in plays]
    # mid-game: dice, pips and turn are the referee's
    for step in steps:
        st = step.state
        g = st.match.game
        if st.mode is referee.Mode.MOVING and g is not None and st.dice is not None:
            s = snapshot(st, step.effects)
            assert s["dice"] == [st.dice.a, st.dice.b]
            assert s["pips"] == {"white": g.position.pips(Color.WHITE),
                                 "black": g.position.pips(Color.BLACK)}
            assert s["turn"] in ("white", "black", None)
            assert s["display"] == list(step.effects.display)
            break
    else:
        pytest.fail("no MOVING state in the match")


def test_crawford_is_shown() -> None:
    # a 3-point match reaching 2-x plays a Crawford game
    for seed in range(40):
        events = match_events(seed)
        for step in replay_steps(events):
            g = step.state.match.game
            if g is not None and g.crawford and step.state.mode is referee.Mode.TO_ROLL:
                snap = snapshot(step.state, step.effects)
                assert snap["crawford"]["game"] is True
                assert snap["cube"]["value"] == 1
                return
    pytest.fail("no Crawford game in the seeds tried: the test would check nothing")


def test_illegal_flag_carries_reasons_and_points(steps: list[Step]) -> None:
    from pibg.script import Mishaps, drive, table_script

    events = match_events()
    flagged: list[Step] = []
    drive(table_script(events, Mishaps(illegal=0.5, seed=1)),
          events[0].settings,  # type: ignore[attr-defined]
          on_step=lambda s: flagged.append(s) if s.state.mode is referee.Mode.ILLEGAL else None)
    assert flagged, "the planted illegal plays were not flagged"
    snap = snapshot(flagged[0].state, flagged[0].effects)
    assert snap["mode"] == "illegal"
    assert snap["flag"]["kind"] == "illegal"
    assert snap["flag"]["reasons"] and snap["flag"]["points"]
    svg = ET.fromstring(board_svg(snap))
    marked = {int(g.get("data-point", 0)) for g in svg.iter(f"{SVG}g")
              if g.get("class") == "point"
              and "flagged" in next(g.iter(f"{SVG}polygon")).get("class", "")}
    assert marked == {p for p in snap["flag"]["points"] if 1 <= p <= 24}
    assert any(e["kind"] == "illegal" for e in move_list(flagged[0].state.events))


def test_undone_moves_leave_the_move_list() -> None:
    first = referee.new_match(MatchSettings(length=1))
    play = legal_plays(Position.start(Color.WHITE), Dice(3, 1))[0]
    events = (*first.state.events, GameStarted(), OpeningRoll(white=3, black=1),
              Moved(player=Color.WHITE, dice=Dice(3, 1), play=play))
    assert [e["text"] for e in move_list(events)] == [str(play)]
    assert move_list((*events, Undone())) == []


def test_liveview_versions_and_waiting(steps: list[Step]) -> None:
    view = LiveView()
    assert view.snapshot()["mode"] == "waiting"
    v0 = view.versions
    view.update(steps[0])
    v1 = view.wait(v0, timeout=0.01)
    assert v1.state == v0.state + 1
    view.update(steps[0])  # the same state again: no change
    assert view.versions.state == v1.state
    assert view.wait(v1, timeout=0.01) == v1  # times out
    frame = np.zeros((60, 80, 3), np.uint8)
    view.update(steps[0], frame, BoardObservation.unreadable("a hand is over the board"))
    assert view.versions.frame == v1.frame + 1
    jpg = view.frame_jpeg()
    assert jpg is not None and jpg[:2] == b"\xff\xd8"
    snap = view.snapshot()
    assert snap["camera"]["readable"] is False
    assert snap["camera"]["reason"] == "a hand is over the board"
    assert snap["version"] == view.versions.state


def test_liveview_keeps_the_last_lines_said(steps: list[Step]) -> None:
    view = LiveView()
    for step in steps:
        view.update(step)
    said = [line for s in steps for line in s.say]
    assert [x["text"] for x in view.snapshot()["say"]] == said[-30:]


def test_snapshot_of_a_new_match_shows_the_start() -> None:
    step = referee.new_match(MatchSettings(length=7, white="ann", black="bo"))
    snap = snapshot(step.state, step.effects)
    assert snap["mode"] == "setup" and snap["in_game"] is False
    assert snap["board"]["points"] == list(Position.start().signed())
    assert snap["moves"] == [] and snap["dice"] is None and snap["turn"] is None
    st = replace(step.state, message=("hello",))
    assert snapshot(st)["message"] == ["hello"]


def test_a_turn_settled_by_the_board_is_marked_in_the_move_list() -> None:
    """A play whose dice were inferred carries its flag to the page's Moves panel."""
    from pibg.events import MatchStarted
    from pibg.rules import resolve

    play = resolve(Position.start(), (3, 1), "8/5 6/5")
    events = (MatchStarted(MatchSettings(length=3)), GameStarted(),
              OpeningRoll(white=3, black=1),
              Moved(Color.WHITE, Dice(3, 1), play, dice_seen=False,
                    flag="dice not seen; the board fits 1-1 too"))
    [entry] = [m for m in move_list(events) if m["kind"] == "play"]
    assert entry["flag"] == "dice not seen; the board fits 1-1 too"
    assert entry["dice_seen"] is False
