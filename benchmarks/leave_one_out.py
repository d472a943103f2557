"""Leave one board out: each rendered camera set-up read as a user meets it, by a checker-place
network that never saw that board, printed as one table (the README's vision table).

    python benchmarks/leave_one_out.py --nets DIR [--train] [--random-dir DIR ...] [--jobs 2]

Each row is one set-up: calibrated from its start frame with the corners the board finder
finds (``pibg calibrate`` without ``--corners``), then every frame read once
(``Vision.observe``): its 28 regions, its cube and its dice, scored against the labels.

Which network reads a set-up:

- ``renders/dev`` and the game: the network trained without that board's style (walnut: dev0
  and dev3; tournament: dev1 and the game; oak: dev2), ``DIR/no_STYLE.onnx``, made by
  ``--train`` by the shipped network's recipe (``scripts/board_net/extract.py``,
  ``extract_sim.py``, then ``train.py --leave-out``) with that style's renders and pibg.sim's
  drawn boards of that style left out. The vision stage's constants were chosen on these
  boards before the network; only the network is left out.
- ``renders/unseen`` (dev4, dev5) and the ``random:SEED`` set-ups of each ``--random-dir``
  (``benchmarks/random_boards``): the network pibg ships, which never saw them.

``--train`` needs PyTorch and onnx (``pip install torch onnx``), about 3 minutes a network on
2 cores. Without a network for a style its rows are left out, saying so.

Columns: the board found automatically (where the two checker colours are about as light,
``pibg calibrate`` names the lighter White and says how to name the other so: a set-up whose
labels call the other colour White is calibrated again with ``--white-home``, as its players
would, and says so); regions right (of 28 per clean frame; a frame read
as unreadable counts all 28 wrong); clean frames right in every region; clean frames refused
(reported unreadable); frames with an arm read as a board (any region reported, right or
wrong: the target is 0, as the referee must not judge an arm); the cube's value and owner
right; flat dice read right (value, flat, within half a point of the label); cocked dice
read as flat (target 0).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_accuracy import _score as score_dice
from vision_accuracy import Tally, score_frame

from pibg.exc import PibgError
from pibg.observation import BoardObservation
from pibg.vision.geometry import VisionConfig
from pibg.vision.pipeline import Vision

ROOT = Path(__file__).resolve().parents[1]
#: The rendered styles the vision was built on, their set-ups (the game is m023g1) and
#: pibg.sim's drawn boards of the same style.
STYLES = {"walnut": ("dev0", "dev3", "sim-walnut"),
          "tournament": ("dev1", "m023g1", "sim-tournament"),
          "oak": ("dev2", "sim-oak")}


@dataclass
class Row:
    name: str
    network: str
    found: bool = False
    tally: Tally | None = None
    flat: int = 0
    flat_ok: int = 0
    cocked: int = 0
    cocked_flat: int = 0
    misses: list[str] | None = None
    #: clean frames wrong only in which full point of a colour holds a checker of its second
    #: layer (see :func:`split_only`)
    split: int = 0
    #: checkers about as light, named as the players name them (``--white-home``, as
    #: ``pibg calibrate``'s note says)
    named: bool = False


def setups_in(folder: Path) -> list[tuple[str, Path, list[Path]]]:
    """(name, start frame, other frames) of each set-up rendered in ``folder``: a camera
    set-up's ``NAME_00_start.jpg`` and ``NAME_NN.jpg``, or a game's ``NAME_000.jpg`` and
    ``NAME_NNN.jpg`` (each frame's labels beside it, ``.json``)."""
    out: list[tuple[str, Path, list[Path]]] = []
    for start in sorted(folder.glob("*_00_start.jpg")):
        name = start.name.split("_")[0]
        out.append((name, start, sorted(folder.glob(f"{name}_[0-9][0-9].jpg"))))
    for start in sorted(folder.glob("*_000.jpg")):
        name = start.name.rsplit("_", 1)[0]
        out.append((name, start, sorted(f for f in folder.glob(f"{name}_[0-9][0-9][0-9].jpg")
                                        if f != start)))
    return out


def setups(shared: Path, random_dirs: list[Path]) -> list[tuple[str, Path, list[Path], str]]:
    """(name, start frame, other frames, the group it is summed in) of every set-up."""
    folders = [(shared / "renders/dev", "dev"), (shared / "renders/unseen", "unseen")]
    folders += [(d, d.name) for d in random_dirs]
    folders += [(shared / "renders/game/frames", "dev")]
    return [(name, start, rest, group) for folder, group in folders
            for name, start, rest in setups_in(folder)]


def split_only(spec: dict[str, Any], obs: Any, first: int = 5) -> bool:
    """Whether a readable frame is wrong only in which full point of a colour holds the
    checkers of a second layer: every wrong region a point, holding ``first`` or more of
    that colour both in the label and as read, and each colour's count over those points
    right. A stacked checker shows only its top from above; the referee settles which point
    holds it from the legal plays."""
    if not obs.readable:
        return False
    truth, got = list(spec["points"]), list(obs.signed_points())
    others = [spec["bar"]["white"], spec["bar"]["black"], spec["off"]["white"],
              spec["off"]["black"]]
    if others != [obs.bar_white.count, obs.bar_black.count, obs.off_white.count,
                  obs.off_black.count]:
        return False
    wrong = [i for i in range(24) if truth[i] != got[i]]
    if not wrong:
        return False
    for sign in (1, -1):
        mine = [i for i in wrong if truth[i] * sign > 0 or got[i] * sign > 0]
        if any(truth[i] * sign < first or got[i] * sign < first for i in mine):
            return False
        if sum(truth[i] for i in mine) != sum(got[i] for i in mine):
            return False
    return True


def label_home(gt: dict[str, Any]) -> str:
    """Where White's home board lies in a rendered frame, from its labels: the quarter of
    the board where point 1's base stands."""
    corners = np.asarray(gt["board_corners"], np.float64)
    cx, cy = corners.mean(0)
    x, y = gt["points"][0]["base"]
    return f"{'bottom' if y > cy else 'top'}-{'right' if x > cx else 'left'}"


@dataclass(frozen=True)
class Calibrated:
    """A set-up calibrated from its start frame as its players would calibrate it."""

    vision: Vision | None  #: None: not calibrated at all, on its labelled corners either
    found: bool  #: the board found automatically (else read on its labelled corners)
    named: bool  #: calibrated again with ``--white-home``, as ``pibg calibrate``'s note says
    problem: str | None  #: why the board was not found, or not calibrated


def calibrate_as_user(start: str, cfg: VisionConfig) -> Calibrated:
    """The start frame at ``start`` calibrated on the corners the board finder finds
    (``pibg calibrate`` without ``--corners``). Where the two checker colours are about as
    light, pibg names the lighter White and says how to name the other so: a set-up whose
    labels call the other colour White is calibrated again with that ``--white-home``. A
    board not found is calibrated on its labelled corners, as a user giving ``--corners``."""
    image = cv2.imread(start)
    label = json.loads(Path(start).with_suffix(".json").read_text())["gt"]
    try:
        vision = Vision.from_start_frame(image, config=cfg)
    except PibgError as exc:
        try:
            vision = Vision.from_start_frame(image, np.asarray(label["board_corners"]),
                                             config=cfg)
        except PibgError as again:
            return Calibrated(None, False, False, f"not calibrated, on its labelled corners "
                                                  f"either ({again})")
        return Calibrated(vision, False, False, f"board not found ({exc}); read on its "
                                                "labelled corners")
    home = label_home(label)
    if vision.calibration.naming_note() and vision.calibration.white_home != home:
        return Calibrated(Vision.from_start_frame(image, None, home, config=cfg), True, True,
                          None)
    return Calibrated(vision, True, False, None)


def shared_args(ap: argparse.ArgumentParser) -> None:
    """The options every benchmark over the rendered set-ups takes: where ``../shared`` is,
    the folders of ``random:SEED`` set-ups, and how many set-ups to read at once."""
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get(
        "PIBG_SHARED", str(ROOT.parent / "shared"))))
    ap.add_argument("--random-dir", type=Path, action="append", default=[],
                    help="frames rendered from a spec in benchmarks/random_boards (spec.json, "
                         "fresh_spec.json); again for each, summed by folder")
    ap.add_argument("--jobs", type=int, default=2)


