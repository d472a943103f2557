"""Write the spec of the extra training renders for the place network: camera set-ups on
``random:SEED`` board styles that are not among the evaluation seeds.

    pip install gnubg          # make_sessions.py decodes gnubg position IDs with it
    python scripts/board_net/make_train_spec.py > train_spec.json
    python scripts/board_net/make_train_spec.py --seeds 8113-8148 --frames 3 \
        --resolution 800x600 --prefix trm > more_spec.json      # about 12 s a frame
    blender -b --python-exit-code 1 -P ../shared/tools/render/render_board.py -- \\
        --spec train_spec.json --out ~/render/train_boards     # about 20 s a frame, 2 cores
    python scripts/board_net/extract.py train_boards.npz ~/render/train_boards

Each set-up is a start frame (``trnN_00_start``, to calibrate from) and positions from gnubg
self-play, as ``renders/dev``. The seeds (8101 on) are disjoint from the evaluation boards'
(``benchmarks/random_boards``: 7301-7305 and 7311-7315; ``benchmarks/random_game``: 7401-7403),
so those stay boards the network never saw. ``--seeds``, ``--frames`` (positions per set-up,
after its start frame) and ``--prefix`` make other sets; ``--resolution`` renders smaller frames
(many more board styles in the same time: the network reads a checker at 17 pixels, which a
800x600 frame still gives).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"
LIGHTS = ("warm_ceiling", "daylight_window", "desk_lamp", "dim_evening")
CAMERAS = (("v3", 70, 4), ("v3wide", 58, 6), ("v3", 65, 7), ("v3", 78, 3), ("v3wide", 62, 4))
SEEDS = range(8101, 8113)
FRAMES = 4


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default=f"{SEEDS[0]}-{SEEDS[-1]}", help="FIRST-LAST")
    ap.add_argument("--frames", type=int, default=FRAMES)
    ap.add_argument("--prefix", default="trn")
    ap.add_argument("--resolution", default="", help="WIDTHxHEIGHT (default 1280x960)")
    a = ap.parse_args()
    first, last = (int(x) for x in a.seeds.split("-"))
    seeds = range(first, last + 1)
    setups = [(seed, LIGHTS[i % len(LIGHTS)], *CAMERAS[i % len(CAMERAS)])
              for i, seed in enumerate(seeds)]
    args = [sys.executable, str(SHARED / "tools/render/make_sessions.py"),
            str(SHARED / "golden/movegen.jsonl"), str(first // 100), a.prefix, str(a.frames)]
    args += [f"walnut:{light}:{model}:{h}:{t}" for _, light, model, h, t in setups]
    specs = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    for spec in specs:
        setup = int(spec["id"][len(a.prefix):].split("_")[0])
        spec["style"] = f"random:{setups[setup][0]}"
        if a.resolution:
            w, h = (int(x) for x in a.resolution.split("x"))
            spec["camera"]["resolution"] = [w, h]
    json.dump(specs, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
