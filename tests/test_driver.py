"""The one loop every source goes through (``pibg.driver``): its timing, its ending rules, and
the same table refereed alike whichever command feeds it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pibg.app import Session, replay
from pibg.commands.web import Controls, feed
from pibg.driver import Driver, Held, Item, PureReferee, Timed, lazy_observer, view_sink
from pibg.events import Event, MatchSettings
from pibg.observation import BoardObservation
from pibg.position import Position
from pibg.referee import Frame, Input, Press, RefereeState, Step, Tick, new_match
from pibg.script import ButtonPress, Mishaps, Scene, drive, observe_exact, table_script
from pibg.selfplay import random_match
from pibg.web import LiveView
from tests.conftest import live_config

START = Scene.of("start", Position.start())
READ = observe_exact(START)


class Recorder:
    """A referee stand-in that keeps every input (and refuses those listed in ``refuse``)."""

    def __init__(self, refuse: tuple[int, ...] = ()) -> None:
        self.first = new_match(MatchSettings(length=1))
        self.inputs: list[Input] = []
        self.refuse = refuse

    @property
    def state(self) -> RefereeState:
        return self.first.state

    def feed(self, inp: Input) -> Step | None:
        self.inputs.append(inp)
        return None if len(self.inputs) - 1 in self.refuse else self.first


def _timeline(inputs: list[Input]) -> list[tuple[str, float]]:
    out = []
    for inp in inputs:
        kind = ("frame" if isinstance(inp, Frame) else "tick" if isinstance(inp, Tick)
                else f"press {inp.button}{' long' if inp.long else ''}")
        out.append((kind, round(inp.t, 6)))
    return out


def test_each_kind_of_item_is_fed_at_its_time() -> None:
    rec = Recorder()
    truth = object()
    answers: list[tuple[RefereeState, object]] = []

    def respond(state: RefereeState, seen: object) -> list[ButtonPress]:
        answers.append((state, seen))
        return [ButtonPress("confirm")]

    source: list[Item] = [Held("a", "a", more=("b", "c")), ButtonPress("undo"), START,
              Held("d", "d", truth=truth), Timed("e", 20.0), Timed(None, 21.5),
              ButtonPress("confirm", long=True)]
    d = Driver(rec, lambda _img: READ, stable_seconds=2.0, respond=respond)
    done = d.run(source)
    assert _timeline(rec.inputs) == [
        ("frame", 0.0), ("frame", 0.1), ("frame", 0.2), ("tick", 2.21),  # held, 2 more frames
        ("press undo", 3.2),  # the window ends at 2.2, the gap at 2.7, the press 0.5 s on
        ("frame", 3.2), ("tick", 5.21),  # a scene is held the same way
        ("frame", 5.7), ("tick", 7.71), ("press confirm", 8.7),  # the players answer
        ("frame", 20.0), ("tick", 21.5),  # frames at their own time; no image: a tick
        ("press confirm long", 22.0),
    ]
    assert answers == [(rec.state, truth)]
    assert done.frames == 6 and done.unread == 0 and not done.stopped
    assert done.t == pytest.approx(22.0)


def test_unreadable_frames_are_counted_and_the_sinks_see_every_step_taken() -> None:
    rec = Recorder(refuse=(1,))  # the journal refuses the second input (a full disk)
    hand = BoardObservation.unreadable("a hand is over the board")
    seen: list[tuple[Input, object]] = []
    d = Driver(rec, lambda img: hand if img == "hand" else READ,
               sinks=[lambda inp, _res, image: seen.append((inp, image))])
    done = d.run([Held("hand", "1"), Timed("board", 9.0)])
    assert (done.frames, done.unread) == (2, 1)
    assert [(type(inp).__name__, image) for inp, image in seen] == [
        ("Frame", "hand"), ("Frame", "board")]  # the refused tick is not shown


def test_between_runs_before_the_first_item_after_each_and_after_the_last() -> None:
    rec = Recorder()
    calls: list[tuple[int, int]] = []

    def between(d: Driver) -> None:
        calls.append((len(rec.inputs), len(d.fresh)))
        if len(calls) == 2:
            d.t += 0.1
            d.feed(Press(d.t, "undo"))  # what came meanwhile (the page's controls)

    Driver(rec, lambda _img: READ, between=between).run([START, Timed("x", 5.0)])
    assert calls == [(0, 0), (2, 2), (4, 1)]  # fresh: the steps since the last call
    assert _timeline(rec.inputs)[2] == ("press undo", 1.6)


def test_the_driver_ends_at_the_end_of_the_source() -> None:
    pulled: list[int] = []

    def source() -> Iterator[Timed]:
        for i in range(3):
            pulled.append(i)
            yield Timed("x", float(i))

    done = Driver(Recorder(), lambda _img: READ).run(source())
    assert pulled == [0, 1, 2] and done.frames == 3 and not done.stopped


def test_a_stop_request_ends_the_drive_before_the_next_item_is_read() -> None:
    stop = threading.Event()
    pulled: list[int] = []

    def source() -> Iterator[Timed]:
        for i in range(10):
            pulled.append(i)
            if i == 3:
                stop.set()  # SIGTERM while the fourth frame is read
            yield Timed("x", float(i))

    rec = Recorder()
    done = Driver(rec, lambda _img: READ, stop=stop.is_set).run(source())
    assert done.stopped and done.frames == 4 and pulled == [0, 1, 2, 3]
    assert len(rec.inputs) == 4  # the frame being read was fed, nothing after it

    rec = Recorder()
    done = Driver(rec, lambda _img: READ, max_frames=2).run(Timed("x", float(i))
                                                            for i in range(10))
    assert done.stopped and done.frames == 2 and len(rec.inputs) == 2


def test_a_paced_replay_waits_half_the_delay_twice_per_held_view() -> None:
    waits: list[float] = []
    Driver(Recorder(), lambda _img: READ, delay=0.4, pace=waits.append).run(
        [START, Timed("x", 9.0), ButtonPress("undo"), START])
    assert waits == [0.2, 0.2, 0.2, 0.2]
    waits.clear()
    Driver(Recorder(), lambda _img: READ, pace=waits.append).run([START])
    assert waits == []  # no delay: no waiting


def test_a_lazy_observer_builds_its_vision_from_the_first_frame_only() -> None:
    built: list[str] = []

    def make(first: str):  # type: ignore[no-untyped-def]
        built.append(first)
        return lambda _img: READ

    observe = lazy_observer(make)
    assert observe("first") is READ and observe("second") is READ
    assert built == ["first"]


def test_the_view_sink_shows_frames_with_their_reading() -> None:
    view = LiveView()
    sink = view_sink(view)
    first = new_match(MatchSettings(length=1))
    sink(Frame(0.0, READ), first, None)
    assert view.snapshot()["mode"] == first.state.mode.value


# --- the same table, whichever command feeds it ----------------------------------------------


def _events(seed: int) -> list[Event]:
    return random_match(seed, MatchSettings(length=3, white="alice", black="bob"))


def _script(events: list[Event]) -> list[Scene | ButtonPress]:
    return table_script(events, Mishaps(illegal=0.2, bump=0.1, hand=0.1, cocked=0.1, seed=2))


@pytest.mark.parametrize("seed", [3, 8])
def test_replay_web_replay_and_the_referees_drive_record_the_same_events(
        tmp_path: Path, seed: int) -> None:
    events = _events(seed)
    settings: MatchSettings = events[0].settings  # type: ignore[attr-defined]
    script = _script(events)
    # pibg replay / demo: held images (here the scenes themselves), vision = a perfect reading
    source = [a if isinstance(a, ButtonPress) else Held(a, a.kind) for a in script]
    said_replay: list[str] = []
    res = replay(source, tmp_path / "replay", settings, observe=observe_exact,
                 printer=said_replay.append)
    # pibg web-replay --no-camera: the scenes behind the live page
    view = LiveView()
    said_web: list[str] = []
    with Session(tmp_path / "web", settings, printer=said_web.append) as session:
        view.update(session.step)
        frames = feed(script, session, view, observe=observe_exact, controls=Controls())
        web_events = session.events
    # the referee's tests: the pure referee, nothing recorded
    pure = drive(script, settings)
    assert res.state.events == tuple(web_events) == pure.events
    assert said_replay == said_web
    assert frames == res.frames == sum(isinstance(a, Scene) for a in script)
    assert view.snapshot()["moves"]


def test_the_pure_referee_is_the_journalled_one_without_the_journal(tmp_path: Path) -> None:
    events = _events(5)
    settings: MatchSettings = events[0].settings  # type: ignore[attr-defined]
    script = _script(events)
    pure = PureReferee(new_match(settings))
    Driver(pure, observe_exact).run(script)
    with Session(tmp_path, settings) as session:
        Driver(session, observe_exact).run(script)
        assert session.state.events == pure.state.events
        assert session.events == list(pure.state.events)


# --- the live loop's chores between frames ---------------------------------------------------


class _Rig:
    """A stand-in rig for the live loop's chores: buttons pressed, what it shows, its ticks."""

    def __init__(self) -> None:
        self.buttons: list[tuple[str, bool]] = []
        self.shown: list[object] = []
        self.ticks = 0

    def button_events(self) -> list[object]:
        out: list[object] = [_Ev(b, long) for b, long in self.buttons]
        self.buttons.clear()
        return out

    def show(self, effects: object) -> None:
        self.shown.append(effects)

    def tick(self) -> None:
        self.ticks += 1


