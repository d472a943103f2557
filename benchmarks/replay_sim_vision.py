"""Golden matches through the whole pipeline: pibg.sim frames -> vision -> referee -> .mat.

Each match of ``../shared/golden/matches`` is played at a synthetic table (hands, bumps,
planted illegal moves), every frame rendered by ``pibg.sim`` and read by the vision stage.
A match counts as right when the .mat written has exactly the source's plays (players and
resulting positions) and final score. About a minute a match here (the dice stage).

    python benchmarks/replay_sim_vision.py [--matches 20] [--jobs 2] [--style walnut] [--views 1]
        [--answer]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pibg

from pibg.app import open_replay_source, replay
from pibg.events import IllegalFlagged, Moved
from pibg.match import agreeing, effective_events
from pibg.match import replay as replay_match
from pibg.matfile import read_mat
from pibg.position import Color
from pibg.referee import RefereeState
from pibg.script import ButtonPress, Mishaps, Scene, attentive, table_script

GOLDEN = Path(__file__).resolve().parent.parent.parent / "shared" / "golden" / "matches"


def one(args: tuple[str, int, str, int, bool]) -> dict[str, object]:
    path, seed, style, views, answer = args
    t0 = time.perf_counter()
    source_events = read_mat(path)
    want = [(e.player, e.result) for e in effective_events(source_events)
            if isinstance(e, Moved)]
    mishaps = Mishaps(illegal=0.05, hand=0.1, bump=0.03, cocked=0.03, seed=seed)
    planted = {(a.points, a.bar) for a in table_script(source_events, mishaps)
               if isinstance(a, Scene) and a.kind == "illegal"}
    src, settings, corners = open_replay_source(f"sim:{path}", style=style, views=views,
                                                mishaps=mishaps)
    assert settings is not None
    presses: list[ButtonPress] = []

    def players(state: RefereeState, scene: Any) -> list[ButtonPress]:
        out = attentive(state, scene)
        presses.extend(out)
        return out

    with tempfile.TemporaryDirectory() as tmp:
        res = replay(src, Path(tmp), settings, corners=corners,
                     respond=players if answer else None)
        got = [(e.player, e.result) for e in effective_events(res.state.events)
               if isinstance(e, Moved)]
    agree = agreeing(got, want)
    same = got == want and res.state.match.score == replay_match(source_events).score
    flags = set()
    for e in res.state.events:
        if isinstance(e, IllegalFlagged) and e.seen is not None:
            pos = e.seen
            flags.add((pos.signed(), (pos.bar(Color.WHITE), pos.bar(Color.BLACK))))
    return {"name": Path(path).name, "plays": len(want), "agree": agree, "frames": res.frames,
            "same": same, "planted": len(planted), "caught": len(planted & flags),
            "false": len(flags - planted), "presses": len(presses),
            "secs": time.perf_counter() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--style", default="walnut", choices=["walnut", "tournament", "oak"])
    ap.add_argument("--views", type=int, default=1,
                    help="frames rendered of every settled scene (weighed together)")
    ap.add_argument("--first", type=int, default=0, help="skip this many matches")
    ap.add_argument("--answer", action="store_true",
                    help="the players answer the referee's questions (pibg.script.attentive)")
    args = ap.parse_args()
    files = sorted(GOLDEN.glob("*.mat"))[args.first: args.first + args.matches]
    if not files:
        print("needs ../shared/golden/matches (not in a user's clone)")
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one, [(str(p), args.first + i, args.style, args.views, args.answer)
                                   for i, p in enumerate(files)]))
    print(f"style {args.style}, {len(rows)} golden matches, {args.views} frame(s) a scene\n")
    print("| match | plays | recorded right, in order | frames | identical | planted illegal "
          "| flagged | other boards flagged | presses | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} | {r['plays']} | {r['agree']} | {r['frames']} | "
              f"{'yes' if r['same'] else 'no'} | {r['planted']} | {r['caught']} | {r['false']} "
              f"| {r['presses']} | {r['secs']:.0f} |")
    keys = ("same", "plays", "agree", "planted", "caught", "false", "presses")
    total = {k: sum(int(str(r[k]) == "True") if k == "same" else int(str(r[k])) for r in rows)
             for k in keys}
    print(f"\n{total['same']} of {len(rows)} matches identical; {total['agree']} of "
          f"{total['plays']} plays recorded right before a first disagreement; "
          f"{total['caught']} of {total['planted']} planted illegal moves flagged; "
          f"{total['false']} other boards flagged illegal; {total['presses']} presses by the "
          f"players")

if __name__ == "__main__":
    main()
