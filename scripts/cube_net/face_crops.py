"""Save the patch the pipeline reads an owned cube's number from, for named rendered frames
(the test fixtures ``tests/data/vision/cube_*.png`` were made so).

    python scripts/cube_net/face_crops.py OUTDIR FRAME.jpg [FRAME.jpg ...]

Each frame's set-up is calibrated from its start frame (``NAME_00_start.jpg`` beside it) as
a user calibrates it (``benchmarks/leave_one_out.py``'s ``calibrate_as_user``: the corners
the board finder finds), the frame read, and the first patch handed to
``cube.read_cube_face`` written to ``OUTDIR/cube_FRAME_VALUE.png`` (VALUE the labelled
number). Frames whose cube is in the middle, or where the pipeline reads no owned cube, are
left out with a line saying so.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from leave_one_out import calibrate_as_user

from pibg.vision import cube as C
from pibg.vision.geometry import VisionConfig


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    seen: list[object] = []
    read = C.read_cube_face

    def spy(patch: object, model: Path | None = None) -> tuple[int | None, float]:
        seen.append(patch)
        return read(patch, model)  # type: ignore[arg-type]

    C.read_cube_face = spy  # type: ignore[assignment]
    for name in argv[1:]:
        frame = Path(name)
        setup = frame.stem.split("_")[0]
        cal = calibrate_as_user(str(frame.with_name(f"{setup}_00_start.jpg")), VisionConfig())
        cube = json.loads(frame.with_suffix(".json").read_text())["spec"].get("cube") or {}
        if cal.vision is None or cube.get("owner", "center") == "center":
            print(f"{frame.stem}: no owned cube to read, or not calibrated; left out")
            continue
        seen.clear()
        cal.vision.observe(cv2.imread(str(frame)))
        if not seen:
            print(f"{frame.stem}: the pipeline read no owned cube; left out")
            continue
        path = out / f"cube_{frame.stem}_{cube['value']}.png"
        cv2.imwrite(str(path), seen[0])  # type: ignore[arg-type]
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
