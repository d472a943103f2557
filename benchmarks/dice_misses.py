"""Why the dice stage misses the flat dice it misses, on rendered set-ups read as a user meets
them (calibrated from the start frame with the corners the board finder finds, as
``leave_one_out.py`` does).

    python benchmarks/dice_misses.py [--random-dir DIR ...] [--shared ../shared] [-v]

Each flat die (labelled, not cocked, not hidden, in a frame with no hand) that
``Vision.observe`` does not read right (its value, flat, within half a point) is put in one of
five kinds, by what the stage did near it (this script watches the stage's own steps,
``dice_find._consider`` and ``dice_find._net_rescue``, without changing them; every set-up is
read by the network pibg ships):

- ``frame refused``: the frame was reported unreadable;
- ``no candidate``: no candidate within half a die edge of it: the pips' spot map
  (``dice_find._spot_map``) found nothing there (a dark die's dim pips on a dark board);
- ``rescue gave up``: a candidate there that the pip readers left unread, which the
  network's rescue read as no die (unsure, or the face's outline long);
- ``left unread``: a candidate there that the pip readers left unread and the rescue was not
  asked about (two flat dice found elsewhere, or a checker or another die too near);
- ``read wrong``: read, but as another value or not flat.

The last column is the network's read at the labelled centre (the value it finds likeliest
and its likelihood, at the likeliest of the three die sizes the stage looks for): a
die it reads there surely is one a better finder would have found. Prints a table by set; with
``-v`` every miss.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from leave_one_out import calibrate_as_user, setups

from pibg.vision import dice_find
from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_net import NO_DIE
from pibg.vision.geometry import VisionConfig
from pibg.vision.pipeline import Vision

KINDS = ("frame refused", "no candidate", "rescue gave up", "left unread", "read wrong")


class Watch:
    """The candidates the stage considered and the rescues it asked for, in one frame."""

    def __init__(self) -> None:
        self.considered: list[tuple[float, float, float]] = []  # (x, y, die edge), view
        self.rescued: list[tuple[float, float, float]] = []
        self._consider = dice_find._consider
        self._rescue = dice_find._net_rescue

    def __enter__(self) -> Watch:
        consider, rescue = self._consider, self._rescue

        def watched_consider(cx: float, cy: float, found: Any, in_clear: Any, size: float,
                             *args: Any, **kwargs: Any) -> None:
            self.considered.append((cx, cy, size))
            consider(cx, cy, found, in_clear, size, *args, **kwargs)

        def watched_rescue(crop: Callable[..., Any], x: float, y: float, size: float,
                           *args: Any, **kwargs: Any) -> Any:
            self.rescued.append((x, y, size))
            return rescue(crop, x, y, size, *args, **kwargs)

        dice_find._consider = watched_consider
        dice_find._net_rescue = watched_rescue
        return self

    def __exit__(self, *exc: object) -> None:
        dice_find._consider = self._consider
        dice_find._net_rescue = self._rescue

    def clear(self) -> None:
        self.considered.clear()
        self.rescued.clear()


def kind_of(watch: Watch, x: float, y: float, read: bool) -> str:
    """The kind of a miss at (x, y) in the view (see the module's text)."""
    if read:
        return "read wrong"
    near = [s for cx, cy, s in watch.considered if math.hypot(cx - x, cy - y) < 0.5 * s]
    if not near:
        return "no candidate"
    asked = [s for cx, cy, s in watch.rescued if math.hypot(cx - x, cy - y) < 0.7 * s]
    return "rescue gave up" if asked else "left unread"


def net_best(crop: Callable[..., Any], sizes: list[float], x: float, y: float
             ) -> tuple[float, int]:
    """The network's likelihood of its likeliest value at (x, y) (view) and that value, at
    the likeliest of the die ``sizes``, read through ``crop``."""
    best = (0.0, 0)
    for size in sizes:
        _, p = dice_find._net_read(crop, x, y, size, DEFAULT_CONFIG)
        v = int(np.argmax(p[:NO_DIE]))
        best = max(best, (float(p[v]), v + 1))
    return best


def net_at(crop: Callable[..., Any], sizes: list[float], x: float, y: float) -> str:
    """:func:`net_best` as read: "VALUE at LIKELIHOOD"."""
    p, value = net_best(crop, sizes, x, y)
    return f"{value} at {p:.2f}"


def dice_frames(shared: Path, random_dirs: list[Path], cocked: bool = False
                ) -> Iterator[tuple[str, Vision, Path, dict[str, Any], list[dict[str, Any]]]]:
    """Every rendered frame with labelled dice in view (not hidden; flat ones only unless
    ``cocked``) and no hand, as ``(set, vision, path, labels, dice)``: ``vision`` calibrated
    from its set-up's start frame as a user's would be (``leave_one_out.calibrate_as_user``;
    set-ups it cannot calibrate are left out), ``labels`` the frame's ``gt``."""
    for _name, start, frames, group in setups(shared, random_dirs):
        vision = calibrate_as_user(str(start), VisionConfig()).vision
        if vision is None:
            continue
        for path in frames:
            lab = json.loads(path.with_suffix(".json").read_text())
            dice = [d for d in lab["gt"]["dice"]
                    if (cocked or not d["cocked"]) and not d.get("occluded")]
            if dice and not lab["spec"].get("hand"):
                yield group, vision, path, lab["gt"], dice


def places(vision: Vision, gt: dict[str, Any], dice: list[dict[str, Any]]
           ) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """How near (camera pixels, half a point's width) a read must lie to a labelled die to be
    its read, and the dice's top-face centres in the camera frame and in ``vision``'s
    top-down view, ``(n, 2)`` each."""
    reach = 0.5 * float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
    where = np.asarray([d["top_center"] for d in dice], np.float64).reshape(-1, 1, 2)
    view = cv2.perspectiveTransform(where, vision._h).reshape(-1, 2)
    return reach, where.reshape(-1, 2), np.asarray(view, np.float64)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no renders under {args.shared}: give --shared", file=sys.stderr)
        return 2
    table: dict[str, Counter[str]] = {}
    with Watch() as watch:
        for group, vision, path, gt, dice in dice_frames(args.shared, args.random_dir):
            tally = table.setdefault(group, Counter())
            watch.clear()
            image = cv2.imread(str(path))
            obs = vision.observe(image)
            reach, where, view = places(vision, gt, dice)
            for d, (px, py), (vx, vy) in zip(dice, where, view, strict=True):
                tally["flat dice"] += 1
                hits = [r for r in obs.dice if math.hypot(r.x - px, r.y - py) < reach]
                hit = hits[0] if hits else None
                if hit is not None and hit.flat and hit.value == d["value"]:
                    continue
                kind = (kind_of(watch, vx, vy, hit is not None) if obs.readable
                        else "frame refused")
                tally[kind] += 1
                if args.verbose:
                    stage = vision._dice_stage
                    crop, sizes = stage.frame_crop(image), stage.die_sizes()
                    got = ("nothing" if hit is None
                           else f"{hit.value}{'' if hit.flat else ' not flat'}")
                    print(f"  {path.stem}: flat {d['value']} at ({px:.0f}, {py:.0f}) read "
                          f"{got}: {kind}; the network there: {net_at(crop, sizes, vx, vy)}")
    print("| set | flat dice | read right | " + " | ".join(KINDS) + " |")
    print("|---|---|---|" + "---|" * len(KINDS))
    for group, t in table.items():
        missed = sum(t[k] for k in KINDS)
        print(f"| {group} | {t['flat dice']} | {t['flat dice'] - missed} | "
              + " | ".join(str(t[k]) for k in KINDS) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
