"""Checker counting on the canonical top-down view: pure stage functions.

Every checker place (a slot on a point, on the bar) is sampled as the mean Lab colour of a
small disc and compared with three learnt classes: the empty board at that very place (from
the starting-position frame), White's checkers and Black's. A point's count is the run of
occupied places from its base; checkers stacked in a second layer (from the 6th on) are
hidden from above, so they are inferred from each colour's total of 15.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from pibg.observation import RegionRead
from pibg.vision.geometry import Array, Layout, VisionConfig

EMPTY, WHITE, BLACK = 0, 1, 2


@dataclass(frozen=True, slots=True)
class ColourModel:
    """Mean and spread (Lab) of one class."""

    mean: tuple[float, float, float]
    sigma: tuple[float, float, float]

    def dist2(self, f: Array) -> Array:
        m = np.asarray(self.mean, np.float32)
        s = np.asarray(self.sigma, np.float32)
        return np.asarray((((f - m) / s) ** 2).sum(-1), np.float32)


@dataclass(frozen=True, slots=True)
class SlotReading:
    """Per-place class distances for one frame."""

    d_empty: Array  #: (..., ) squared normalised distance to the empty board
    d_white: Array
    d_black: Array

    def classes(self) -> Array:
        return np.asarray(np.argmin(np.stack([self.d_empty, self.d_white, self.d_black], -1),
                                    -1), np.int8)

    def probs(self, softness: float) -> Array:
        """(..., 3) class probabilities from the distances."""
        d = np.stack([self.d_empty, self.d_white, self.d_black], -1) / (2.0 * softness)
        d = d - d.min(-1, keepdims=True)
        e = np.exp(-np.minimum(d, 50.0))
        return np.asarray(e / e.sum(-1, keepdims=True), np.float64)


def lab_image(canon: Array) -> Array:
    return np.asarray(cv2.cvtColor(canon, cv2.COLOR_BGR2LAB), np.float32)


def sample_discs(cfg: VisionConfig, layout: Layout, lab: Array,
                 centres: Array) -> Array:
    """Mean Lab over a small box round each centre; ``centres`` (..., 2) -> (..., 3)."""
    r = max(1, round(layout.checker_px * cfg.sample_radius))
    h, w = lab.shape[:2]
    c = np.asarray(centres, np.float32)
    flat = c.reshape(-1, 2)
    xs = np.clip(np.round(flat[:, 0]).astype(np.int32), r, w - r - 1)
    ys = np.clip(np.round(flat[:, 1]).astype(np.int32), r, h - r - 1)
    # An integral image makes every box mean O(1).
    ii = cv2.integral(lab)
    x0, x1, y0, y1 = xs - r, xs + r + 1, ys - r, ys + r + 1
    s = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
    out = s / float((2 * r + 1) ** 2)
    return np.asarray(out, np.float32).reshape(*c.shape[:-1], 3)


def gain_corrected(feat: Array, background: Array, mask: Array) -> Array:
    """Scale lightness so that places believed empty match the calibration's brightness."""
    if mask.sum() < 5:
        return feat
    ratio = float(np.median(feat[..., 0][mask] / np.maximum(background[..., 0][mask], 1.0)))
    ratio = min(max(ratio, 0.3), 3.0)
    out = feat.copy()
    out[..., 0] = out[..., 0] / ratio
    return out


def classify_places(cfg: VisionConfig, feat: Array, background: Array,
                    white: ColourModel, black: ColourModel, rounds: int = 2) -> SlotReading:
    """Distances of each place to empty / White / Black, correcting for a change of light."""
    bs = np.asarray(cfg.background_sigma, np.float32)
    f = feat
    reading = SlotReading(np.zeros(feat.shape[:-1], np.float32),
                          np.zeros(feat.shape[:-1], np.float32),
                          np.zeros(feat.shape[:-1], np.float32))
    for i in range(rounds):
        reading = SlotReading(
            np.asarray((((f - background) / bs) ** 2).sum(-1), np.float32),
            white.dist2(f), black.dist2(f))
        if i + 1 < rounds:
            f = gain_corrected(feat, background, reading.classes() == EMPTY)
    return reading


def run_counts(classes: Array) -> tuple[Array, Array]:
    """For (24, K) place classes: the run length from the base, and the run's colour."""
    occ = classes != EMPTY
    # Length of the leading run of occupied places.
    run = np.argmin(np.concatenate([occ, np.zeros((occ.shape[0], 1), bool)], 1), 1)
    colour = np.zeros(len(run), np.int8)
    for p, n in enumerate(run):
        if n:
            c = classes[p, :n]
            colour[p] = WHITE if (c == WHITE).sum() >= (c == BLACK).sum() else BLACK
    return run, colour


