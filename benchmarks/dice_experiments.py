"""Experiments on the dice of rendered set-ups, none shipped: the die-face network deciding
dice candidates, alone or after the dice stage; and how far a die stands from the nearest
checker, flat or leaning on it. The figures are in ``docs/vision-notes.md``.

    python benchmarks/dice_experiments.py DIR... [--mode stage|net|hybrid|post|distances] [-v]

- ``stage``: the vision as shipped.
- ``net``: every call of the dice finder replaced by the network deciding: the
  ``--candidates`` strongest candidates of the size asked for (the ones whose own read gives
  a face at least ``--prefilter`` likely), each read by the network
  (``pibg/data/dice_net.onnx``) on a ``(2 --grid + 1)^2`` grid of centres ``--step`` die
  edges apart, its surest face kept where over ``--sure``, the two surest dice reported, all
  flat (the network's "no die face" class is meant to cover a leaning die).
- ``hybrid``: each call of the dice finder as shipped, and the network's dice (as ``net``)
  where it found fewer than two flat dice, ``--apart`` die edges from those found.
- ``post``: the stage's dice as shipped, then the network's (as ``net``) where the stage
  found fewer than two flat dice, at the die size the stage settled on, ``--apart`` die
  edges from every die found, ``--room`` die edges or more inside the dice mask, and with
  ``--square`` only where the face at the centre is square (``_face_shape``, as the stage's
  network rescue asks).
- ``distances``: each labelled die's top-face centre in the calibrated top-down view, its
  distance from the nearest labelled checker's place in checker diameters, flat dice and
  dice leaning on a checker apart (the range and the nearest of each printed).

Each DIR holds set-ups as rendered by ``../shared/tools/render`` (``NAME_00_start.jpg`` and
``NAME_NN.jpg`` with their ``.json`` labels, or a game's ``NAME_000.jpg`` on): each
calibrated from its start frame (corners found automatically), its clean frames read in
order. Prints flat dice read right (value and flat, within half a point's width of the
label), cocked dice read flat and dice read where none lies.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "board_net"))

from extract import to_top
from leave_one_out import setups_in

from pibg.observation import DieRead
from pibg.vision import dice_find as DF
from pibg.vision import dice_stage
from pibg.vision.dice_net import NO_DIE
from pibg.vision.pipeline import Vision


def net_dice(args: argparse.Namespace) -> Any:
    """A ``find_dice`` that lets the network decide (see the module's text)."""

    def find(image: Any, *, die_px: float | Sequence[float], surface_mask: Any = None,
             config: Any = DF.DEFAULT_CONFIG, crop: Any = None, nadir: Any = None,
             rescue: bool = True, near: Any = None, exposure: float = 1.0) -> list[DieRead]:
        sizes = [float(die_px)] if isinstance(die_px, int | float) else [float(s) for s in die_px]
        crop = crop or DF.view_crop(image, config.work_px)
        if exposure > 1.0:
            image, crop = DF._brightened(image, exposure), DF._brightened_crop(crop, exposure)
        found: list[DieRead] = []
        for size in sizes:
            spots = DF._spot_map(image, size, surface_mask, config)
            cands = DF._peaks(spots, size, surface_mask,
                              dataclasses.replace(config, max_dice_candidates=args.candidates))
            if near is not None:
                cands = [(x, y) for x, y in cands
                         if math.hypot(x - near[0], y - near[1]) < near[2]]
            step = args.step * size
            if args.prefilter > 0.0 and cands:
                _, first = DF._net_reads(crop, cands, size, config)
                cands = [c for c, p in zip(cands, first, strict=True)
                         if 1.0 - p[NO_DIE] >= args.prefilter]
            for cx, cy in cands:
                g = args.grid
                pts = [(cx + i * step, cy + j * step) for i in range(-g, g + 1)
                       for j in range(-g, g + 1)]
                _, ps = DF._net_reads(crop, pts, size, config)
                k = int(np.argmax(ps[:, :NO_DIE].max(axis=1)))
                (x, y), p = pts[k], ps[k]
                best = int(np.argmax(p))
                if best == NO_DIE or p[best] < args.sure or not DF._inside(surface_mask, x, y):
                    continue
                if args.square:
                    shape = DF._face_shape(crop(x, y, config.net_crop * size)[0], config)
                    if shape is None or (shape[0] and p[best] < config.net_rescue_open):
                        continue
                found.append(DieRead(best + 1, x, y, True, float(p[best])))
        found.sort(key=lambda d: -d.confidence)
        out: list[DieRead] = []
        for d in found:
            if all(math.hypot(d.x - e.x, d.y - e.y) >= 0.8 * min(sizes) for e in out):
                out.append(d)
        return out[:2]

    return find


def hybrid_dice(args: argparse.Namespace) -> Any:
    stage, net = DF.find_dice, net_dice(args)

    def find(image: Any, **kw: Any) -> list[DieRead]:
        got = stage(image, **kw)
        if kw.get("near") is not None or sum(d.flat for d in got) >= 2:
            return got
        px = kw["die_px"]
        size = float(px) if isinstance(px, int | float) else min(px)
        for d in net(image, **kw):
            if len(got) < 2 and all(math.hypot(d.x - e.x, d.y - e.y) >= args.apart * size
                                    for e in got):
                got.append(d)
        return got

    return find


def setups(folder: Path) -> list[tuple[Path, list[Path]]]:
    """Each set-up's start frame and frame labels, in order (``leave_one_out.setups_in``)."""
    return [(start, [f.with_suffix(".json") for f in frames])
            for _, start, frames in setups_in(folder)]


def distances(dirs: list[Path]) -> int:
    """Each labelled die's top face from the nearest labelled checker (checker diameters)."""
    found: dict[str, list[tuple[float, str]]] = {"flat": [], "leaning on a checker": []}
    for folder in dirs:
        for start, labels in setups(folder):
            vision = Vision.from_start_frame(cv2.imread(str(start)))
            stage = vision._dice_stage
            px = stage._layout.checker_px
            for label in labels:
                gt = json.loads(label.read_text())["gt"]
                dice = [d for d in gt.get("dice") or [] if not d.get("occluded")]
                if gt.get("hand") or not dice:
                    continue
                places = np.array([stage._slots[p, j] for p in range(24)
                                   for j in range(min(abs(gt["points"][p]["count"]),
                                                      stage._slots.shape[1]))])
                tops = to_top(vision, np.array([d["top_center"] for d in dice], float))
                for d, (x, y) in zip(dice, tops, strict=True):
                    kind = ("flat" if not d["cocked"] else "leaning on a checker"
                            if str(d.get("leans_on") or "").startswith("point") else "")
                    if kind and len(places):
                        r = float(np.min(np.hypot(places[:, 0] - x, places[:, 1] - y))) / px
                        found[kind].append((r, f"{label.stem} {d['value']}"))
    for kind, rs in found.items():
        rs.sort()
        print(f"{kind}: {len(rs)} dice, {rs[0][0]:.3f} to {rs[-1][0]:.3f}; nearest "
              + ", ".join(f"{r:.3f} ({w})" for r, w in rs[:8]))
    return 0


def post_dice(args: argparse.Namespace) -> Any:
    """``DiceStage.dice`` as shipped, then, where it found fewer than two flat dice, the
    network's dice (as ``net``) at the die size the stage settled on, ``--apart`` edges from
    every die found."""
    shipped, net = dice_stage.DiceStage.dice, net_dice(args)

    def dice(self: Any, canon: Any, mask: Any = None, frame: Any = None,
             canonical: bool = False, learn: bool = True, bar_mask: Any = None,
             exposure: float = 1.0) -> tuple[DieRead, ...]:
        got = list(shipped(self, canon, mask, frame, canonical=True, learn=learn,
                           bar_mask=bar_mask, exposure=exposure))
        if mask is not None and sum(d.flat for d in got) < 2:
            sizes = [self._die_size[0]] if self._die_size[0] else self.die_sizes()
            crop = self.frame_crop(frame) if frame is not None else None
            room = DF._room(mask)
            for d in net(canon, die_px=sizes, surface_mask=mask, crop=crop,
                         exposure=exposure):
                if room(d.x, d.y) < args.room * min(sizes):
                    continue  # beside a checker or the edge: it may lean on it
                if sum(e.flat for e in got) < 2 and all(
                        math.hypot(d.x - e.x, d.y - e.y) >= args.apart * min(sizes)
                        for e in got):
                    got.append(d)
        if not got or canonical:
            return tuple(got)
        xy = self.to_frame(np.array([[d.x, d.y] for d in got]))
        return tuple(DieRead(d.value, float(x), float(y), d.flat, d.confidence)
                     for d, (x, y) in zip(got, xy, strict=True))

    return dice


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--mode", default="net",
                    choices=("stage", "net", "hybrid", "post", "distances"))
    ap.add_argument("--candidates", type=int, default=8)
    ap.add_argument("--step", type=float, default=0.08)
    ap.add_argument("--grid", type=int, default=2, help="(2 g + 1)^2 centres a candidate")
    ap.add_argument("--prefilter", type=float, default=0.0,
                    help="the grid read only where the candidate's own read is a face this "
                         "likely")
    ap.add_argument("--sure", type=float, default=0.9)
    ap.add_argument("--apart", type=float, default=1.5)
    ap.add_argument("--square", action="store_true", help="post: a square face only")
    ap.add_argument("--room", type=float, default=0.0,
                    help="post: a die added only this many die edges or more inside the mask")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.mode == "distances":
        return distances(args.dirs)
    if args.mode == "post":
        dice_stage.DiceStage.dice = post_dice(args)  # type: ignore[method-assign]
    elif args.mode != "stage":
        dice_stage._find_dice = net_dice(args) if args.mode == "net" else hybrid_dice(args)
    flat = flat_ok = cocked = cocked_flat = extra = 0
    for folder in args.dirs:
        for start, labels in setups(folder):
            vision = Vision.from_start_frame(cv2.imread(str(start)))
            for label in labels:
                gt = json.loads(label.read_text())["gt"]
                if gt.get("hand"):
                    continue
                reads = vision.observe(cv2.imread(str(label.with_suffix(".jpg")))).dice
                width = float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
                dice = [d for d in gt.get("dice") or [] if not d.get("occluded")]

                def near(r: DieRead, d: dict[str, Any], w: float = width) -> bool:
                    return math.hypot(r.x - d["top_center"][0], r.y - d["top_center"][1]) < w / 2

                for r in reads:
                    if not any(near(r, d) for d in gt.get("dice") or []):
                        extra += 1
                        if args.verbose:
                            print(f"{label.stem}: a {r.value} read where no die lies")
                for d in dice:
                    hit = [r for r in reads if near(r, d)]
                    if d["cocked"]:
                        cocked += 1
                        if any(r.flat for r in hit):
                            cocked_flat += 1
                            if args.verbose:
                                print(f"{label.stem}: cocked {d['value']} read flat")
                        continue
                    flat += 1
                    ok = any(r.flat and r.value == d["value"] for r in hit)
                    flat_ok += ok
                    if not ok and args.verbose:
                        print(f"{label.stem}: flat {d['value']} read "
                              f"{[(r.value, r.flat) for r in hit] or 'nothing'}")
    print(f"{args.mode}: flat dice right {flat_ok} of {flat}, cocked read flat {cocked_flat} "
          f"of {cocked}, dice where none lies {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
