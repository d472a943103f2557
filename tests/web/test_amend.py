"""Setting the dice of a turn in doubt from the page: ``POST /api/amend`` behind the token, the
move list's throws, and the live loops (``pibg run``'s and ``pibg web-replay``'s) recording
the amendment in the match's journal and writing the records again."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from pibg import referee
from pibg.commands.web import Controls, keep_amending
from pibg.driver import Driver, view_sink
from pibg.events import Amended, Event, GameStarted
from pibg.journal import Journal, read_events
from pibg.match import PlayedTurn
from pibg.matfile import dumps_mat
from pibg.moves import Dice
from pibg.record import REVIEWED
from pibg.web import LiveView, WebServer
from pibg.web.server import MAX_NOTE
from tests.conftest import live_config
from tests.records.test_amend import flagged_match

from .conftest import TOKEN, Serve, get_json


@pytest.fixture(scope="module")
def flagged() -> tuple[list[Event], PlayedTurn, tuple[Dice, ...]]:
    return flagged_match()


def _other(turn: PlayedTurn, throws: tuple[Dice, ...]) -> Dice:
    d = turn.moved.dice
    return next(t for t in throws if (t.high, t.low) != (d.high, d.low))


def _view(events: list[Event]) -> LiveView:
    view = LiveView()
    view.update(referee.resume(tuple(events)))
    return view


def _post(web: WebServer, body: object, token: str | None = TOKEN) -> tuple[int, dict]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-Pibg-Token"] = token
    return get_json(web, "/api/amend", method="POST", body=raw, headers=headers)


# --- the endpoint -------------------------------------------------------------------------------


def test_amending_needs_the_token(serve: Serve, flagged) -> None:
    events, turn, throws = flagged
    got: list[Amended] = []
    body = {"game": turn.game, "move": turn.move, "dice": [throws[0].high, throws[0].low]}
    web = serve(_view(events), amend=got.append)  # no token configured: view-only
    status, data = _post(web, body)
    assert status == 403 and "token" in data["error"]
    assert get_json(web, "/api/info")[1]["amend"] is False
    web = serve(_view(events), amend=got.append, token=TOKEN)
    assert get_json(web, "/api/info")[1]["amend"] is True
    status, data = _post(web, body, token=None)
    assert status == 401 and "token" in data["error"]
    status, data = _post(web, body, token="wrong")
    assert status == 401 and "wrong token" in data["error"]
    assert got == []


@pytest.mark.parametrize(("body", "says"), [
    (b"{not json", "not valid JSON"),
    ([1, 1, [3, 1]], 'send {"game": G, "move": M, "dice": [a, b]}'),
    ({"move": 1, "dice": [3, 1]}, "'game' must be a whole number from 1"),
    ({"game": 0, "move": 1, "dice": [3, 1]}, "'game' must be a whole number from 1"),
    ({"game": 1, "move": True, "dice": [3, 1]}, "'move' must be a whole number from 1"),
    ({"game": 1, "move": 1, "dice": "31"}, "'dice' must be two numbers 1-6"),
    ({"game": 1, "move": 1, "dice": [3, 7]}, "'dice' must be two numbers 1-6"),
    ({"game": 1, "move": 1, "dice": [3, 1, 2]}, "'dice' must be two numbers 1-6"),
    ({"game": 1, "move": 1, "dice": [3, 1], "note": "x" * (MAX_NOTE + 1)},
     f"at most {MAX_NOTE} characters"),
    ({"game": 1, "move": 1, "dice": [3, 1], "player": "white"}, "unknown field 'player'"),
])
def test_a_malformed_amendment_is_a_400_naming_the_field(serve: Serve, flagged, body: object,
                                                         says: str) -> None:
    got: list[Amended] = []
    web = serve(_view(flagged[0]), amend=got.append, token=TOKEN)
    status, data = _post(web, body)
    assert status == 400 and says in data["error"]
    assert got == []


def test_a_body_too_large_is_refused_at_the_door(serve: Serve, flagged) -> None:
    got: list[Amended] = []
    web = serve(_view(flagged[0]), amend=got.append, token=TOKEN)
    status, _ = _post(web, b"x" * 70_000)
    assert status == 413 and got == []


def test_a_server_recording_no_match_answers_503(serve: Serve, flagged) -> None:
    events, turn, _ = flagged
    web = serve(_view(events), control=lambda _a: None, token=TOKEN)
    status, data = _post(web, {"game": turn.game, "move": turn.move, "dice": [6, 1]})
    assert status == 503 and "does not record a match" in data["error"]


def test_an_amendment_the_match_does_not_allow_is_a_409_with_the_reason(serve: Serve,
                                                                        flagged) -> None:
    events, turn, throws = flagged
    got: list[Amended] = []
    web = serve(_view(events), amend=got.append, token=TOKEN)
    status, data = _post(web, {"game": turn.game, "move": 1, "dice": [3, 1]})
    assert status == 409 and data["error"].startswith("amend: ") and "seen plainly" in data[
        "error"]
    wrong = next(d for d in (Dice(6, 6), Dice(1, 1), Dice(2, 1)) if d not in throws)
    status, data = _post(web, {"game": turn.game, "move": turn.move,
                               "dice": [wrong.high, wrong.low]})
    assert status == 409 and "set one of" in data["error"]
    # a game still being played
    i = next(k for k, ev in enumerate(events) if ev is turn.moved)
    web2 = serve(_view(events[:i + 1]), amend=got.append, token=TOKEN)
    status, data = _post(web2, {"game": turn.game, "move": turn.move,
                                "dice": [throws[0].high, throws[0].low]})
    assert status == 409 and "has not ended" in data["error"]
    assert got == []


def test_a_good_amendment_is_accepted_and_handed_on(serve: Serve, flagged) -> None:
    events, turn, throws = flagged
    new = _other(turn, throws)
    got: list[Amended] = []
    web = serve(_view(events), amend=got.append, token=TOKEN)
    status, data = _post(web, {"game": turn.game, "move": turn.move,
                               "dice": [new.low, new.high], "note": "  seen\n on video "})
    assert status == 202 and data["ok"] is True
    assert (data["game"], data["move"], data["dice"]) == (turn.game, turn.move,
                                                          [new.high, new.low])
    assert f"is now {new.high}-{new.low}" in data["text"]
    assert got == [Amended(turn.game, turn.move, Dice(new.low, new.high), "seen on video")]


def test_the_move_list_offers_the_throws_of_a_turn_in_doubt(flagged) -> None:
    events, turn, throws = flagged
    snap = _view(events).snapshot()
    plays = [m for m in snap["moves"] if m["kind"] == "play"]
    offered = [m for m in plays if m["throws"]]
    assert [(m["game"], m["move"]) for m in offered] == [(turn.game, turn.move)]
    assert offered[0]["throws"] == [[d.high, d.low] for d in throws]


# --- the live loops record it -------------------------------------------------------------------


def test_pibg_runs_loop_records_an_amendment_from_the_page(tmp_path: Path, flagged) -> None:
    """The page's amendment, queued by the server, is fed to the referee between frames: it
    lands in the match's journal, the page shows it and the records are written again."""
    from pibg.app import _Live
    from pibg.referee import RefereeConfig

    events, turn, throws = flagged
    new = _other(turn, throws)
    records = tmp_path / "records"
    folder = records / "m1"
    folder.mkdir(parents=True)
    # the match up to the end of the game in doubt
    at = next(i for i, ev in enumerate(events) if ev is turn.moved)
    unfinished = events[:next(i for i, ev in enumerate(events)
                              if i > at and isinstance(ev, GameStarted))]
    with Journal.open(folder / "match.jsonl") as j:
        j.extend(unfinished)
    (records / "ACTIVE").write_text("m1\n")
    cfg = live_config(tmp_path, records)
    said: list[str] = []
    live = _Live(cfg, _Rig(), None, cfg.match.to_settings(), RefereeConfig(stable_seconds=0.0),
                 said.append)
    view = LiveView()
    live.view = view
    assert live.state.match.game is not None
    web = WebServer(view, records_dir=records, port=0, token=TOKEN,
                    amend=live.amendments.append, control=live.controls.append)
    driver = Driver(live, live.observe, stable_seconds=0.0, between=live.between,
                    sinks=[view_sink(view)])
    view.update(referee.resume(tuple(unfinished)))
    with web:
        status, data = _post(web, {"game": turn.game, "move": turn.move,
                                   "dice": [new.high, new.low]})
        assert status == 202, data
        driver.run([])
    assert read_events(folder / "match.jsonl")[-1] == Amended(turn.game, turn.move, new)
    assert any(f"is now {new.high}-{new.low}" in line for line in said)
    shown = [m for m in view.snapshot()["moves"]
             if m["kind"] == "play" and (m["game"], m["move"]) == (turn.game, turn.move)]
    assert shown[0]["dice"] == [new.a, new.b] and shown[0]["flag"] == "" and shown[0]["reviewed"]
    mat = (folder / "match.mat").read_text()
    assert mat == dumps_mat([*unfinished, Amended(turn.game, turn.move, new)])
    assert REVIEWED in (folder / "match.sgf").read_text()


