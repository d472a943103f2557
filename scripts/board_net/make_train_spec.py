"""Write the spec of the extra training renders for the place network: camera set-ups on
``random:SEED`` board styles that are not among the evaluation seeds.

    pip install gnubg          # make_sessions.py decodes gnubg position IDs with it
    python scripts/board_net/make_train_spec.py > train_spec.json
    blender -b --python-exit-code 1 -P ../shared/tools/render/render_board.py -- \\
        --spec train_spec.json --out ~/render/train_boards     # about 20 s a frame, 2 cores
    python scripts/board_net/extract.py train_boards.npz ~/render/train_boards

Each set-up is a start frame (``trnN_00_start``, to calibrate from) and positions from gnubg
self-play, as ``renders/dev``. The seeds (8101 on) are disjoint from the evaluation boards'
(``benchmarks/random_boards``: 7301-7305; ``benchmarks/random_game``: 7401), so those stay
boards the network never saw.
"""

from __future__ import annotations

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
    setups = [(seed, LIGHTS[i % len(LIGHTS)], *CAMERAS[i % len(CAMERAS)])
              for i, seed in enumerate(SEEDS)]
    args = [sys.executable, str(SHARED / "tools/render/make_sessions.py"),
            str(SHARED / "golden/movegen.jsonl"), "81", "trn", str(FRAMES)]
    args += [f"walnut:{light}:{model}:{h}:{t}" for _, light, model, h, t in setups]
    specs = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    for spec in specs:
        setup = int(spec["id"][3:].split("_")[0])
        spec["style"] = f"random:{setups[setup][0]}"
    json.dump(specs, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
