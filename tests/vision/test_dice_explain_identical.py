"""The batched pip explanation (``dice_read._explain`` and its helpers) gives bit for bit what
the plain per-subset loop it replaced gave: the same floats, the same winner on ties."""

from __future__ import annotations

import dataclasses
import math
import pickle
import random

import numpy as np
import pytest

from pibg.vision import dice_read as D
from pibg.vision.dice_config import DEFAULT_CONFIG, LAYOUTS, DiceConfig, FloatArray, _Fit

Holes = list[tuple[float, float, float, float]]


def _loop_explain(holes: Holes, size: float, centre: tuple[float, float], rot: FloatArray,
                  cfg: DiceConfig, known: bool) -> list[_Fit]:
    """``_explain`` as it was: the screening, then every kept subset on its own."""
    step_lo, step_hi = (cfg.known_step_min, cfg.known_step_max) if known else (
        cfg.step_min, cfg.step_max)
    rad_many = cfg.known_unexplained_radius if known else cfg.one_unexplained_radius
    area_hi = cfg.known_pip_area_max if known else cfg.pip_area_max
    fits: list[_Fit] = []
    if not holes:
        return fits
    xy = np.array([(h[0], h[1]) for h in holes], dtype=np.float64)
    areas = np.array([h[2] for h in holes], dtype=np.float64)
    roundish = [h[3] >= cfg.unexplained_roundness for h in holes]
    crop_area = size * size
    crop_side = 2.0 * max(centre) + 1.0
    n = len(holes)
    for value in range(1, min(n, 6) + 1):
        subs = D._combos(n, value)
        a_all = areas[subs]
        c_all = xy[subs].mean(axis=1)
        off_all = np.hypot(c_all[:, 0] - centre[0], c_all[:, 1] - centre[1]) / crop_side
        if value == 1:
            one_min = cfg.known_one_area_min if known else cfg.pip_area_min
            ok = ((a_all[:, 0] >= one_min * crop_area)
                  & (a_all[:, 0] <= cfg.one_area_max * crop_area)
                  & (off_all <= cfg.one_offset_max))
        else:
            amin, amax = a_all.min(axis=1), a_all.max(axis=1)
            ok = ((amin >= cfg.pip_area_min * crop_area) & (amax <= area_hi * crop_area)
                  & (amax <= cfg.pip_size_ratio * amin) & (off_all <= cfg.centre_offset_max))
            _, rms_l, _ = D._placed(value, cfg.six_spreads if value == 6 else (1.0,),
                                    180.0 / len(rot))
            lo_l, hi_l = float(rms_l.min()), float(rms_l.max())
            q = xy[subs] - c_all[:, None, :]
            rms_q = np.sqrt((q * q).sum(axis=2).mean(axis=1))
            pip_r = np.sqrt(a_all.mean(axis=1) / math.pi)
            ok &= ((rms_q >= step_lo * size * lo_l - 1e-9)
                   & (rms_q <= step_hi * size * hi_l + 1e-9)
                   & (pip_r * lo_l <= cfg.pip_step_max * rms_q + 1e-9)
                   & (pip_r * hi_l >= cfg.pip_step_min * rms_q - 1e-9))
        best: _Fit | None = None
        keep = np.flatnonzero(ok)
        fitted = {}
        if value >= 2 and len(keep):
            res = D._fit_batch(xy[subs[keep]], value, rot, cfg.six_spreads)
            fitted = {int(j): (float(r), float(st), float(an))
                      for j, r, st, an in zip(keep, *res, strict=True)}
        for j in keep.tolist():
            s = subs[j].tolist()
            a = a_all[j]
            pts = xy[s]
            c = c_all[j]
            off = float(off_all[j])
            if value == 1:
                if known and holes[s[0]][3] < cfg.one_roundness:
                    continue
                cost = cfg.offset_weight * off * 2.0
                step = math.sqrt(a[0] / math.pi) * 1.6
                angle = 0.0
                radius = cfg.one_alone_radius * size
            else:
                resid, step, angle = fitted[j]
                if resid > cfg.residual_max or not step_lo <= step / size <= step_hi:
                    continue
                pr = math.sqrt(float(a.mean()) / math.pi)
                if not cfg.pip_step_min <= pr / step <= cfg.pip_step_max:
                    continue
                ra = np.sqrt(a)
                spread = float(np.std(ra) / np.mean(ra))
                cost = resid + cfg.offset_weight * off + cfg.size_spread_weight * spread
                radius = max(cfg.unexplained_radius * step, rad_many * size)
            med = D._quantile(a, 0.5)
            lo_ratio = 0.15 if value == 1 else 0.4
            for i in range(n):
                if i in s or not roundish[i]:
                    continue
                d = math.hypot(xy[i, 0] - c[0], xy[i, 1] - c[1])
                if lo_ratio <= areas[i] / med <= 2.5 and d < radius:
                    cost += cfg.unexplained_cost
            if best is None or cost < best.cost:
                aspect = D._affine_aspect(pts, value, angle) if value >= 4 else 1.0
                best = _Fit(value, cost, (float(c[0]), float(c[1])), step, angle, aspect,
                            tuple((float(p[0]), float(p[1])) for p in pts), pip_area=med)
        if best is not None:
            fits.append(best)
    return fits


