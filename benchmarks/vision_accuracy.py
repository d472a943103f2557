"""Vision accuracy on labelled frames, printed as a table.

    python benchmarks/vision_accuracy.py [--shared ../shared] [--auto-corners]
        [--channels rgb|gbr|brg|...] [--light F] [-v]

Data (never copied into the repo):
- ``renders/dev``: each session is calibrated from ``devN_00_start.jpg`` and its frames read;
- ``renders/game/frames``: calibrated from ``_000``, every frame read;
- ``photos/boards``: real frames read with ``--corners``/``--white-home`` (no calibration).

Calibration uses the automatic board finder with ``--auto-corners``; otherwise the start
frame's labelled corners stand in for the ``--corners`` a user would type (the frames
themselves are read with the start frame's calibration only, never with their own labels).

``--channels`` and ``--light`` read every frame (the start frames too) with its colour
channels reordered or its values scaled (``benchmarks/restyle.py``): boards of colours and
lights none of the data has.

A region is right when its most likely count equals the label. A frame with a hand counts as
right when it is reported unreadable, or when every region it reports is right.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import restyle

from pibg.exc import PibgError
from pibg.observation import BoardObservation
from pibg.vision.geometry import VisionConfig
from pibg.vision.pipeline import Vision


@dataclass
class Tally:
    regions: int = 0
    regions_ok: int = 0
    frames: int = 0
    frames_ok: int = 0
    hand_frames: int = 0
    hand_ok: int = 0
    unreadable_clean: int = 0  #: frames without a hand reported unreadable
    cube: int = 0
    cube_ok: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for k in ("regions", "regions_ok", "frames", "frames_ok", "hand_frames", "hand_ok",
                  "unreadable_clean", "cube", "cube_ok"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.errors += other.errors


def _truth_regions(spec: dict) -> list[int]:
    return [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
            spec["off"]["white"], spec["off"]["black"]]


def _read_regions(obs: BoardObservation) -> list[int]:
    return [*obs.signed_points(), obs.bar_white.count, obs.bar_black.count,
            obs.off_white.count, obs.off_black.count]


_NAMES = [f"p{i}" for i in range(1, 25)] + ["barW", "barB", "offW", "offB"]


def score_frame(t: Tally, name: str, spec: dict, obs: BoardObservation) -> None:
    truth = _truth_regions(spec)
    hand = bool(spec.get("hand"))
    if hand:
        t.hand_frames += 1
        if not obs.readable:
            t.hand_ok += 1
            return
        got = _read_regions(obs)
        if got == truth:
            t.hand_ok += 1
        else:
            t.errors.append(f"{name} (hand) read as readable: " + ", ".join(
                f"{_NAMES[i]} {truth[i]}->{got[i]}" for i in range(28) if got[i] != truth[i]))
        return
    t.frames += 1
    t.regions += 28
    t.cube += 1
    if not obs.readable:
        t.unreadable_clean += 1
        t.errors.append(f"{name}: unreadable ({obs.reason})")
        return
    got = _read_regions(obs)
    bad = [i for i in range(28) if got[i] != truth[i]]
    t.regions_ok += 28 - len(bad)
    if not bad:
        t.frames_ok += 1
    else:
        t.errors.append(f"{name}: " + ", ".join(f"{_NAMES[i]} {truth[i]}->{got[i]}" for i in bad))
    cube = spec.get("cube") or {"value": 1, "owner": "center"}
    if obs.cube is not None and obs.cube.value == cube["value"] and \
            obs.cube.owner == cube["owner"]:
        t.cube_ok += 1
    else:
        seen = f"{obs.cube.value} {obs.cube.owner}" if obs.cube is not None else "none"
        t.errors.append(f"{name}: cube {cube['value']} {cube['owner']} -> {seen}")


_STYLE = restyle.Restyle()  #: how frames are read (``--channels``, ``--light``, ``--tone``)


def imread(path: str, start: bool = False) -> NDArray[np.uint8]:
    img = _STYLE.imread(path, start)
    if img is None:
        raise SystemExit(f"cannot read {path}: is --shared the shared data folder?")
    return img


_CONFIG = VisionConfig()  #: ``--place-model`` sets its network
_ONLY: set[str] = set()  #: ``--only``: the set-ups to read (all when empty)


def _vision(start: str, auto: bool) -> tuple[Vision, str]:
    img = imread(start, start=True)
    label = json.loads(Path(start[:-4] + ".json").read_text())["gt"]["board_corners"]
    if auto:
        try:
            return Vision.from_start_frame(img, config=_CONFIG), "auto"
        except PibgError:
            how = "labelled (auto failed)"
    else:
        how = "labelled"
    return Vision.from_start_frame(img, np.asarray(label), config=_CONFIG), how


def run_setups(folder: Path, auto: bool) -> dict[str, Tally]:
    """Every camera set-up in ``folder``: calibrated from ``NAME_00_start.jpg``, the rest read."""
    out: dict[str, Tally] = {}
    for start in sorted(glob.glob(str(folder / "*_00_start.jpg"))):
        session = Path(start).name.split("_")[0]
        if _ONLY and session not in _ONLY:
            continue
        vision, how = _vision(start, auto)
        t = Tally()
        for f in sorted(glob.glob(str(folder / f"{session}_*.jpg"))):
            if f == start:
                continue
            spec = json.loads(Path(f[:-4] + ".json").read_text())["spec"]
            score_frame(t, Path(f).stem, spec, vision.observe(imread(f)))
        out[f"{session} ({how})"] = t
    return out


def run_renders(shared: Path, auto: bool, sets: list[str], random_dir: Path | None
                ) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    if "dev" in sets:
        out |= run_setups(shared / "renders/dev", auto)
    if "unseen" in sets:
        out |= run_setups(shared / "renders/unseen", auto)
    if "random" in sets and random_dir is not None:
        out |= run_setups(random_dir, auto)
    game = sorted(glob.glob(str(shared / "renders/game/frames/*_000.jpg")))
    for start in game if "game" in sets else []:
        if _ONLY and Path(start).stem[:-4] not in _ONLY:
            continue
        vision, how = _vision(start, auto)
        t = Tally()
        for f in sorted(glob.glob(str(Path(start).parent / "*.jpg"))):
            if f == start:
                continue
            spec = json.loads(Path(f[:-4] + ".json").read_text())["spec"]
            score_frame(t, Path(f).stem, spec, vision.observe(imread(f)))
        out[f"game {Path(start).stem[:-4]} ({how})"] = t
    return out


def run_photos(shared: Path) -> tuple[list[str], int, int, int, int]:
    """Per-region results on the real frames: lines, regions right, regions labelled, flat
    dice read right (value, within 25 pixels of the label), flat dice labelled."""
    labels = json.loads((shared / "photos/boards/labels.json").read_text())
    lines, ok, total = [], 0, 0
    dice_ok, dice_total = 0, 0
    for e in labels:
        img = imread(str(shared / "photos/boards" / e["image"]))
        vision = Vision.from_corners(img, np.asarray(e["corners"], float), e["white_home"],
                                     config=_CONFIG)
        obs = vision.observe(img)
        cells = []
        # Image positions -> points from White (white_home bottom-left: bottom row left to
        # right is points 1..12 after the mirror; top row left to right is 24..13).
        truth = _photo_truth(e)
        got = obs.signed_points() if obs.readable else None
        for i in range(24):
            tv = truth[i]
            if tv is None:
                cells.append("  ? ")
                continue
            total += 1
            gv = None if got is None else got[i]
            good = gv == tv
            ok += int(good)
            cells.append("ok" if good else "XX")
        wrong = [f"p{i + 1} {truth[i]}->{None if got is None else got[i]}"
                 for i in range(24) if truth[i] is not None and (got is None or got[i] != truth[i])]
        labelled = sum(1 for v in truth if v is not None)
        reads = list(obs.dice) if obs.readable else []
        flat = [d for d in e["dice"] if d["flat"] and d["value"] is not None]
        right = sum(any(r.flat and r.value == d["value"]
                        and math.hypot(r.x - d["x"], r.y - d["y"]) < 25 for r in reads)
                    for d in flat)
        dice_ok, dice_total = dice_ok + right, dice_total + len(flat)
        lines.append(f"{e['image']:<11} {labelled - len(wrong):>2}/{labelled:<2} "
                     f"dice {right}/{len(flat)} wrong: {', '.join(wrong) or '-'}")
    return lines, ok, total, dice_ok, dice_total


def _photo_truth(e: dict) -> list[int | None]:
    def val(s: str) -> int | None:
        if s == "?":
            return None
        if s == "0":
            return 0
        n, c = int(s[:-1]), s[-1]
        return n if c == "w" else -n

    top = [val(s) for s in e["top"]]
    bottom = [val(s) for s in e["bottom"]]
    home = e["white_home"]
    pts: list[int | None] = [None] * 24
    # Bottom row by image position left -> right; White's home at the bottom-left means
    # points 1..12 run left -> right along the bottom and 13..24 right -> left along the top.
    if home == "bottom-left":
        for j in range(12):
            pts[j] = bottom[j]
            pts[23 - j] = top[j]
    elif home == "bottom-right":
        for j in range(12):
            pts[11 - j] = bottom[j]
            pts[12 + j] = top[j]
    elif home == "top-right":
        for j in range(12):
            pts[11 - j] = top[j]
            pts[12 + j] = bottom[j]
    else:
        for j in range(12):
            pts[j] = top[j]
            pts[23 - j] = bottom[j]
    return pts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get(
        "PIBG_SHARED", str(Path(__file__).resolve().parents[2] / "shared")))
    ap.add_argument("--auto-corners", action="store_true")
    ap.add_argument("--sets", default="dev,game",
                    help="comma-separated: dev, unseen, game, random (default dev,game)")
    ap.add_argument("--random-dir", type=Path, default=None,
                    help="the frames rendered from benchmarks/random_boards/spec.json")
    ap.add_argument("--no-photos", action="store_true")
    ap.add_argument("--only", default="",
                    help="comma-separated set-ups to read (dev0, m023g1, rnd3, ...); "
                         "all by default")
    ap.add_argument("--place-model", default="",
                    help="the checker-place network: a path, 'none' for colour and rim alone "
                         "(default: the one pibg ships)")
    restyle.add_options(ap)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    global _STYLE, _CONFIG, _ONLY
    _CONFIG = VisionConfig(place_model=None if args.place_model == "none" else args.place_model)
    _ONLY = {n for n in args.only.split(",") if n}
    _STYLE = restyle.Restyle(args.channels, args.light, args.tone)
    cv2.setNumThreads(1)
    shared = Path(args.shared)
    if not (shared / "renders").is_dir():
        print(f"no data at {shared}: nothing to measure")
        return 0
    sets = run_renders(shared, args.auto_corners, args.sets.split(","), args.random_dir)
    total = Tally()
    print(f"{'set':<34} {'regions':>9} {'frames':>8} {'hand ok':>8} {'cube':>7} {'unread':>6}")
    for name, t in sets.items():
        total.add(t)
        print(f"{name:<34} {_pct(t.regions_ok, t.regions):>9} {_pct(t.frames_ok, t.frames):>8} "
              f"{t.hand_ok:>3}/{t.hand_frames:<4} {_pct(t.cube_ok, t.cube):>7} "
              f"{t.unreadable_clean:>6}")
    print(f"{'ALL renders':<34} {_pct(total.regions_ok, total.regions):>9} "
          f"{_pct(total.frames_ok, total.frames):>8} {total.hand_ok:>3}/{total.hand_frames:<4} "
          f"{_pct(total.cube_ok, total.cube):>7} {total.unreadable_clean:>6}")
    print("targets: regions >= 99.5 %, frames >= 95 %, cube >= 98 %")
    if args.verbose:
        for e in total.errors:
            print("  ", e)
    if (shared / "photos/boards/labels.json").is_file() and not args.no_photos:
        lines, ok, n, dice_ok, dice_n = run_photos(shared)
        print(f"\nreal board frames (photos/boards, read with --corners/--white-home): "
              f"points right {ok}/{n} = {_pct(ok, n)}, flat dice read right {dice_ok}/{dice_n}")
        for line in lines:
            print("  ", line)
    return 0


def _pct(a: int, b: int) -> str:
    """A share to two decimals, never rounded up onto a target (99.49 % is not 99.5 %)."""
    return "-" if b == 0 else f"{math.floor(10000.0 * a / b) / 100:.2f}%"


if __name__ == "__main__":
    sys.exit(main())
