"""Referee latency: from the reading in which the dice are lifted to the verdict.

Plays whole matches at a scripted table (the golden gnubg matches of ``../shared/golden``,
else seeded random matches) and times every referee step that judges a turn (the step whose
input is the stable reading after the dice were lifted), single-threaded. The vision read of
that frame is measured separately by ``benchmarks/vision_speed.py``; the issue's target is
"one frame's processing + 20 ms", so this table shows the referee's share against 20 ms.

    python benchmarks/referee_latency.py [--matches N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from pibg.events import Moved
from pibg.matfile import read_mat
from pibg.referee import Frame, RefereeConfig, new_match, step
from pibg.script import ButtonPress, Mishaps, observe_exact, table_script
from pibg.selfplay import random_match

ROOT = Path(__file__).resolve().parent.parent


def matches(n: int) -> tuple[list[list], str]:
    golden = ROOT.parent / "shared" / "golden" / "matches"
    if golden.is_dir():
        files = sorted(golden.glob("*.mat"))[:n]
        return [read_mat(p) for p in files], f"{len(files)} golden gnubg matches"
    return [random_match(s) for s in range(n)], f"{n} seeded random matches"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=60)
    args = ap.parse_args()
    ms, source = matches(args.matches)
    judge_ms: list[float] = []
    other_ms: list[float] = []
    cfg = RefereeConfig(stable_seconds=1.0)
    for i, events in enumerate(ms):
        script = table_script(events, Mishaps(illegal=0.05, hand=0.1, seed=i))
        st = new_match(events[0].settings, cfg).state
        t = 0.0
        for action in script:
            if isinstance(action, ButtonPress):
                continue
            obs = observe_exact(action)
            for dt in (0.0, 1.01):
                t0 = time.perf_counter()
                res = step(st, Frame(t + dt, obs))
                spent = (time.perf_counter() - t0) * 1000
                st = res.state
                judged = any(isinstance(e, Moved) for e in res.events) or (
                    action.kind in ("moved", "illegal") and dt > 0)
                (judge_ms if judged else other_ms).append(spent)
            t += 2.0
    judge_ms.sort()
    p99 = judge_ms[int(0.99 * (len(judge_ms) - 1))]
    print(f"data: {source}, {len(judge_ms)} judged turns, {len(other_ms)} other steps\n")
    print("| step | count | p50 ms | p99 ms | max ms | target |")
    print("|---|---|---|---|---|---|")
    print(f"| judging a turn (dice lifted -> verdict) | {len(judge_ms)} | "
          f"{statistics.median(judge_ms):.2f} | {p99:.2f} | {judge_ms[-1]:.2f} | p99 <= 20 ms |")
    other_ms.sort()
    print(f"| any other reading | {len(other_ms)} | {statistics.median(other_ms):.3f} | "
          f"{other_ms[int(0.99 * (len(other_ms) - 1))]:.3f} | {other_ms[-1]:.2f} | |")


if __name__ == "__main__":
    main()
