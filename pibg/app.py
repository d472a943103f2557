"""The one module that wires the layers together.

camera frames -> :class:`~pibg.vision.pipeline.Vision` -> :mod:`pibg.referee` -> the journal
(crash-safe), the records (.mat, .sgf), the LEDs and display (:class:`~pibg.hw.rig.Rig`) and
the web page. Everything below this module is tested on its own; this one only connects.
Every source goes through the one :class:`~pibg.driver.Driver` loop.

* :func:`replay` referees a recorded source (an image folder, a video file, or the synthetic
  table) and writes the journal plus ``match.mat`` and ``match.sgf``.
* :func:`demo` replays the bundled match, rendered by :mod:`pibg.sim` with a hand passing over,
  a bumped checker, an illegal move put right and the cube in play.
* :func:`run` is the live loop of the Pi service.
"""

from __future__ import annotations

import datetime as _dt
import errno
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pibg import referee
from pibg.camera.base import EndOfFrames
from pibg.driver import Driver, Held, Respond, Timed, lazy_observer, view_sink
from pibg.effects import DISPLAY_LINES, DISPLAY_WIDTH, Effects
from pibg.events import Amended, Event, GameEnded, MatchSettings, Moved
from pibg.exc import CalibrationError, CameraUnavailableError, JournalError, PibgError
from pibg.journal import Journal
from pibg.match import agreeing, effective_events
from pibg.match import plays as match_plays
from pibg.match import replay as replay_match
from pibg.matfile import read_mat, write_mat
from pibg.observation import BoardObservation
from pibg.referee import Amend, Ended, Press, RefereeConfig, Step
from pibg.script import ButtonPress, Mishaps, Scene, table_script
from pibg.sgf import write_sgf

log = logging.getLogger(__name__)

Printer = Callable[[str], None]
Sink = Callable[[Effects], None]