class _Rig:
    def button_events(self) -> list[object]:
        return []

    def show(self, effects: object) -> None:
        pass

    def tick(self) -> None:
        pass


def test_web_replay_records_amendments_after_the_source_ends(tmp_path: Path, flagged) -> None:
    """Once the replay has ended and the page is still served, the page's amendments are fed
    to the referee and the records written again; presses are no longer taken."""
    from pibg.driver import PureReferee
    from pibg.sgf import write_sgf

    events, turn, throws = flagged
    new = _other(turn, throws)
    controls = Controls()
    view = LiveView()
    stop = threading.Event()
    fed = PureReferee(referee.resume(tuple(events)))
    controls("undo")
    controls.amend(Amended(turn.game, turn.move, new))
    controls.amend(Amended(turn.game, 1, new))  # refused: said, not recorded
    written: list[int] = []

    def write() -> None:
        write_sgf(fed.state.events, tmp_path / "match.sgf")
        written.append(1)
        stop.set()

    keep_amending(fed, view, controls, write, poll=0.01, stop=stop)
    got = fed.state.events
    assert got[:len(events)] == tuple(events) and got[len(events):] == (
        Amended(turn.game, turn.move, new),)
    assert written == [1]
    assert REVIEWED in (tmp_path / "match.sgf").read_text()
    said = [line["text"] for line in view.snapshot()["say"]]
    assert any("seen plainly" in line for line in said)