class _Ev:
    def __init__(self, button: str, long: bool) -> None:
        self.at, self.referee_button, self.long = 7.0, button, long


class _Exact:
    calibration = None

    def observe(self, scene: Scene) -> BoardObservation:
        return observe_exact(scene)


def test_the_live_loop_presses_buttons_and_controls_and_starts_a_new_match(
        tmp_path: Path) -> None:
    from pibg.app import _Live
    from pibg.referee import RefereeConfig

    cfg = live_config(tmp_path)
    rig, said = _Rig(), list[str]()
    live = _Live(cfg, rig, _Exact(), cfg.match.to_settings(), RefereeConfig(stable_seconds=0.0),
                 said.append)
    fed: list[Input] = []
    driver = Driver(live, live.observe, stable_seconds=0.0, between=live.between,
                    sinks=[lambda inp, _res, _img: fed.append(inp)])
    first = live.session.out_dir
    rig.buttons.append(("undo", False))
    live.controls.append("accept_board")
    done = driver.run([Timed(START, 1.0), Timed(None, 2.0)])
    assert not done.stopped and done.frames == 1
    # before the first frame: the rig's button at its own time, the page's long confirm at
    # the loop's time; then the frame and the tick
    assert _timeline(fed) == [("press undo", 7.0), ("press confirm long", 0.0),
                              ("frame", 1.0), ("tick", 2.0)]
    assert rig.ticks == 3  # before the first item, after each
    assert "undo: nothing to take back" in said
    live.controls.append("new_match")
    driver.run([])
    assert live.session.out_dir != first and live.session.out_dir.parent == first.parent
    assert any(line.startswith("new match: recording to") for line in said)
    live.session.close()