#: the bundled match of ``pibg demo`` (a 5-point match played by GNU Backgammon against
#: itself) and the mishaps planted in it: chosen so the demo shows every kind
DEMO_MATCH = "demo.mat"
DEMO_MISHAPS = Mishaps(illegal=0.08, bump=0.05, hand=0.08, cocked=0.03, seed=7)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass
class Session:
    """A refereed match being recorded: referee state, journal and outputs.

    Opening a folder that already holds a journal resumes that match (after a power cut): the
    referee shows the position it expects and waits until the board matches it. A journal
    damaged in the middle resumes from the events before the damage (the rest is set aside
    beside it, see :meth:`Journal.open`), and an alert on the display says so.

    ``alerts`` are standing problems (a full disk, a repaired journal) shown on the first
    display line above whatever the referee shows, until they are cleared.
    """

    out_dir: Path
    settings: MatchSettings
    config: RefereeConfig = field(default_factory=RefereeConfig)
    printer: Printer | None = None
    sinks: Sequence[Sink] = ()
    clock: Callable[[], str] = _now
    journal: Journal = field(init=False)
    step: Step = field(init=False)
    alerts: dict[str, str] = field(init=False, default_factory=dict)
    #: the records (.mat, .sgf) are behind the journal: the last export failed
    export_pending: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.journal = Journal.open(self.out_dir / "match.jsonl", salvage=True)
        if self.journal.recovery:
            self._say(self.journal.recovery)
            if ".damaged-" in self.journal.recovery:
                self.alerts["journal"] = "JOURNAL REPAIRED"
        events = self.journal.events()
        if events:
            self.step = referee.resume(tuple(events), self.config)
        else:
            self.step = referee.new_match(self.settings, self.config)
            for ev in self.step.events:
                self.journal.append(ev, self.clock())
        self._emit(self.step)

    @property
    def state(self) -> referee.RefereeState:
        return self.step.state

    @property
    def events(self) -> list[Event]:
        return self.journal.events()

    def feed(self, inp: referee.Input) -> Step:
        """One input through the referee; its events are durable before this returns.

        If the journal cannot take them (a full disk), the state falls back to what the
        journal holds, the display says what is wrong, and the error is raised."""
        res = referee.step(self.step.state, inp)
        try:
            for ev in res.events:
                self.journal.append(ev, self.clock())
        except JournalError as exc:
            self.step = referee.resume(tuple(self.journal.events()), self.config)
            problem = Effects.build(display=("RECORDING STOPPED", *str(exc).split(": ")[-1:]))
            for sink in self.sinks:
                sink(problem)
            raise
        self.step = res
        self._emit(res)
        return res

    def _say(self, line: str) -> None:
        if self.printer:
            self.printer(line)

    def _emit(self, res: Step) -> None:
        for line in res.say:
            self._say(line)
        effects = self._with_alerts(res.effects)
        for sink in self.sinks:
            sink(effects)

    def _with_alerts(self, effects: Effects) -> Effects:
        if not self.alerts:
            return effects
        lines = (" ".join(self.alerts.values()), *effects.display)
        return replace(effects, display=tuple(x[:DISPLAY_WIDTH] for x in lines)[:DISPLAY_LINES])

    def alert(self, key: str, text: str | None) -> None:
        """Raise (or with ``None`` clear) a standing alert and show the display again."""
        if self.alerts.get(key) == text:
            return
        if text is None:
            self.alerts.pop(key, None)
        else:
            self.alerts[key] = text
        effects = self._with_alerts(self.step.effects)
        for sink in self.sinks:
            sink(effects)

    def export_safely(self, printer: Printer | None = None) -> bool:
        """:meth:`export`, but a failure (a full disk) only raises the "DISK FULL" alert and
        leaves :attr:`export_pending` set for a later retry: the journal holds every event,
        and refereeing goes on. Says (once per failure spell) what went wrong."""
        try:
            self.export()
        except (OSError, PibgError) as exc:
            full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)
            if not self.export_pending and printer:
                printer(f"records not written ({'disk full' if full else exc}); the journal "
                        f"keeps every event, and they are written again when space returns")
            log.warning("export to %s failed: %s", self.out_dir, exc)
            self.export_pending = True
            self.alert("records", "DISK FULL" if full else "RECORDS NOT SAVED")
            return False
        if self.export_pending and printer:
            printer(f"records written at last: {self.out_dir}")
        self.export_pending = False
        self.alert("records", None)
        return True

    def export(self) -> tuple[Path, Path]:
        """Write ``match.mat`` and ``match.sgf`` beside the journal (atomically)."""
        events = self.journal.events()
        mat, sgf = self.out_dir / "match.mat", self.out_dir / "match.sgf"
        write_mat(events, mat)
        write_sgf(events, sgf)
        return mat, sgf

    def close(self) -> None:
        self.journal.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- sources -------------------------------------------------------------------------------


def folder_frames(folder: Path, truth: Sequence[Scene] | None = None) -> Iterator[Held]:
    """The images of ``folder`` in name order, each a settled frame; ``truth``: what each
    shows, in the same order (labelled frames, for players who answer the referee)."""
    import cv2

    from pibg.camera.replay import IMAGE_SUFFIXES

    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise CameraUnavailableError(f"{folder}: no images (.png/.jpg) in this folder")
    if truth is not None and len(truth) != len(files):
        raise CameraUnavailableError(f"{folder}: {len(files)} images but {len(truth)} labels")
    for i, p in enumerate(files):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise CameraUnavailableError(f"{p}: not an image OpenCV can read")
        yield Held(img, p.name, truth=truth[i] if truth is not None else None)


def video_frames(path: Path) -> Iterator[Timed]:
    import cv2

    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise CameraUnavailableError(f"{path}: cannot open this video (is it a video file?)")
    fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
    i = 0
    try:
        while True:
            ok, img = cap.read()
            if not ok:
                return
            yield Timed(img, i / fps)
            i += 1
    finally:
        cap.release()


