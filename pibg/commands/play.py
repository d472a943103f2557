"""``pibg demo``, ``pibg replay`` and ``pibg run``: refereeing from frames."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from pibg.commands import add_match_kind, add_out
from pibg.events import MatchSettings
from pibg.exc import JournalError, PibgError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("demo", help="referee the bundled match from synthetic camera frames",
                       description="Replays a bundled match (GNU Backgammon against itself) as "
                       "a camera would see it, with a hand passing over, a bumped checker, an "
                       "illegal move put right and the cube in play; prints the refereeing "
                       "and the files written.")
    add_out(d, "folder for the journal, .mat and .sgf (default: a new temp folder)")
    d.add_argument("--force", action="store_true",
                   help="replace a match journal already in that folder (refused without it)")
    d.set_defaults(handler=run_demo)

    r = sub.add_parser("replay", help="referee a recorded source: image folder, video or sim",
                       description="Runs vision and referee over SOURCE (an image folder read "
                       "in name order, each image one settled frame; a video file; 'sim' for "
                       "the bundled match or 'sim:FILE.mat') and writes match.jsonl, match.mat "
                       "and match.sgf into --out.")
    r.add_argument("source", help="an image folder, a video file, 'sim' or 'sim:FILE.mat'")
    r.add_argument("--calibration", type=Path, default=None,
                   help="calibration TOML (default: calibrate from the first frame, which must "
                   "show the starting position)")
    r.add_argument("--corners", default=None,
                   help="board corners 'x,y;x,y;x,y;x,y' (TL;TR;BR;BL), quoted in a shell")
    add_out(r, "folder for match.jsonl, match.mat and match.sgf (default: replay-out)",
            default=Path("replay-out"))
    add_match_kind(r)
    r.add_argument("--white", default="White", help="White's name in the records (default White)")
    r.add_argument("--black", default="Black", help="Black's name in the records (default Black)")
    r.add_argument("--stable", type=float, default=1.0,
                   help="seconds a reading must hold before it is judged (default 1.0)")
    r.add_argument("--quiet", action="store_true",
                   help="print only the score and the files written, not each verdict")
    r.set_defaults(handler=run_replay)

    g = sub.add_parser("run", help="the live referee (the Pi service)",
                       description="Referees a match live from the camera: reads the board, "
                       "judges every move, drives the buttons, LEDs, display and live page, and "
                       "journals the match so that a restart resumes it.")
    g.add_argument("--config", type=Path, default=None, help="pibg.toml (default: /etc/pibg)")
    g.add_argument("--no-buttons", action="store_true", help="run without GPIO buttons")
    g.add_argument("--no-pico", action="store_true", help="run without the LED/display Pico")
    g.set_defaults(handler=run_live)


def run_demo(args: argparse.Namespace) -> int:
    from pibg.app import demo

    out = args.out or Path(tempfile.mkdtemp(prefix="pibg-demo-"))
    journal = out / "match.jsonl"
    if journal.exists() and journal.stat().st_size:
        if not args.force:
            raise JournalError(f"{journal}: a match journal is already there; choose another "
                               f"folder, or --force to replace it")
        journal.unlink()  # else the demo would carry on from the match recorded there
    res = demo(out)
    _report(res)
    return 0


def _report(res: object) -> None:
    from pibg.app import ReplayResult

    assert isinstance(res, ReplayResult)
    m = res.state.match
    print(f"score: {m.settings.white} {m.score[0]} - {m.score[1]} {m.settings.black}")
    print(f"journal: {res.journal}")
    print(f"gnubg/XG match file: {res.mat}")
    print(f"gnubg SGF: {res.sgf}")


def run_replay(args: argparse.Namespace) -> int:
    from pibg.app import open_replay_source, replay
    from pibg.vision.calibrate import parse_corners

    source, implied, sim_corners = open_replay_source(args.source)
    if args.money:
        settings = MatchSettings(length=0, white=args.white, black=args.black)
    elif args.match_length is not None:
        if args.match_length < 1:
            raise PibgError("--match-length must be 1 or more (or use --money)")
        settings = MatchSettings(length=args.match_length, white=args.white, black=args.black)
    elif implied is not None:
        settings = implied
    else:
        raise PibgError("say how the match is played: --match-length N or --money")
    corners = parse_corners(args.corners) if args.corners else sim_corners
    res = replay(source, args.out, settings, calibration=args.calibration, corners=corners,
                 stable_seconds=args.stable, printer=None if args.quiet else print)
    _report(res)
    lines, failed = res.summary()
    print(*lines, sep="\n")
    if failed:
        print(f"pibg replay: {failed}", file=sys.stderr)
        return 1
    print("followed the match to the end of its last game")
    return 0


def run_live(args: argparse.Namespace) -> int:
    from pibg.app import run

    return run(args.config, buttons=not args.no_buttons, pico=not args.no_pico,
               printer=lambda line: print(line, file=sys.stdout, flush=True))
