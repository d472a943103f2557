"""The photoreal rendered game through ``pibg replay``: how much of it the referee records.

``../shared/renders/game/frames`` is game 1 of ``golden/matches/m023_9pt.mat`` as a camera
sees it (start, roll, moved, cube and hand frames). The first frame calibrates the run (board
corners found automatically); every later frame goes through vision and referee. Prints how
many of the game's plays were recorded before the first disagreement, and the first thing the
referee said that was not a recorded play.

    python benchmarks/replay_renders.py [--answer]
    python benchmarks/replay_renders.py --frames DIR --truth TRUTH.json --match M.mat --length N

The second form replays another rendered game: ``benchmarks/random_game`` holds the spec of
one on a ``random:SEED`` board style nothing was tuned on (game 1 of
``golden/matches/m036_5pt.mat``; its README says how to render it).

With ``--answer`` the players answer the referee's questions from what they see
(``pibg.script.attentive``, given each frame's truth from ``truth.json``): "yes, those were
the dice" when a die was not found or was read as cocked, and the like.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from pibg.app import folder_frames, replay
from pibg.events import MatchSettings, Moved
from pibg.match import agreeing, effective_events
from pibg.matfile import read_mat
from pibg.script import attentive, scenes_from_labels

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answer", action="store_true",
                    help="the players answer the referee's questions (pibg.script.attentive)")
    ap.add_argument("--frames", type=Path, default=SHARED / "renders" / "game" / "frames")
    ap.add_argument("--truth", type=Path, default=SHARED / "renders" / "game" / "truth.json")
    ap.add_argument("--match", type=Path,
                    default=SHARED / "golden" / "matches" / "m023_9pt.mat",
                    help="the .mat whose game 1 the frames show")
    ap.add_argument("--length", type=int, default=9, help="the match's length")
    args = ap.parse_args()
    frames = args.frames
    if not frames.is_dir():
        print(f"needs {frames} (not in a user's clone)")
        return
    truth = json.loads(args.truth.read_text())
    said: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        source = folder_frames(frames, scenes_from_labels(truth))
        pressed: list[int] = []

        def respond(state, truth):  # type: ignore[no-untyped-def]
            presses = attentive(state, truth)
            pressed.append(len(presses))
            return presses

        res = replay(source, Path(tmp), MatchSettings(length=args.length), printer=said.append,
                     respond=respond if args.answer else None)
        got = [(e.player, e.result) for e in effective_events(res.state.events)
               if isinstance(e, Moved)]
        summary, failed = res.summary()
    want = [(e.player, e.result) for e in effective_events(read_mat(args.match))
            if isinstance(e, Moved)]
    right = agreeing(got, want)
    moved = sum(1 for f in truth if f["kind"] == "moved")
    print("| frames | plays in the game | recorded right, in order | buttons pressed | seconds |")
    print("|---|---|---|---|---|")
    print(f"| {len(truth)} | {moved} | {right} | {sum(pressed)} | "
          f"{time.perf_counter() - t0:.0f} |")
    off = [line for line in said if not line.startswith(("White ", "Black "))][:5]
    print("\nfirst messages other than plays:", *off, sep="\n  ")
    print("\nreplay summary:", *summary, sep="\n  ")
    print(f"  followed to the end: {'yes' if failed is None else 'no: ' + failed}")


if __name__ == "__main__":
    main()