def sim_frames(actions: Iterable[ButtonPress | Scene], style: str = "walnut", views: int = 1
               ) -> Iterator[Held | ButtonPress]:
    """Frames of the table from :mod:`pibg.sim`: ``views`` frames of every settled scene
    (the same checkers and dice), each with its own noise, light and camera shake."""
    from pibg.sim import SimScene, render

    # the scene where the dice in view came to rest, and what they show
    thrown: tuple[int, tuple[tuple[int, int], bool] | None] = (-1, None)
    for i, a in enumerate(actions):
        if isinstance(a, ButtonPress):
            yield a
            continue
        if a.dice is None:
            thrown = (-1, None)
        elif thrown[1] != (a.dice, a.cocked):
            thrown = (i, (a.dice, a.cocked))  # a new throw; it lies still until picked up
        # a throw that is no roll: every other one lands a die on the bar, the rest lean a
        # die on a checker's edge
        on_bar = a.cocked and thrown[0] % 2 == 1
        scene = SimScene(a.points, a.bar, a.off, a.dice, a.cocked and not on_bar, a.cube_value,
                         a.cube_owner,  # type: ignore[arg-type]
                         a.hand, seed=i, style=style,  # type: ignore[arg-type]
                         dice_seed=thrown[0] if a.dice is not None else None, bar_die=on_bar,
                         leans_on="checker")
        more = tuple(render(replace(scene, view=k)) for k in range(1, views))
        yield Held(render(scene), f"{i:04d}-{a.kind}", more, a)


def demo_events() -> list[Event]:
    ref = resources.files("pibg") / "data" / DEMO_MATCH
    with resources.as_file(ref) as path:
        return read_mat(path)


# --- replay --------------------------------------------------------------------------------


@dataclass
class ReplayResult:
    out_dir: Path
    journal: Path
    mat: Path
    sgf: Path
    frames: int
    state: referee.RefereeState
    unread: int = 0  # frames vision could not read (a hand over the board, blur, ...)

    def summary(self) -> tuple[list[str], str | None]:
        """What the replay recorded, and why it did not follow the match to the end of its
        last game (None when it did)."""
        moves = [e for e in effective_events(self.state.events) if isinstance(e, Moved)]
        unseen = sum(not e.dice_seen for e in moves)
        flagged = sum(bool(e.flag) or e.illegal for e in moves)
        lines = [f"plays recorded: {len(moves)}; dice not seen (inferred): {unseen}; "
                 f"flagged for review: {flagged}; frames not read: {self.unread} of "
                 f"{self.frames}"]
        st = self.state
        g = st.match.game
        mode = st.mode
        if mode in (referee.Mode.GAME_OVER, referee.Mode.MATCH_OVER):
            return lines, None
        if g is None:
            return lines, "no game was followed: the starting position was never seen"
        where = f"game {len(st.match.games) + 1}, after {g.plays} plays"
        if mode in (referee.Mode.RESYNC, referee.Mode.ILLEGAL, referee.Mode.ASK):
            why = " / ".join(st.message[:2]) or mode.value
            return lines, f"stopped following the game at {where}: {why}"
        return lines, (f"the recording ends in the middle of {where} "
                       f"({st.match.name(g.decider)} {mode.value.replace('_', ' ')})")


def _vision_for(first: np.ndarray[Any, Any], calibration: Path | None,
                corners: Any | None) -> Any:
    from pibg.vision.pipeline import Vision

    if calibration is not None:
        return Vision.from_calibration(calibration)
    return Vision.from_start_frame(first, corners)  # without corners, the board finder's


def replay(
    source: Iterable[Held | Timed | ButtonPress],
    out_dir: Path,
    settings: MatchSettings,
    *,
    calibration: Path | None = None,
    corners: Any | None = None,
    stable_seconds: float = 1.0,
    printer: Printer | None = None,
    observe: Callable[[Any], BoardObservation] | None = None,
    respond: Respond | None = None,
) -> ReplayResult:
    """Referee a recorded source end to end and write the journal, .mat and .sgf.

    Held images (an image folder) are each shown for the stability window; timed frames (a
    video) at their own times (the :class:`~pibg.driver.Driver`'s rules). With no
    ``calibration``, the first frame must show the starting position and calibrates the run
    (``corners`` found automatically if not given). ``respond`` plays the people at the
    table: after each held frame it is given the referee's state and the frame's ``truth``
    and returns the buttons they press.
    """
    cfg = RefereeConfig(stable_seconds=stable_seconds)
    if observe is None:
        observe = lazy_observer(lambda first: _vision_for(first, calibration, corners).observe)
    with Session(out_dir, settings, cfg, printer) as session:
        driver = Driver(session, observe, stable_seconds=stable_seconds, respond=respond)
        driven = driver.run(source)
        if driven.frames == 0:
            raise CameraUnavailableError("the source gave no frames")
        if not driven.stopped:  # the whole source read: a question left open is settled
            driver.feed(Ended(driven.t + stable_seconds))
        try:
            mat, sgf = session.export()
        except (OSError, PibgError) as exc:
            # the journal holds everything; only the derived files could not be written
            if printer:
                printer(f"records not written ({exc}); the journal keeps every event")
            mat, sgf = out_dir / "match.mat", out_dir / "match.sgf"
        return ReplayResult(out_dir, session.journal.path, mat, sgf, driven.frames,
                            session.state, driven.unread)


