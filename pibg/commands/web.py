"""``pibg web-replay``: the live web page, fed by a replayed source instead of the camera.

    pibg web-replay sim                      # the bundled match, rendered frames, port 8080
    pibg web-replay sim --no-camera --delay 0.3
    pibg web-replay FOLDER --match-length 5 --port 8081

For trying the page on a laptop: the source is refereed at a watchable pace, the journal and
records go into ``-o``/``--out`` (a temp folder by default), and the page stays up until Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pibg.commands import add_match_kind, add_out
from pibg.events import Amended, MatchSettings
from pibg.exc import PibgError


def register(sub: Any) -> None:
    w = sub.add_parser("web-replay", help="serve the live web page fed by a replayed source",
                       description="Referees SOURCE ('sim', 'sim:FILE.mat', an image folder or "
                       "a video) at a watchable pace and serves the live web page for it.")
    w.add_argument("source", help="'sim', 'sim:FILE.mat', an image folder or a video file")
    w.add_argument("--host", default="127.0.0.1",
                   help="address to serve on (default 127.0.0.1: this machine only)")
    w.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 = any free)")
    w.add_argument("--token", default=None, help="enable the page's controls with this token")
    add_out(w, "records folder (default: a new temp folder)", old=["--records"])
    w.add_argument("--delay", type=float, default=1.0,
                   help="seconds each settled frame is shown (default 1.0)")
    w.add_argument("--no-camera", action="store_true",
                   help="sim only: feed perfect readings, no rendered frames (fast, camera-free)")
    add_match_kind(w)
    w.add_argument("--corners", default=None, help="board corners 'x,y;x,y;x,y;x,y' (TL;TR;BR;BL)")
    w.add_argument("--exit", action="store_true", help="stop when the source ends")
    w.set_defaults(handler=run_web_replay)


class Controls:
    """Presses and amendments (dice a reviewer set after a game) from the page, queued for
    the feeding loop (``control`` and ``amend`` run on server threads)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[str | Amended] = queue.Queue()

    def __call__(self, action: str) -> None:
        if action == "new_match":
            raise PibgError("a replay cannot start a new match")
        self.queue.put(action)

    def amend(self, amended: Amended) -> None:
        self.queue.put(amended)

    def drain(self) -> list[str | Amended]:
        out = []
        while True:
            try:
                out.append(self.queue.get_nowait())
            except queue.Empty:
                return out


def _input(action: str | Amended, t: float) -> Any:
    from pibg.referee import Amend, Press

    if isinstance(action, Amended):
        return Amend(t, action)
    if action == "accept_board":
        return Press(t, "confirm", long=True)
    return Press(t, action)


def keep_amending(fed: Any, view: Any, controls: Controls, written: Callable[[], object],
                  *, poll: float = 0.25, stop: threading.Event | None = None) -> None:
    """Once the source has ended, while the page is still served: record the dice a reviewer
    sets on the page (``fed`` checks each and records it; ``written()`` then writes the
    records again) until ``stop`` is set (or Ctrl-C). Presses are no longer taken."""
    from pibg.referee import Amend

    while not (stop is not None and stop.is_set()):
        time.sleep(poll)
        for item in controls.drain():
            if not isinstance(item, Amended):
                continue
            res = fed.feed(Amend(0.0, item))
            if res is None:
                continue
            view.update(res)
            for line in res.say:
                print(line, flush=True)
            if res.events:
                written()


def feed(items: Iterable[Any], session: Any, view: Any, *, observe: Callable[[Any], Any],
         delay: float = 0.0, stop: threading.Event | None = None,
         controls: Controls | None = None, stable_seconds: float = 1.0) -> int:
    """Feed replayed items (``Held``/``Timed`` frames, ``ButtonPress``, or ``Scene`` with
    ``observe`` = ``observe_exact``) through ``session`` into ``view``, by the
    :class:`~pibg.driver.Driver` every source goes through: each held view is shown for
    ``delay`` seconds, and the page's controls are pressed before each item and after the
    last. Returns frames fed."""
    from pibg.driver import Driver, view_sink

    def between(driver: Driver) -> None:
        for action in controls.drain() if controls else ():
            driver.t += 0.1
            driver.feed(_input(action, driver.t))

    driver = Driver(session, observe, stable_seconds=stable_seconds, sinks=[view_sink(view)],
                    between=between, delay=delay, pace=time.sleep,
                    stop=stop.is_set if stop is not None else None)
    return driver.run(items).frames