def test_the_live_loop_redraws_the_overlay_where_vision_follows_the_camera(
        tmp_path: Path) -> None:
    """A camera knocked a little is followed by vision (``Vision.calibration_now``): the
    page's overlay is drawn anew where the board now is, and the players are told."""
    import dataclasses

    from pibg.app import _Live
    from pibg.referee import RefereeConfig
    from pibg.vision.calibrate import Calibration

    cal = Calibration.load(Path(__file__).parent / "data/vision/sim_walnut.toml")
    moved = dataclasses.replace(cal, corners=tuple((x + 9.0, y) for x, y in cal.corners))

    class _Following(_Exact):
        calibration = cal
        calibration_now = cal

        def observe(self, scene: Scene) -> BoardObservation:
            self.calibration_now = moved  # this frame's board moved, and was followed
            return super().observe(scene)

    class _View:
        def __init__(self) -> None:
            self.overlays: list[object] = []

        def set_overlay(self, draw: object) -> None:
            self.overlays.append(draw)

        def __getattr__(self, name: str) -> object:
            return lambda *a, **k: None

    cfg = live_config(tmp_path)
    said: list[str] = []
    live = _Live(cfg, _Rig(), _Following(), cfg.match.to_settings(),
                 RefereeConfig(stable_seconds=0.0), said.append)
    live.view = _View()
    driver = Driver(live, live.observe, stable_seconds=0.0, between=live.between)
    driver.run([Timed(START, 1.0), Timed(None, 2.0)])
    assert len(live.view.overlays) == 1 and live.overlaid is moved
    assert sum("moved a little: followed" in line for line in said) == 1
    driver.run([Timed(START, 3.0)])
    assert len(live.view.overlays) == 1  # drawn once for each move followed
    live.session.close()
