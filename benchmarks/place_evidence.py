"""The checker-place network's log-odds and the rim's score at every first-layer place, against
the labels: where the network is unsure, does the rim tell?

    python benchmarks/place_evidence.py [--shared ../shared] [--random-dir DIR ...]

Every clean frame (no hand) of ``renders/dev``, the game, ``renders/unseen`` (where present)
and each ``--random-dir`` (frames rendered from a spec in ``benchmarks/random_boards``),
calibrated from its set-up's start frame as a user's would be
(``leave_one_out.calibrate_as_user``). Each first-layer place of the 24 points is occupied
when its point's label holds more checkers than the places below it. The places are put in
bands by the network's log-odds (as ``Vision.observe`` reads them, before the rim's
evidence) and, for the occupied and the empty ones of each band, the rim's score
(``board.ring_scores``: 0 no rim, 1 a whole one) is summarised. ``VisionConfig.place_rim_clip``
rests on it: the network sure beyond +-3 and right there, the rim apart between occupied and
empty places where it is unsure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from leave_one_out import calibrate_as_user, setups

from pibg.vision import board as B
from pibg.vision import pipeline as PL
from pibg.vision.geometry import VisionConfig

BANDS = ((-np.inf, -3.0), (-3.0, -1.0), (-1.0, 1.0), (1.0, 3.0), (3.0, np.inf))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--random-dir", type=Path, action="append", default=[])
    args = ap.parse_args()
    seen: dict[str, Any] = {}
    real = PL.Vision._observe_shapes

    def watched(self: PL.Vision, canon: Any, frame: Any, ii: Any, gain: Any, reading: Any,
                net: Any) -> Any:
        n = self._slots.shape[0] * self._slots.shape[1]
        edges, _ = B.edge_map(self.config, canon)
        seen["logits"] = net.checker[:n].reshape(self._slots.shape[:-1]).copy()
        seen["ring"] = B.ring_scores(edges, self._ring_idx, self._slots.shape[:-1],
                                     self.config.ring_rank)
        return real(self, canon, frame, ii, gain, reading, net)

    rows: list[tuple[int, float, float]] = []  # (occupied, log-odds, rim)
    PL.Vision._observe_shapes = watched  # type: ignore[method-assign]
    try:
        for _name, start, frames, _group in setups(args.shared, args.random_dir):
            vision = calibrate_as_user(str(start), VisionConfig()).vision
            if vision is None:
                continue
            for path in frames:
                spec = json.loads(path.with_suffix(".json").read_text())["spec"]
                if spec.get("hand"):
                    continue
                seen.clear()
                vision.observe(cv2.imread(str(path)))
                if "logits" not in seen:
                    continue  # refused before the network was asked
                logits, ring = seen["logits"], seen["ring"]
                for p in range(24):
                    n = abs(int(spec["points"][p]))
                    for j in range(logits.shape[1]):
                        rows.append((int(j < n), float(logits[p, j]), float(ring[p, j])))
    finally:
        PL.Vision._observe_shapes = real  # type: ignore[method-assign]
    a = np.asarray(rows, np.float64).reshape(-1, 3)
    print(f"{len(a)} first-layer places")
    print("| network's log-odds | places | occupied | rim of occupied: mean, 10th pct | "
          "rim of empty: mean, 90th pct |")
    print("|---|---|---|---|---|")
    for lo, hi in BANDS:
        band = a[(a[:, 1] >= lo) & (a[:, 1] < hi)]
        occ, emp = band[band[:, 0] == 1, 2], band[band[:, 0] == 0, 2]
        o = f"{occ.mean():.2f}, {np.percentile(occ, 10):.2f}" if len(occ) else "-"
        e = f"{emp.mean():.2f}, {np.percentile(emp, 90):.2f}" if len(emp) else "-"
        print(f"| {lo:+.0f} to {hi:+.0f} | {len(band)} | {len(occ)} | {o} | {e} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
