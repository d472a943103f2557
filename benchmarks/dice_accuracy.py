"""Accuracy of the dice stage (``pibg.vision.dice``) on the shared evaluation data.

Run from the repository root::

    python benchmarks/dice_accuracy.py [--data ../shared] [--jobs 2] [--limit N]
                                       [--auto-corners] [--channels rgb|gbr|brg|...] [--light F]

It prints one table (data set, boxes, correct, %) and skips any data set that is absent:

- ``photos/dice train`` / ``photos/dice test``: :func:`read_die` on the crop of every
  labelled box of Nell Byler's dice photos (``dice/data/ImageSets/Main/*_labels.csv``).
  A second line, ``... face as seen``, scores the few boxes listed in
  ``benchmarks/photo_label_doubts.csv`` against the value their face plainly shows (a die
  labelled two that shows three pips, with what each shows); every other box as labelled.
  The first line, as labelled, is the figure the targets are judged on.
- ``renders crops``: :func:`read_die` on a square crop (1.3 die edges) around the top-face
  centre of every flat, unoccluded die of ``renders/dev`` and ``renders/game/frames``.
- ``renders find_dice (flat)``: :func:`find_dice` on each frame warped top-down with
  ``gt.board_corners`` (evaluation only); a flat die counts as right when a read lies within
  one die edge of it with the right value and ``flat=True``.
- ``renders cocked read as flat``: cocked dice that ``find_dice`` reported as flat (the
  target is 0), and ``renders false dice``: reads matching no die at all.

The expected die edge passed to :func:`find_dice` is 0.37 of the mean point width (the
renders' boards); a real caller takes it from the board profile.

- ``renders pipeline``: the whole vision stage as the referee runs it: ``Vision`` calibrated
  from each session's start frame (labelled corners; with ``--auto-corners``, the corners
  :func:`~pibg.vision.calibrate.locate_board` finds, as ``pibg calibrate`` does without
  markers), every frame without a hand read with
  ``Vision.observe`` (dice found on the top-down view, read from the camera frame); a flat
  die is right when a read lies within half a point of it with its value and ``flat=True``.
  Also the cocked dice read as flat and the reads matching no die, and ms per frame.
- ``sim demo match (pipeline)``: every frame of the bundled match rendered by ``pibg.sim``
  (rolls and the frames after each move), read the same way: a frame is right when its
  dice are exactly the scripted ones (a cocked die, leaning on a checker's edge as
  ``pibg demo`` draws it, must not be read as flat).

``--channels`` and ``--light`` read the photos and renders with their colour channels
reordered or their values scaled (``benchmarks/restyle.py``): dice and boards of colours and
lights none of the data has.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import restyle

from pibg.vision.dice import find_dice, read_die

NAMES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
WARP_WIDTH = 800
DIE_PER_POINT = 0.37
_STYLE = restyle.Restyle()  #: how frames are read (``--channels``, ``--light``; set before
#: the worker processes fork)


def imread(path: str, start: bool = False) -> NDArray[np.uint8] | None:
    return _STYLE.imread(path, start)


@dataclass
class Tally:
    boxes: int = 0
    correct: int = 0
    as_seen: int = 0  # right against the face shown where the label is in doubt

    def add(self, ok: bool, ok_as_seen: bool) -> None:
        self.boxes += 1
        self.correct += int(ok)
        self.as_seen += int(ok_as_seen)


# --- real photos ---------------------------------------------------------------------------------


def _photo_rows(root: Path, split: str) -> list[dict[str, str]]:
    path = root / "photos/dice/data/ImageSets/Main" / f"{split}_labels.csv"
    if not path.is_file():
        return []
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


DOUBTS = Path(__file__).resolve().parent / "photo_label_doubts.csv"


def label_doubts(path: Path = DOUBTS) -> dict[tuple[str, str, str, str], int]:
    """The boxes whose label the face contradicts: ``(split, file, xmin, ymin)`` to the
    value the face shows."""
    with path.open(newline="") as fh:
        return {(r["split"], r["filename"], r["xmin"], r["ymin"]): NAMES[r["face"]]
                for r in csv.DictReader(fh)}


def _photo_job(args: tuple[str, list[dict[str, str]]]) -> list[tuple[int, int]]:
    image_path, rows = args
    img = imread(image_path)
    out: list[tuple[int, int]] = []
    for r in rows:
        truth = NAMES[r["class"]]
        if img is None:
            out.append((truth, 0))
            continue
        x0, y0, x1, y1 = (round(float(r[k])) for k in ("xmin", "ymin", "xmax", "ymax"))
        crop = img[max(0, y0):y1, max(0, x0):x1]
        out.append((truth, read_die(crop)[0]))
    return out


def photo_split(root: Path, split: str, jobs: int, limit: int | None) -> Tally | None:
    rows = _photo_rows(root, split)
    if not rows:
        return None
    rows = rows[:limit] if limit else rows
    images = root / "photos/dice/data/JPEGImages_extracted_from_tfrecords"
    doubts = label_doubts()
    by_file: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_file.setdefault(str(images / r["filename"]), []).append(r)
    tally = Tally()
    groups = list(by_file.items())
    for (_, file_rows), results in zip(groups, _map(_photo_job, groups, jobs), strict=True):
        for r, (truth, got) in zip(file_rows, results, strict=True):
            face = doubts.get((split, r["filename"], r["xmin"], r["ymin"]), truth)
            tally.add(truth == got, face == got)
    return tally


# --- renders --------------------------------------------------------------------------------------


def _render_files(root: Path) -> list[Path]:
    dev = sorted((root / "renders/dev").glob("dev*.json"))
    game = sorted((root / "renders/game/frames").glob("*.json"))
    return dev + game


def _render_job(path_s: str) -> dict[str, int]:
    path = Path(path_s)
    data = json.loads(path.read_text())
    gt = data["gt"]
    out = {"crop_n": 0, "crop_ok": 0, "flat_n": 0, "flat_ok": 0, "cocked_n": 0,
           "cocked_flat": 0, "false": 0}
    dice = gt.get("dice") or []
    if not dice:
        return out
    img = imread(str(path.with_suffix(".jpg")))
    if img is None:
        return out
    point_w = float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
    die_img = DIE_PER_POINT * point_w
    for d in dice:
        if d["cocked"] or d.get("occluded"):
            continue
        cx, cy = d["top_center"]
        h = round(0.65 * die_img)
        crop = img[max(0, int(cy) - h):int(cy) + h, max(0, int(cx) - h):int(cx) + h]
        out["crop_n"] += 1
        out["crop_ok"] += int(read_die(crop)[0] == d["value"])
    corners = np.array(gt["board_corners"], np.float32)
    width = (np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2
    height = (np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])) / 2
    h_px = round(WARP_WIDTH * height / width)
    dst = np.array([[0, 0], [WARP_WIDTH, 0], [WARP_WIDTH, h_px], [0, h_px]], np.float32)
    warp_m = cv2.getPerspectiveTransform(corners, dst)
    warped = cv2.warpPerspective(img, warp_m, (WARP_WIDTH, h_px))
    die_px = float(die_img * WARP_WIDTH / width)
    reads = find_dice(warped, die_px=die_px)
    where = [cv2.perspectiveTransform(np.array([[d["top_center"]]], np.float32), warp_m)[0, 0]
             for d in dice]
    _score(dice, where, reads, die_px, out)
    return out


def _score(dice: list[dict[str, Any]], where: list[Any], reads: list[Any], reach: float,
           out: dict[str, Any], session: str | None = None, frame: str = "") -> None:
    """Match labelled dice (their top-face centres ``where``) with reads within ``reach``
    pixels and count flat dice read right, cocked dice read flat and reads of no die; with
    ``session``, each die the stage got wrong is listed under ``out["misses"]`` too."""
    misses: list[str] = out.setdefault("misses", []) if session is not None else []
    used: set[int] = set()
    for d, (px, py) in zip(dice, where, strict=True):
        near = [(math.hypot(r.x - px, r.y - py), i) for i, r in enumerate(reads)]
        near = [t for t in near if t[0] < reach]
        hit = reads[min(near)[1]] if near else None
        if near:
            used.add(min(near)[1])
        if d.get("occluded"):
            continue
        at = f"{frame} die at ({px:.0f}, {py:.0f})"
        if d["cocked"]:
            out["cocked_n"] += 1
            out["cocked_flat"] += int(hit is not None and hit.flat)
            if hit is not None and hit.flat:
                misses.append(f"{at}: cocked {d['value']}, read flat {hit.value}")
        else:
            right = hit is not None and hit.flat and hit.value == d["value"]
            out["flat_n"] += 1
            out["flat_ok"] += int(right)
            if not right:
                got = ("nothing" if hit is None
                       else f"{hit.value}{'' if hit.flat else ' not flat'}")
                misses.append(f"{at}: flat {d['value']}, read {got}")
            if session is not None:
                out[f"session {session} n"] = out.get(f"session {session} n", 0) + 1
                out[f"session {session} ok"] = out.get(f"session {session} ok", 0) + int(right)
    out["false"] += sum(1 for i in range(len(reads)) if i not in used)
    misses += [f"{frame} read {r.value} at ({r.x:.0f}, {r.y:.0f}): no die there"
               for i, r in enumerate(reads) if i not in used]


def renders(root: Path, jobs: int, limit: int | None) -> dict[str, int] | None:
    files = _render_files(root)
    if not files:
        return None
    files = files[:limit] if limit else files
    total: dict[str, int] = {}
    for res in _map(_render_job, [str(f) for f in files], jobs):
        for k, v in res.items():
            total[k] = total.get(k, 0) + v
    return total


# --- the whole vision stage ---------------------------------------------------------------------


def _session_job(args: tuple[str, str, list[str], bool]) -> dict[str, Any]:
    from pibg.vision.pipeline import Vision

    start, name, files, auto = args
    image = imread(start, start=True)
    if image is None:
        raise SystemExit(f"cannot read {start}")
    corners = np.asarray(json.loads(Path(start).with_suffix(".json").read_text())["gt"]
                         ["board_corners"], np.float64)
    # with --auto-corners, the board finder's
    vision = Vision.from_start_frame(image, None if auto else corners)
    out: dict[str, Any] = {"flat_n": 0, "flat_ok": 0, "cocked_n": 0, "cocked_flat": 0,
                           "false": 0, "frames": 0, "seconds": 0.0, "misses": []}
    for f in files:
        gt = json.loads(Path(f).read_text())["gt"]
        if gt.get("hand"):
            continue
        img = imread(str(Path(f).with_suffix(".jpg")))
        if img is None:
            raise SystemExit(f"cannot read {f}")
        t = time.perf_counter()
        reads = list(vision.observe(img).dice)
        out["seconds"] += time.perf_counter() - t
        out["frames"] += 1
        point_w = float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
        dice = gt.get("dice") or []
        _score(dice, [d["top_center"] for d in dice], reads, 0.5 * point_w, out, name,
               Path(f).stem)
    return out


def renders_pipeline(root: Path, jobs: int, limit: int | None, auto: bool = False,
                     folders: list[Path] | None = None) -> dict[str, Any] | None:
    """The whole vision stage's dice on every set-up of ``renders/dev`` and the game, or of
    ``folders`` (camera set-ups laid out as ``renders/dev`` is)."""
    sessions: list[tuple[str, str, list[str]]] = []
    for folder in folders or [root / "renders/dev"]:
        for start in sorted(folder.glob("*_00_start.jpg")):
            name = start.name.split("_")[0]
            files = sorted(str(f) for f in folder.glob(f"{name}_[0-9][0-9].json"))
            sessions.append((str(start), name, [f for f in files if not f.endswith("_00.json")]))
    for game in folders or [root / "renders/game/frames"]:
        # a rendered game (game_frames.py): NAME_000 is the start, then every frame of play
        for start in sorted(game.glob("*_000.jpg")):
            name = start.name.rsplit("_", 1)[0]
            files = sorted(str(f) for f in game.glob(f"{name}_[0-9][0-9][0-9].json"))
            sessions.append((str(start), name if folders else "game",
                             [f for f in files if not f.endswith("_000.json")]))
    if not sessions:
        return None
    if limit:
        sessions = [(s, n, f[:limit]) for s, n, f in sessions]
    total: dict[str, Any] = {}
    for res in _map(_session_job, [(*s, auto) for s in sessions], jobs):
        for k, v in res.items():
            total[k] = total.get(k, [] if isinstance(v, list) else 0) + v
    return total


def sim_demo(limit: int | None) -> tuple[int, int]:
    """(frames, frames right) of the bundled match through pibg.sim and the vision stage."""
    from pibg.app import DEMO_MISHAPS, demo_events
    from pibg.script import Scene, table_script
    from pibg.sim import SimScene, render, sim_corners
    from pibg.vision.geometry import START_POINTS
    from pibg.vision.pipeline import Vision

    vision = Vision.from_start_frame(render(SimScene(START_POINTS)), sim_corners())
    n = ok = 0
    for i, a in enumerate(table_script(demo_events(), DEMO_MISHAPS)):
        if not isinstance(a, Scene) or a.hand or (a.dice is None and a.kind != "moved"):
            continue
        if limit and n >= limit:
            break
        scene = SimScene(a.points, a.bar, a.off, a.dice, a.cocked, a.cube_value,
                         a.cube_owner, a.hand, seed=i,  # type: ignore[arg-type]
                         leans_on="checker")  # as `pibg demo` draws a cocked die
        got = sorted((d.value, d.flat) for d in vision.observe(render(scene)).dice)
        if a.dice is None:
            right = not got
        elif a.cocked:  # the cocked die may be missed or read as cocked, never as flat
            right = sum(1 for g in got if g[1]) <= 1
        else:
            right = got == sorted((v, True) for v in a.dice)
        n += 1
        ok += int(right)
    return n, ok


# --- driver ----------------------------------------------------------------------------------


def _map(fn: Any, items: list[Any], jobs: int) -> Iterator[Any]:
    if jobs <= 1:
        yield from map(fn, items)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(fn, items, chunksize=4)


def _row(name: str, boxes: int, correct: int) -> str:
    pct = f"{100.0 * correct / boxes:6.2f}" if boxes else "     -"
    return f"{name:<34} {boxes:>6} {correct:>8} {pct:>7}"


def _print_pipeline(args: argparse.Namespace, p: dict[str, Any]) -> None:
    if args.auto_corners:
        print("renders pipeline: calibrated on the board finder's corners")
    print(_row("renders pipeline (flat)", int(p["flat_n"]), int(p["flat_ok"])))
    print(_row("renders pipeline cocked read flat", int(p["cocked_n"]),
               int(p["cocked_flat"])))
    print(f"{'renders pipeline false dice':<34} {int(p['false']):>6}")
    print(f"{'renders pipeline ms per frame':<34} {int(p['frames']):>6} "
          f"{1e3 * p['seconds'] / max(p['frames'], 1):>8.1f}")
    names = [k[len("session "):-len(" n")] for k in p if k.startswith("session ")
             and k.endswith(" n")]
    print("renders pipeline by session (flat): " + ", ".join(
        f"{n} {int(p[f'session {n} ok'])}/{int(p[f'session {n} n'])}" for n in names))
    if args.misses:
        for line in p.get("misses", []):
            print(f"  miss: {line}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="first N boxes / frames only")
    ap.add_argument("--setups", type=Path, nargs="+", default=None,
                    help="only the whole vision stage, on the camera set-ups in these folders "
                         "(e.g. ../shared/renders/unseen and the random:SEED renders)")
    ap.add_argument("--auto-corners", action="store_true",
                    help="calibrate the vision stage on the board finder's corners")
    ap.add_argument("--misses", action="store_true",
                    help="list every die the whole vision stage got wrong on the renders")
    restyle.add_options(ap)
    args = ap.parse_args(argv)
    global _STYLE
    _STYLE = restyle.Restyle(args.channels, args.light, args.tone)
    print(f"{'data set':<34} {'boxes':>6} {'correct':>8} {'%':>7}")
    if args.setups:
        p = renders_pipeline(args.data, args.jobs, args.limit, args.auto_corners, args.setups)
        if p is not None:
            _print_pipeline(args, p)
        return 0
    for split in ("train", "test"):
        t = photo_split(args.data, split, args.jobs, args.limit)
        if t is None:
            print(f"{'photos/dice ' + split:<34} (absent, skipped)")
        else:
            print(_row(f"photos/dice {split}", t.boxes, t.correct))
            print(_row(f"photos/dice {split} face as seen", t.boxes, t.as_seen))
    r = renders(args.data, args.jobs, args.limit)
    if r is None:
        print(f"{'renders':<34} (absent, skipped)")
    else:
        print(_row("renders crops (read_die)", r["crop_n"], r["crop_ok"]))
        print(_row("renders find_dice (flat)", r["flat_n"], r["flat_ok"]))
        print(_row("renders cocked read as flat", r["cocked_n"], r["cocked_flat"]))
        print(f"{'renders false dice (no die there)':<34} {r['false']:>6}")
    p = renders_pipeline(args.data, args.jobs, args.limit, args.auto_corners)
    if p is not None:
        _print_pipeline(args, p)
    n, ok = sim_demo(args.limit)
    print(_row("sim demo match frames (pipeline)", n, ok))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