def network_for(name: str, nets: Path) -> tuple[str, Path | None]:
    """The network that never saw set-up ``name``: (what to call it, its path; None for the
    one pibg ships)."""
    for style, names in STYLES.items():
        if name in names:
            return f"no_{style}", nets / f"no_{style}.onnx"
    return "shipped", None


def measure(args: tuple[str, str, list[str], str | None]) -> Row:
    """One set-up, read with the network at ``model`` (None: the shipped one)."""
    name, start, frames, model = args
    cv2.setNumThreads(1)
    cfg = VisionConfig(place_model=model or "")
    cal = calibrate_as_user(start, cfg)
    vision = cal.vision  # None: not calibrated at all, every frame refused
    row = Row(name, Path(model).stem if model else "shipped", found=cal.found,
              tally=Tally(), misses=[f"{name}: {cal.problem}"] if cal.problem else [],
              named=cal.named)
    assert row.tally is not None and row.misses is not None
    for f in frames:
        lab = json.loads(Path(f).with_suffix(".json").read_text())
        obs = (vision.observe(cv2.imread(f)) if vision is not None
               else BoardObservation.unreadable("not calibrated"))
        score_frame(row.tally, Path(f).stem, lab["spec"], obs)
        if lab["spec"].get("hand"):
            continue
        row.split += int(vision is not None
                         and split_only(lab["spec"], obs, vision.layout.slots_per_point()))
        gt = lab["gt"]
        dice = gt.get("dice") or []
        point_w = float(np.mean([math.dist(*p["base_ends"]) for p in gt["points"]]))
        out: dict[str, Any] = {"flat_n": 0, "flat_ok": 0, "cocked_n": 0, "cocked_flat": 0,
                               "false": 0}
        score_dice(dice, [d["top_center"] for d in dice], list(obs.dice), 0.5 * point_w, out,
                   name, Path(f).stem)
        row.flat += out["flat_n"]
        row.flat_ok += out["flat_ok"]
        row.cocked += out["cocked_n"]
        row.cocked_flat += out["cocked_flat"]
        row.misses += [f"dice {m}" for m in out.get("misses", [])]
    row.misses += row.tally.errors
    return row