def open_replay_source(spec: str, style: str = "walnut", mishaps: Mishaps | None = None,
                       views: int = 1
                       ) -> tuple[Iterable[Held | Timed | ButtonPress], MatchSettings | None,
                                  Any | None]:
    """A source from ``spec``: an image folder, a video file, ``sim`` (the bundled match) or
    ``sim:FILE.mat``. Returns the frames, the match settings the source implies (for sim) and
    the board corners when they are known (sim); ``views`` frames of each sim scene."""
    if spec == "sim" or spec.startswith("sim:"):
        from pibg.sim import sim_corners

        events = demo_events() if spec == "sim" else read_mat(spec[4:])
        settings = events[0].settings  # type: ignore[attr-defined]
        actions = table_script(events, mishaps or DEMO_MISHAPS)
        return sim_frames(actions, style, views), settings, sim_corners()
    path = Path(spec)
    if path.is_dir():
        return folder_frames(path), None, None
    if path.is_file():
        return video_frames(path), None, None
    raise PibgError(f"replay source {spec!r}: not an image folder, a video file, 'sim' or "
                    f"'sim:FILE.mat'")


def demo(out_dir: Path, printer: Printer = print) -> ReplayResult:
    """``pibg demo``: the bundled match refereed end to end from synthetic camera frames."""
    source, settings, corners = open_replay_source("sim")
    assert settings is not None
    start = time.perf_counter()
    res = replay(source, out_dir, settings, corners=corners, printer=printer)
    printer(f"refereed {res.frames} frames in {time.perf_counter() - start:.1f} s")
    source_events = demo_events()
    want, got = match_plays(source_events), match_plays(res.state.events)
    same = agreeing(got, want)
    score_ok = res.state.match.score == replay_match(source_events).score
    if got == want and score_ok:
        printer(f"check: all {len(want)} plays and the score are identical to the source match")
    else:
        printer(f"check: {same} of {len(want)} plays identical to the source match before "
                f"the first difference"
                f"{'' if score_ok else ', and the score differs'}")
    return res


# --- the live loop -------------------------------------------------------------------------


def match_folder(records: Path, clock: Callable[[], str] = _now, *, new: bool = False) -> Path:
    """The folder of the match to record: the unfinished one named in ``ACTIVE`` (resumed
    after a restart) unless ``new``, else a new one named by the time.

    A journal damaged in the middle still names an unfinished match: it is resumed from the
    events before the damage (:class:`Session` sets the rest aside). Only a journal whose
    events do not replay at all is left as it is, with a warning in the log."""
    records.mkdir(parents=True, exist_ok=True)
    active = records / "ACTIVE"
    if active.exists() and not new:
        folder = records / active.read_text().strip()
        journal = folder / "match.jsonl"
        if journal.exists():
            from pibg.match import replay as replay_match

            try:
                with Journal.open(journal, readonly=True, salvage=True) as j:
                    events = j.events()
                if not events or not replay_match(events).over:
                    return folder
            except PibgError as exc:
                log.warning("%s: the unfinished match there does not replay (%s); it is kept "
                            "as it is and a new match starts", folder, exc)
    name = clock().replace("+00:00", "Z").replace(":", "")
    folder = records / name
    n = 1
    while folder.exists():
        n += 1
        folder = records / f"{name}-{n}"
    folder.mkdir()
    tmp = active.with_suffix(".tmp")
    tmp.write_text(folder.name + "\n")
    tmp.replace(active)
    return folder


