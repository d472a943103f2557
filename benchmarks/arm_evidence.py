"""What tells an arm over the board from a clean frame, frame by frame: a table of the evidence
the arm check (``Vision._arm_over``) weighs, for frames with an arm and clean frames apart.

Every set-up of ``renders/dev``, ``renders/unseen``, the game and each ``--random-dir`` is
calibrated as its players would (``leave_one_out.calibrate_as_user``, ``renders/dev`` read
by networks trained without its style where ``--nets`` holds them) and every frame read
once. For each frame, as the check sees it: the places the checker-place network sees an arm
over (past those that looked like an arm at calibration), the rail samples round the frame
whose colour changed, the arm places unlike every colour learnt, and the places read as
checkers unlike every colour learnt (``ODD_CHECKER``; the check does not weigh these).
Prints how many frames of each kind have at least N of each, and the arm frames read as a
board with their evidence, and the clean frames with an arm place unlike every colour (or
three checker places so): where the clean frames' column is as high as the missed arms', no
threshold on that evidence tells them apart.

    python benchmarks/arm_evidence.py [--nets DIR] [--shipped NET] [--random-dir DIR ...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import leave_one_out as L

from pibg.vision import pipeline as P
from pibg.vision.geometry import VisionConfig

_SEEN: dict[str, int] = {}
_ARM_PLACES = P.Vision._arm_places
_RAILS = P.Vision._rails_changed


#: A place the network reads as a checker whose colour lies this far from every colour learnt
#: (``hand_far``'s measure) counts as a checker unlike every colour: an arm the network takes
#: for checkers (render rnj1_04: a bare arm over points 6 to 9 read as Black's checkers).
ODD_CHECKER = 40.0


def _places_kept(self: P.Vision, canon: Any, reading: Any, net: Any, *light: Any) -> Any:
    """The arm check's places, their counts kept in ``_SEEN``, and the places read as
    checkers unlike every colour learnt (``light``: the places' colours and the frame's
    gain, passed on)."""
    arm, band, far = _ARM_PLACES(self, canon, reading, net, *light)
    n = self._slots.shape[0] * self._slots.shape[1]
    known = np.minimum(np.minimum(reading.d_empty, reading.d_white), reading.d_black)
    odd = (net.checker[:n] > 0) & (known.reshape(-1) >= ODD_CHECKER)
    together = max(map(len, self._groups(np.flatnonzero(arm))), default=0)
    _SEEN.update(arm=int(arm.sum()), far=int(far.sum()), odd=int(odd.sum()), group=together)
    return arm, band, far


def _rails_kept(self: P.Vision, img: Any, gain: Any, ii: Any) -> int:
    """The rail samples changed, kept in ``_SEEN``."""
    _SEEN["rails"] = rails = _RAILS(self, img, gain, ii)
    return rails


def one(args: tuple[str, str, list[str], str | None]) -> list[dict[str, Any]]:
    _name, start, frames, model = args
    cv2.setNumThreads(1)
    P.Vision._arm_places = _places_kept  # type: ignore[method-assign]
    P.Vision._rails_changed = _rails_kept  # type: ignore[method-assign]
    vision = L.calibrate_as_user(start, VisionConfig(place_model=model or "")).vision
    out: list[dict[str, Any]] = []
    if vision is None:
        return out
    for f in frames:
        spec = json.loads(Path(f).with_suffix(".json").read_text())["spec"]
        _SEEN.clear()
        obs = vision.observe(cv2.imread(f))
        if "arm" in _SEEN:  # the arm check weighed it (not refused before: a misfit)
            out.append(dict(_SEEN, frame=Path(f).stem, hand=bool(spec.get("hand")),
                            readable=obs.readable))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    L.shared_args(ap)
    ap.add_argument("--nets", type=Path, default=None,
                    help="networks trained without each renders/dev style (leave_one_out.py)")
    ap.add_argument("--shipped", type=Path, default=None,
                    help="read the set-ups the shipped network reads with this one instead")
    args = ap.parse_args()
    if not (args.shared / "renders").is_dir():
        print(f"no renders under {args.shared}: give --shared", file=sys.stderr)
        return 2
    todo = []
    for name, start, rest, _group in L.setups(args.shared, args.random_dir):
        model = L.network_for(name, args.nets)[1] if args.nets is not None else None
        if L.network_for(name, Path())[1] is None and args.shipped is not None:
            model = args.shipped
        todo.append((name, str(start), [str(f) for f in rest],
                     str(model) if model is not None and model.is_file() else None))
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [r for part in pool.map(one, todo) for r in part]
    print("| evidence | at least | arm frames | clean frames |\n|---|---|---|---|")
    for key, what in (("arm", "arm places"),
                      ("group", "arm places together (within hand_reach of the next)"),
                      ("rails", "rails changed"),
                      ("far", "arm places unlike every colour"),
                      ("odd", f"checker places unlike every colour ({ODD_CHECKER:g})")):
        for n in (1, 2, 3, 5, 7):
            got = Counter(r["hand"] for r in rows if r[key] >= n)
            print(f"| {what} | {n} | {got[True]} of {sum(r['hand'] for r in rows)} | "
                  f"{got[False]} of {sum(not r['hand'] for r in rows)} |")
    print("\narm frames read as a board:")
    for r in rows:
        if r["hand"] and r["readable"]:
            print(f"  {r['frame']}: {r['arm']} arm places ({r['group']} together), "
                  f"{r['rails']} rails changed, {r['far']} unlike every colour, {r['odd']} "
                  f"checker places so")
    print("\nclean frames refused (an arm, or another reason after the arm check):")
    for r in rows:
        if not r["hand"] and not r["readable"]:
            print(f"  {r['frame']}: {r['arm']} arm places ({r['group']} together), "
                  f"{r['rails']} rails changed, {r['far']} unlike every colour")
    print("\nclean frames with an arm place unlike every colour, or 3 checker places so:")
    for r in rows:
        if not r["hand"] and (r["far"] or r["odd"] >= 3):
            read = "as a board" if r["readable"] else "refused"
            print(f"  {r['frame']}: {r['arm']} arm places, {r['rails']} rails changed, "
                  f"{r['far']} unlike every colour, {r['odd']} checker places so, read {read}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
