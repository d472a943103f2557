"""Why the dice stage read a frame's dice as it did: the checks it made near each labelled die.

    python benchmarks/dice_why.py FRAME [FRAME ...] [--random-dir DIR ...] [--shared ../shared]

Each FRAME is a rendered frame's name (``rpd3_07``, ``dev2_13``), found in ``renders/dev``,
``renders/game`` or a ``--random-dir`` (frames rendered from a spec in
``benchmarks/random_boards``); its set-up is calibrated from its start frame as a user's
would be (``leave_one_out.calibrate_as_user``). For each labelled die, every check the stage
made within a die edge of it is printed in the order made, with its answer:

- ``find SIZE``: what ``find_dice`` returned at that die edge (view pixels), and whether the
  network's rescue was allowed;
- ``second_face``: the pips beside a face that may be a second face's (two make it cocked);
- ``is_flat``, ``stretched`` (with the grid's long side against the way to what is beside
  it, |cosine|: a lean shortens the grid that way), ``side_towards``, ``in_open`` (the room
  round the die, in die edges);
- ``rescue``: where the network was asked, what it read there (value, likelihood), the room
  (die edges) and whether the face's outline is long.

Nothing is changed: the stage's own functions are wrapped while the frame is read
(``Vision.observe``), as ``dice_misses.py`` does. For looking at frames already measured, not
for measuring.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from leave_one_out import calibrate_as_user, setups

from pibg.vision import dice_find as F
from pibg.vision import dice_stage as S
from pibg.vision.dice_net import NO_DIE
from pibg.vision.geometry import VisionConfig

#: One check: (name, x, y, what it was asked and answered), view pixels.
Check = tuple[str, float, float, str]


def _spots(spots: list[tuple[float, float, float]]) -> str:
    return "[" + ", ".join(f"({x:.0f}, {y:.0f}) round {r:.2f}" for x, y, r in spots) + "]"


@contextmanager
def watched(log: list[Check]) -> Iterator[None]:
    """The dice stage's checks logged into ``log`` while the block runs."""
    saved = {name: getattr(F, name) for name in (
        "_second_face", "_is_flat", "_stretched", "_side_towards", "_in_open", "_rescue_at")}
    find = S._find_dice
    assert find is not None
    where: list[tuple[float, float]] = [(0.0, 0.0)]  # the die the pip readers judge now
    judged = [0]  # and its value

    def second_face(spots: Any, x: float, y: float, *a: Any, **k: Any) -> int:
        n = int(saved["_second_face"](spots, x, y, *a, **k))
        where[0] = (x, y)
        log.append(("second_face", x, y, f"{_spots(spots)} -> {n}"))
        return n

    def is_flat(value: int, fits: Any, scale: float, die_px: float, *a: Any, **k: Any) -> bool:
        got = bool(saved["_is_flat"](value, fits, scale, die_px, *a, **k))
        judged[0] = value
        aspects = sorted({round(f.aspect, 2) for f in fits if f.value == value})
        log.append(("is_flat", *where[0], f"{value} at edge {die_px:.1f}, grid aspects "
                                          f"{aspects} -> {got}"))
        return got

    def stretched(aspect: float | None, fits: Any, scale: float, die_px: float, cfg: Any,
                  way: tuple[float, float] = (0.0, 0.0)) -> bool:
        got = bool(saved["_stretched"](aspect, fits, scale, die_px, cfg, way))
        along = F._grid_axes(judged[0], fits, way) if aspect is not None else []
        log.append(("stretched", *where[0],
                    f"aspect {'-' if aspect is None else f'{aspect:.3f}'}, long side along "
                    f"the way out {[round(a, 2) for a in along]} -> {got}"))
        return got

    def side_towards(spots: Any, x: float, y: float, *a: Any, **k: Any) -> bool:
        got = bool(saved["_side_towards"](spots, x, y, *a, **k))
        log.append(("side_towards", x, y, f"{len(spots)} pips beside -> {got}"))
        return got

    def in_open(room: Callable[[float, float], float], x: float, y: float, size: float,
                cfg: Any) -> bool:
        got = bool(saved["_in_open"](room, x, y, size, cfg))
        log.append(("in_open", x, y, f"room {room(x, y) / size:.2f} edges -> {got}"))
        return got

    def rescue_at(crop: Any, x: float, y: float, size: float, cfg: Any, room: Any) -> Any:
        rx, ry, patch, p = F._rescue_read(crop, x, y, size, cfg)
        best = int(np.argmax(p))
        shape = F._face_shape(patch, cfg)
        read = "no die" if best == NO_DIE else str(best + 1)
        got = saved["_rescue_at"](crop, x, y, size, cfg, room)
        log.append(("rescue", rx, ry, f"edge {size:.1f}: {read} at {p[best]:.2f}, room "
                                      f"{room(rx, ry) / size:.2f} edges, outline (long, runs "
                                      f"on) {shape} -> {_die(got)}"))
        return got

    def find_dice(canon: Any, die_px: float, **kw: Any) -> Any:
        got = find(canon, die_px=die_px, **kw)
        if kw.get("near") is None and canon.shape[1] > canon.shape[0]:
            # the whole view (a place's window is asked with ``near``, the bar's strip is
            # narrow): its positions are the view's
            for d in got:
                log.append((f"find {die_px:.1f}", d.x, d.y,
                            f"rescue {kw.get('rescue', True)}: {_die(d)}"))
        return got

    try:
        F._second_face, F._is_flat, F._stretched = second_face, is_flat, stretched
        F._side_towards, F._in_open, F._rescue_at = side_towards, in_open, rescue_at
        S._find_dice = find_dice
        yield
    finally:
        for name, f in saved.items():
            setattr(F, name, f)
        S._find_dice = find


def _die(d: Any) -> str:
    if d is None:
        return "none"
    return f"{d.value} {'flat' if d.flat else 'not flat'} ({d.confidence:.2f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("frames", nargs="+")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    args = ap.parse_args()
    wanted = set(args.frames)
    seen = set()
    for _name, start, frames, _group in setups(args.shared, args.random_dir):
        mine = [p for p in frames if p.stem in wanted]
        if not mine:
            continue
        vision = calibrate_as_user(str(start), VisionConfig()).vision
        if vision is None:
            print(f"{start.name}: no board found")
            continue
        for path in mine:
            seen.add(path.stem)
            gt = json.loads(path.with_suffix(".json").read_text())["gt"]
            log: list[Check] = []
            with watched(log):
                obs = vision.observe(cv2.imread(str(path)))
            print(f"{path.stem}: read {[_die(d) for d in obs.dice]}"
                  + ("" if obs.readable else f" (unreadable: {obs.reason})"))
            where = np.asarray([d["top_center"] for d in gt["dice"]], np.float64).reshape(-1, 1, 2)
            view = (cv2.perspectiveTransform(where, vision._h).reshape(-1, 2)
                    if len(where) else np.zeros((0, 2)))
            reach = max(vision._dice_stage.die_sizes())
            for d, (vx, vy) in zip(gt["dice"], view, strict=True):
                print(f"  labelled {d['value']} {'cocked' if d['cocked'] else 'flat'} at view "
                      f"({vx:.0f}, {vy:.0f})")
                for name, x, y, text in log:
                    if math.hypot(x - vx, y - vy) < reach:
                        print(f"    {name} ({x:.0f}, {y:.0f}): {text}")
    missing = wanted - seen
    if missing:
        print(f"not found: {', '.join(sorted(missing))} (give --shared or --random-dir)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