def run(config_path: Path | None, *, buttons: bool = True, pico: bool = True,
        printer: Printer = print, rig_factory: Callable[..., Any] | None = None,
        vision_factory: Callable[[Path], Any] | None = None,
        max_frames: int | None = None) -> int:
    """The Pi service: camera -> vision -> referee -> journal, records, LEDs, display, web.

    Restarted after a crash or a power cut, it resumes the unfinished match from its journal.
    ``rig_factory`` and ``vision_factory`` replace the hardware and the vision stage (tests).
    """
    from pibg.config import load_config
    from pibg.hw.rig import Rig
    from pibg.vision.pipeline import Vision

    cfg = load_config(config_path)
    cal = cfg.vision.calibration
    if not Path(cal).exists():
        raise CalibrationError(f"no calibration at {cal}: set up the start position and run "
                               f"'pibg calibrate --source camera -o {cal}'")
    vision = (vision_factory or Vision.from_calibration)(Path(cal))
    settings = cfg.match.to_settings()
    referee_cfg = RefereeConfig(stable_seconds=cfg.vision.stable_seconds)
    make_rig = rig_factory or Rig
    stop = threading.Event()
    with _stop_on_sigterm(stop, printer), make_rig(cfg, buttons=buttons, pico=pico) as rig:
        live = _Live(cfg, rig, vision, settings, referee_cfg, printer)
        view, web = _start_web(cfg, live.session, live.controls, printer, vision,
                               live.recalibrated, live.amendments)
        live.view = view
        printer(f"recording to {live.session.out_dir}")
        driver = Driver(live, live.observe, stable_seconds=referee_cfg.stable_seconds,
                        sinks=[view_sink(view)] if view is not None else (),
                        between=live.between, stop=stop.is_set, max_frames=max_frames,
                        start_t=time.monotonic())
        try:
            driver.run(_camera(rig, printer))
        finally:
            if web is not None:
                web.close()
            _finish(live.session, printer)
    return 0


def _camera(rig: Any, printer: Printer) -> Iterator[Timed]:
    """The rig's camera frames, each at the time it came; no image when none came within a
    second (time passing). Ends when the camera source does (a recorded one)."""
    while True:
        try:
            frame = rig.read_frame(timeout=1.0)
        except EndOfFrames:
            printer("the camera source has no more frames")
            return
        yield Timed(frame, time.monotonic())


class _Live:
    """What the live loop adds around the :class:`~pibg.driver.Driver`: the match being
    recorded (a new one when the page asks), the calibration in use (a new one when the page
    saves it), and between frames the presses, the records and the LEDs' animation."""

    def __init__(self, cfg: Any, rig: Any, vision: Any, settings: MatchSettings,
                 referee_cfg: RefereeConfig, printer: Printer) -> None:
        from pibg.vision.motion import MotionDetector

        self.cfg, self.rig, self.vision = cfg, rig, vision
        self.settings, self.referee_cfg, self.printer = settings, referee_cfg, printer
        self.motion = MotionDetector()
        self.session = self._session(new=False)
        self.view: Any = None
        #: the page's controls, new calibrations and amendments (dice a reviewer set after a
        #: game), queued by the server's threads
        self.controls: list[str] = []
        self.recalibrated: list[Any] = []
        self.amendments: list[Amended] = []
        self.retry_at = 0.0
        #: the calibration the page's overlay was drawn from (see :meth:`_follow_overlay`)
        self.overlaid: Any = getattr(vision, "calibration", None)

    def _session(self, *, new: bool) -> Session:
        return Session(match_folder(self.cfg.records.directory, new=new), self.settings,
                       self.referee_cfg, self.printer,
                       sinks=[self.rig.show])

    @property
    def state(self) -> referee.RefereeState:
        return self.session.state

    def _follow_overlay(self) -> None:
        """Once vision follows a camera knocked a little (``Vision.calibration_now``), the
        page's overlay is drawn where the board now is, and the players are told."""
        now = getattr(self.vision, "calibration_now", None)
        if now is None or now is self.overlaid:
            return
        self.overlaid = now
        if self.view is not None:
            from pibg.web.overlay import region_overlay

            self.view.set_overlay(region_overlay(now))
        self.printer("the camera or the board moved a little: followed (calibrate again "
                     "when the game allows)")

    def feed(self, inp: referee.Input) -> Step | None:
        return _feed(self.session, inp, self.printer)

    def observe(self, frame: Any) -> BoardObservation:
        return _read(self.vision, self.motion, frame)

    def between(self, driver: Driver) -> None:
        from pibg.vision.pipeline import Vision

        now = driver.t
        presses = [Press(ev.at, ev.referee_button, ev.long) for ev in self.rig.button_events()]
        while self.controls:
            action = self.controls.pop(0)
            if action == "new_match":
                _finish(self.session, self.printer)
                self.session = self._session(new=True)
                driver.fresh.clear()  # the steps before were the finished match's
                if self.view is not None:
                    self.view.update(self.session.step)
                self.printer(f"new match: recording to {self.session.out_dir}")
            elif action == "accept_board":
                presses.append(Press(now, "confirm", long=True))
            else:
                presses.append(Press(now, action))
        for press in presses:
            driver.feed(press)
        while self.amendments:  # recorded by the referee, which checks each again
            driver.feed(Amend(now, self.amendments.pop(0)))
        while self.recalibrated:
            self.vision = Vision(self.recalibrated.pop(0))
            if self.view is not None:
                from pibg.web.overlay import region_overlay

                self.view.set_overlay(region_overlay(self.vision.calibration))
            self.overlaid = self.vision.calibration
            self.printer("new calibration in use")
        self._follow_overlay()
        # a game's end, or dice set after one: the records are written again
        ended = any(isinstance(e, (GameEnded, Amended)) for res in driver.fresh
                    for e in res.events)
        due = ended or (self.session.export_pending and now >= self.retry_at)
        if due and not self.session.export_safely(self.printer):
            self.retry_at = now + EXPORT_RETRY_SECONDS
        if self.view is not None:
            self.view.set_alerts(tuple(self.session.alerts.values()))
        self.rig.tick()