def point_reads(probs: Array, run: Array, colour: Array,
                extra: Array) -> tuple[RegionRead, ...]:
    """Turn per-place probabilities into a RegionRead per point.

    ``probs`` (24, K, 3). The likelihood of a count n of colour c is the product over places of
    P(occupied by c) for the first n and P(empty) beyond. ``extra`` (24,) holds checkers inferred
    in a second layer; they are added to the count with a little doubt about their number.
    """
    reads = []
    k = probs.shape[1]
    eps = 1e-6
    for p in range(probs.shape[0]):
        pe = np.maximum(probs[p, :, EMPTY], eps)
        table: dict[int, float] = {}
        for c, sign in ((WHITE, 1), (BLACK, -1)):
            pc = np.maximum(probs[p, :, c], eps)
            for n in range(0, k + 1):
                lik = float(np.prod(pc[:n]) * np.prod(pe[n:]))
                key = sign * n
                table[key] = max(table.get(key, 0.0), lik)
        total = sum(table.values())
        dist = {n: v / total for n, v in table.items()}
        if extra[p]:
            sign = 1 if colour[p] == WHITE else -1
            base = sign * int(run[p])
            keep = dist.get(base, 0.0)
            shifted = {n: v for n, v in dist.items() if n != base}
            e = int(extra[p])
            for de, w in ((0, 0.8), (-1, 0.1), (1, 0.1)):
                if e + de > 0:
                    n = base + sign * (e + de)
                    shifted[n] = shifted.get(n, 0.0) + keep * w
            dist = shifted
        dist = {n: v for n, v in dist.items() if v > 1e-5}
        reads.append(RegionRead.from_mapping(dist))
    return tuple(reads)


def second_layer(run: Array, colour: Array, k: int, visible: dict[int, int]
                 ) -> Array:
    """Spread each colour's missing checkers (15 - seen) over its points with a full first layer.

    Players build the second layer from the 6th checker on, so only full points can hold more.
    ``visible`` maps colour -> checkers seen elsewhere (bar, tray). Returns extras per point.
    """
    extra = np.zeros(len(run), np.int32)
    for c in (WHITE, BLACK):
        seen = int(run[colour == c].sum()) + visible.get(c, 0)
        missing = 15 - seen
        full = [p for p in range(len(run)) if colour[p] == c and run[p] >= k]
        if missing <= 0 or not full:
            continue
        share, rest = divmod(missing, len(full))
        for i, p in enumerate(full):
            extra[p] = share + (1 if i < rest else 0)
    return extra


def count_read(n: int, confidence: float) -> RegionRead:
    """A count with the rest of the probability on its neighbours."""
    confidence = min(max(confidence, 0.34), 0.999)
    rest = 1.0 - confidence
    probs = {n: confidence}
    if n > 0:
        probs[n - 1] = rest / 2
        probs[n + 1] = rest / 2
    else:
        probs[1] = rest
    return RegionRead.from_mapping(probs)


def tray_count(cfg: VisionConfig, layout: Layout, lab: Array, background: Array,
               model: ColourModel, white: bool) -> tuple[int, float]:
    """Count checkers standing on edge in one half of the tray: filled length / pitch.

    ``background`` holds the empty tray's Lab colour per canonical row of that half.
    """
    x0, y0, x1, y1 = layout.tray_rect(white)
    w = lab.shape[1]
    xa, xb = int(max(x0 + (x1 - x0) * 0.25, 0)), int(min(x1 - (x1 - x0) * 0.25, w - 1))
    ya, yb = int(y0), int(y1)
    if xb <= xa or yb <= ya:
        return 0, 0.5
    rows = lab[ya:yb, xa:xb].mean(1)
    bs = np.asarray(cfg.background_sigma, np.float32)
    d_bg = (((rows - background[: len(rows)]) / bs) ** 2).sum(-1)
    d_ch = model.dist2(rows)
    filled = (d_bg > cfg.tray_filled) & (d_ch < d_bg)
    n_rows = int(filled.sum())
    pitch = layout.tray_capacity_px()
    est = n_rows / pitch
    n = round(est)
    n = min(max(n, 0), 15)
    conf = 0.95 - min(abs(est - n), 0.5)
    return n, conf