def run_web_replay(args: argparse.Namespace) -> int:
    from pibg.app import Session, open_replay_source
    from pibg.referee import RefereeConfig
    from pibg.web import LiveView, WebServer
    from pibg.web.calibration import VisionCalibration

    records = args.out or Path(tempfile.mkdtemp(prefix="pibg-web-"))
    items: Iterable[Any]
    if args.no_camera:
        if not (args.source == "sim" or args.source.startswith("sim:")):
            raise PibgError("--no-camera needs a sim source ('sim' or 'sim:FILE.mat')")
        from pibg.app import DEMO_MISHAPS, demo_events
        from pibg.matfile import read_mat
        from pibg.script import observe_exact, table_script

        events = demo_events() if args.source == "sim" else read_mat(args.source[4:])
        implied: MatchSettings | None = events[0].settings  # type: ignore[attr-defined]
        items, corners = table_script(events, DEMO_MISHAPS), None
        observe: Callable[[Any], Any] | None = observe_exact
    else:
        items, implied, corners = open_replay_source(args.source)
        observe = None
    if args.corners:
        from pibg.vision.calibrate import parse_corners

        corners = parse_corners(args.corners)
    if args.money or args.match_length == 0:  # --match-length 0: money, as it was once spelt
        settings = MatchSettings(length=0)
    elif args.match_length is not None:
        if args.match_length < 1:
            raise PibgError("--match-length must be 1 or more (or use --money)")
        settings = MatchSettings(length=args.match_length)
    elif implied is not None:
        settings = implied
    else:
        raise PibgError("say how the match is played: --match-length N or --money")
    view = LiveView()
    controls = Controls()
    calib = VisionCalibration(view.latest_frame, records / "calibration.toml",
                              default_corners=None if corners is None else corners.tolist())
    web = WebServer(view, records_dir=records, host=args.host, port=args.port,
                    token=args.token, control=controls, amend=controls.amend,
                    calibration=calib)
    try:
        web.start()
    except OSError as exc:
        if args.out is None:  # leave no empty temp folder behind
            shutil.rmtree(records, ignore_errors=True)
        raise PibgError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc} "
                        f"(another server there? choose another --port, or 0 for any free "
                        f"one)") from None
    with web:
        print(f"pibg web-replay: the page is at {web.url} (records in {records})", flush=True)
        match_dir = records / time.strftime("replay-%Y%m%d-%H%M%S")
        with Session(match_dir, settings, RefereeConfig(), print) as recorder:
            view.update(recorder.step)
            if observe is None:
                observe = _camera_observer(corners, view)
            feed(items, recorder, view, observe=observe, delay=args.delay, controls=controls)
            mat, sgf = recorder.export()
            print(f"replay done: {mat}, {sgf}", flush=True)
            if not args.exit:
                print("serving until Ctrl-C (dice set on the page after a game are recorded)",
                      flush=True)
                with contextlib.suppress(KeyboardInterrupt):
                    keep_amending(recorder, view, controls, recorder.export)
    return 0


def _camera_observer(corners: Any, view: Any) -> Callable[[Any], Any]:
    """Vision for a camera source, calibrated lazily from its first frame (the start)."""
    from pibg.driver import lazy_observer
    from pibg.web.overlay import region_overlay

    def make(first: Any) -> Callable[[Any], Any]:
        from pibg.vision.pipeline import Vision

        vision = Vision.from_start_frame(first, corners)  # None: the board finder's
        view.set_overlay(region_overlay(vision.calibration))
        return vision.observe

    return lazy_observer(make)