def _read(vision: Any, motion: Any, frame: Any) -> BoardObservation:
    """A camera frame read by vision, unless things are moving over the board: then the
    frame is not read at all (it could not be judged, and the Pi's time is better spent).
    A hand resting still is left to vision, which reports it from the board itself."""
    if isinstance(frame, np.ndarray) and motion.update(frame) == "moving":
        return BoardObservation.unreadable("something is moving over the board")
    obs: BoardObservation = vision.observe(frame)
    return obs


#: seconds between tries to write the records again after a failure (a full disk)
EXPORT_RETRY_SECONDS = 30.0


class _stop_on_sigterm:
    """While entered (in the main thread), SIGTERM sets ``stop`` instead of killing the
    process, so the loop ends its turn and the records, the web server and the rig close
    (``STOPPING=1``) within the unit's ``TimeoutStopSec``."""

    def __init__(self, stop: threading.Event, printer: Printer) -> None:
        self.stop, self.printer = stop, printer
        self.previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.stop.is_set():
            self.printer("SIGTERM: stopping after this frame")
        self.stop.set()

    def __enter__(self) -> _stop_on_sigterm:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
            self.previous = None


def _finish(session: Session, printer: Printer) -> None:
    try:
        if len(session.events) > 1 and session.export_safely(printer):
            printer(f"records: {session.out_dir / 'match.mat'} {session.out_dir / 'match.sgf'}")
    finally:
        session.close()


def _feed(session: Session, inp: referee.Input, printer: Printer) -> Step | None:
    try:
        return session.feed(inp)
    except JournalError as exc:
        printer(f"error: {exc}")
        return None


def _start_web(cfg: Any, session: Session, controls: list[str], printer: Printer,
               vision: Any, recalibrated: list[Any],
               amendments: list[Amended] | None = None) -> tuple[Any, Any]:
    if not cfg.web.enabled:
        return None, None
    from pibg.web import LiveView, WebServer
    from pibg.web.calibration import VisionCalibration
    from pibg.web.overlay import region_overlay

    view = LiveView()
    view.update(session.step)
    view.set_overlay(region_overlay(vision.calibration))
    # the server's threads only queue: the main loop applies presses and new calibrations
    calib = VisionCalibration(view.latest_frame, cfg.vision.calibration,
                              on_saved=recalibrated.append)
    server = WebServer(view, records_dir=cfg.records.directory, host=cfg.web.host,
                       port=cfg.web.port, token=cfg.web.token or None,
                       control=controls.append, calibration=calib,
                       amend=None if amendments is None else amendments.append,
                       allowed_hosts=cfg.web.allowed_hosts)
    server.start()
    printer(f"web page: {server.url}")
    return view, server