def _random_holes(rng: random.Random, side: int, size: float) -> Holes:
    """A noisy die layout with stray spots (some repeated: equal costs), or spots anywhere;
    areas mostly whole pixel counts, as found, some fractional."""
    def area() -> float:
        return float(rng.randint(3, 45)) if rng.random() < 0.7 else rng.uniform(2.0, 45.0)

    c = (side - 1) / 2.0
    holes: Holes = []
    if rng.random() < 0.6:
        step, a = size * rng.uniform(0.2, 0.35), rng.uniform(0.0, math.pi)
        for x, y in LAYOUTS[rng.randint(1, 6)]:
            holes.append((c + step * (math.cos(a) * x - math.sin(a) * y) + rng.gauss(0, 0.7),
                          c + step * (math.sin(a) * x + math.cos(a) * y) + rng.gauss(0, 0.7),
                          area(), rng.uniform(0.3, 1.0)))
        if rng.random() < 0.2:
            holes.append(holes[0])
    while len(holes) < 7 and rng.random() < 0.5:
        holes.append((rng.uniform(0, side), rng.uniform(0, side), area(), rng.uniform(0.2, 1.0)))
    return holes[:7]


_LOOSE = dataclasses.replace(
    DEFAULT_CONFIG, residual_max=1.0, step_min=0.0, step_max=10.0, known_step_min=0.0,
    known_step_max=10.0, pip_step_min=0.0, pip_step_max=10.0, pip_size_ratio=100.0,
    centre_offset_max=10.0, one_offset_max=10.0, pip_area_min=0.0, known_one_area_min=0.0,
    one_area_max=10.0, pip_area_max=10.0, known_pip_area_max=10.0, unexplained_radius=10.0,
    one_alone_radius=10.0)


@pytest.mark.parametrize("cfg", [DEFAULT_CONFIG, _LOOSE], ids=["default", "loose"])
def test_explain_matches_the_per_subset_loop_bit_for_bit(cfg: DiceConfig) -> None:
    rng = random.Random(7)
    rot = D._rotations(cfg.angle_step)
    found = 0
    for _ in range(150):
        side = rng.choice([23, 31, 47])
        size = side * rng.choice([1.0, 0.4, 0.55])
        centre = ((side - 1) / 2.0, (side - 1) / 2.0)
        holes = _random_holes(rng, side, size)
        known = rng.random() < 0.5
        want = _loop_explain(holes, size, centre, rot, cfg, known)
        got = D._explain(holes, size, centre, rot, cfg, known)
        # pickles compare every float bit for bit, and its type
        assert pickle.dumps(got) == pickle.dumps(want), (holes, size, known)
        found += len(want)
    assert found > 100


def test_row_helpers_match_numpy_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    for m in range(1, 7):
        for k in (1, 2, 7, 35):
            areas = np.floor(rng.random((k, m)) * 60.0) + 1.0
            if k == 7:
                areas = areas * rng.random((k, m))
            ra = np.sqrt(areas)
            spread = [np.std(r) / np.mean(r) for r in ra]
            assert D._size_spread(areas).tolist() == spread
            assert D._row_quantile(areas, 0.5).tolist() == [D._quantile(r, 0.5) for r in areas]
            assert D._mean(areas, 1).tolist() == [r.mean() for r in areas]
    x = rng.random((5, 4, 3, 2))
    for axis in range(4):
        assert np.array_equal(D._mean(x, axis), x.mean(axis=axis))
        assert np.array_equal(D._mean(x, axis, keepdims=True), x.mean(axis=axis, keepdims=True))


def test_layout_costs_match_the_summed_form_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    for n in range(2, 7):
        q = rng.normal(size=(4, n, 2))
        rms_q = np.sqrt((q * q).sum(axis=2).mean(axis=1))
        for placed in (rng.normal(size=(9, n, 2)), rng.normal(size=(4, 5, n, 2))):
            rms_l = rng.random(placed.shape[:-2]) + 0.5
            step = np.maximum(rms_q[:, None], 1e-9) / rms_l
            p4 = placed[None] if placed.ndim == 3 else placed
            diff = q[:, None, :, None, :] - step[:, :, None, None, None] * p4[:, :, None, :, :]
            d = np.sqrt((diff * diff).sum(axis=-1))
            want = (d.min(axis=3).mean(axis=2) + d.min(axis=2).mean(axis=2)) / 2.0 / step
            cost, got_step = D._layout_costs(q, rms_q, placed, rms_l)
            assert np.array_equal(cost, want) and np.array_equal(got_step, step)
