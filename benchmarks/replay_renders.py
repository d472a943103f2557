"""The photoreal rendered game through ``pibg replay``: how much of it the referee records.

``../shared/renders/game/frames`` is game 1 of ``golden/matches/m023_9pt.mat`` as a camera
sees it (start, roll, moved, cube and hand frames). The first frame calibrates the run (board
corners found automatically); every later frame goes through vision and referee. Prints how
many of the game's plays were recorded before the first disagreement, and the first thing the
referee said that was not a recorded play.

    python benchmarks/replay_renders.py [--answer]

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
    args = ap.parse_args()
    frames = SHARED / "renders" / "game" / "frames"
    if not frames.is_dir():
        print("needs ../shared/renders/game (not in a user's clone)")
        return
    truth = json.loads((SHARED / "renders" / "game" / "truth.json").read_text())
    said: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        source = folder_frames(frames, scenes_from_labels(truth))
        pressed: list[int] = []

        def respond(state, truth):  # type: ignore[no-untyped-def]
            presses = attentive(state, truth)
            pressed.append(len(presses))
            return presses

        res = replay(source, Path(tmp), MatchSettings(length=9), printer=said.append,
                     respond=respond if args.answer else None)
        got = [(e.player, e.result) for e in effective_events(res.state.events)
               if isinstance(e, Moved)]
    want = [(e.player, e.result)
            for e in effective_events(read_mat(SHARED / "golden" / "matches" / "m023_9pt.mat"))
            if isinstance(e, Moved)]
    right = agreeing(got, want)
    moved = sum(1 for f in truth if f["kind"] == "moved")
    print("| frames | plays in the game | recorded right, in order | buttons pressed | seconds |")
    print("|---|---|---|---|---|")
    print(f"| {len(truth)} | {moved} | {right} | {sum(pressed)} | "
          f"{time.perf_counter() - t0:.0f} |")
    off = [line for line in said if not line.startswith(("White ", "Black "))][:5]
    print("\nfirst messages other than plays:", *off, sep="\n  ")


if __name__ == "__main__":
    main()
