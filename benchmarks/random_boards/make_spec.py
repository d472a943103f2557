"""Write ``spec.json``: five camera set-ups on ``random:SEED`` board styles nothing was tuned on.

    pip install gnubg          # make_sessions.py decodes gnubg position IDs with it
    python benchmarks/random_boards/make_spec.py > benchmarks/random_boards/spec.json
    blender -b --python-exit-code 1 -P ../shared/tools/render/render_board.py -- \\
        --spec benchmarks/random_boards/spec.json --out ~/render/random_boards   # ~25 min, 2 cores

Each set-up is a start frame (``rndN_00_start``) and 12 positions from gnubg self-play, like
``renders/dev``. ``make_sessions.py`` takes ``STYLE:LIGHT:MODEL:HEIGHT:TILT`` and a
``random:SEED`` style holds a colon, so the set-ups are made on a named style and the style
swapped for ``random:SEED`` afterwards (the style does not enter the positions, camera or light).
The seeds were chosen before any frame was looked at; nothing in pibg is tuned on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"
SETUPS = [  # (style seed, light, camera model, height cm, tilt deg)
    (7301, "warm_ceiling", "v3", 70, 4),
    (7302, "daylight_window", "v3", 65, 6),
    (7303, "desk_lamp", "v3wide", 60, 5),
    (7304, "dim_evening", "v3", 75, 3),
    (7305, "daylight_window", "v3wide", 58, 7),
]


def main() -> int:
    args = [sys.executable, str(SHARED / "tools/render/make_sessions.py"),
            str(SHARED / "golden/movegen.jsonl"), "38", "rnd", "12"]
    args += [f"walnut:{light}:{model}:{h}:{t}" for _, light, model, h, t in SETUPS]
    specs = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    for spec in specs:
        session = int(spec["id"][3:].split("_")[0])
        spec["style"] = f"random:{SETUPS[session][0]}"
    json.dump(specs, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