def train(nets: Path, shared: Path) -> None:
    """Train one network without each style (``--train``), by the shipped network's recipe
    (``scripts/board_net/train.py``): the renders' crops and pibg.sim's, that style's set-ups
    and drawn boards left out."""
    nets.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    renders, sim = nets / "renders.npz", nets / "sim.npz"
    if not renders.exists():
        subprocess.run([py, str(ROOT / "scripts/board_net/extract.py"), str(renders),
                        str(shared / "renders/dev"), str(shared / "renders/game/frames")],
                       check=True)
    if not sim.exists():
        subprocess.run([py, str(ROOT / "scripts/board_net/extract_sim.py"), str(sim),
                        "--frames", "50", "--seed", "5"], check=True)
    for style, names in STYLES.items():
        out = nets / f"no_{style}.onnx"
        if out.exists():
            continue
        subprocess.run([py, str(ROOT / "scripts/board_net/train.py"), str(renders), str(sim),
                        "--epochs", "6", "--leave-out", ",".join(names), "--out", str(out)],
                       check=True)


def _pct(a: int, b: int) -> str:
    return "-" if b == 0 else f"{math.floor(10000.0 * a / b) / 100:.2f} %"


def table(rows: list[Row], groups_of: dict[str, str]) -> str:
    head = ("| set-up | network | board found | regions right | frames right (+ a stacked "
            "checker's point only) | clean frames refused | arms read as a board | cube right "
            "| flat dice right | cocked read flat |")
    lines = [head, "|" + "---|" * 10]

    def line(name: str, net: str, found: str, t: Tally, split: int, flat: int, flat_ok: int,
             cocked: int, cocked_flat: int) -> str:
        arms = t.hand_frames - t.hand_ok
        return (f"| {name} | {net} | {found} | {_pct(t.regions_ok, t.regions)} | "
                f"{t.frames_ok} of {t.frames} (+{split}) | {t.unreadable_clean} of {t.frames} | "
                f"{arms} of {t.hand_frames} | {_pct(t.cube_ok, t.cube)} | "
                f"{flat_ok} of {flat} | {cocked_flat} of {cocked} |")

    groups: dict[str, list[Row]] = {}
    for r in rows:
        assert r.tally is not None
        found = ("**no**" if not r.found else
                 "yes, White named by --white-home" if r.named else "yes")
        lines.append(line(r.name, r.network, found, r.tally, r.split,
                          r.flat, r.flat_ok, r.cocked, r.cocked_flat))
        kind = (f"{r.network[3:]} left out" if r.network.startswith("no_") else
                groups_of.get(r.name, "others"))
        groups.setdefault(kind, []).append(r)
    for kind, rs in groups.items():
        t = Tally()
        for r in rs:
            assert r.tally is not None
            t.add(r.tally)
        found = f"{sum(r.found for r in rs)} of {len(rs)}"
        lines.append(line(f"**all {kind}**", "", found, t, sum(r.split for r in rs),
                          sum(r.flat for r in rs),
                          sum(r.flat_ok for r in rs), sum(r.cocked for r in rs),
                          sum(r.cocked_flat for r in rs)))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    shared_args(ap)
    ap.add_argument("--nets", type=Path, required=True,
                    help="folder of the networks trained without each style (no_walnut.onnx, "
                         "no_tournament.onnx, no_oak.onnx)")
    ap.add_argument("--train", action="store_true",
                    help="make the networks missing from --nets first (needs torch, onnx)")
    ap.add_argument("--only", default="", help="comma-separated set-ups (all by default)")
    ap.add_argument("--shipped", type=Path, default=None,
                    help="read the set-ups the shipped network reads with this one instead "
                         "(a network retrained by scripts/board_net/train.py, measured before "
                         "it replaces pibg/data/place_net.onnx)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list what each got wrong")
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no data at {args.shared}: nothing to measure")
        return 0
    if args.train:
        train(args.nets, args.shared)
    only = {n for n in args.only.split(",") if n}
    jobs: list[tuple[str, str, list[str], str | None]] = []
    groups_of: dict[str, str] = {}
    for name, start, frames, group in setups(args.shared, args.random_dir):
        groups_of[name] = group
        if only and name not in only:
            continue
        _, path = network_for(name, args.nets)
        if path is not None and not path.exists():
            print(f"{name}: left out, no {path} (run with --train)", file=sys.stderr)
            continue
        if path is None and args.shipped is not None:
            path = args.shipped
        jobs.append((name, str(start), [str(f) for f in frames],
                     None if path is None else str(path)))
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(measure, jobs))
    print(table(rows, groups_of))
    if args.verbose:
        for r in rows:
            for m in r.misses or []:
                print(f"  {r.name}: {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
