"""Reading one die: pips matched against the six layouts (see :mod:`pibg.vision.dice`).

>>> read_die(draw_die(5, size=48))[0]
5
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import cv2
import numpy as np
import numpy.typing as npt

from pibg.vision.dice_config import (
    DEFAULT_CONFIG,
    LAYOUTS,
    DiceConfig,
    FloatArray,
    Image,
    Mask,
    _Fit,
)
from pibg.vision.dice_match import FaceMatch, match_face
from pibg.vision.dice_net import NO_DIE, face_probabilities

_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_SQUARE = np.ones((3, 3), np.uint8)

# --- layout matching --------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _rotations(step_deg: float) -> FloatArray:
    """Rotation matrices every ``step_deg`` degrees over a half turn ``(A, 2, 2)``, made once
    (read only: every crop's fit shares them)."""
    angles = np.deg2rad(np.arange(0.0, 180.0, step_deg))
    c, s = np.cos(angles), np.sin(angles)
    out: FloatArray = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    out.setflags(write=False)
    return out


def _variants(value: int, spreads: tuple[float, ...]) -> list[FloatArray]:
    """The layouts tried for ``value``: a six's columns sit at various distances."""
    lay = np.asarray(LAYOUTS[value], dtype=np.float64)
    if value != 6:
        return [lay]
    return [lay * np.array([a, 1.0]) for a in spreads]


@functools.lru_cache(maxsize=64)
def _placed(value: int, spreads: tuple[float, ...], step_deg: float
            ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Every variant of ``value``'s layout under every rotation: ``(V*A, n, 2)``, each row's
    layout rms radius ``(V*A,)`` and its rotation's angle in degrees ``(V*A,)``."""
    rot = _rotations(step_deg)
    rows, rms, ang = [], [], []
    for lay in _variants(value, spreads):
        rows.append(np.einsum("aij,nj->ani", rot, lay))
        rms.append(np.full(len(rot), math.sqrt(float((lay**2).sum(axis=1).mean()))))
        ang.append(np.arange(len(rot)) * (180.0 / len(rot)))
    return np.concatenate(rows), np.concatenate(rms), np.concatenate(ang)


def _layout_costs(q: FloatArray, rms_q: FloatArray, placed: FloatArray, rms_l: FloatArray
                  ) -> tuple[FloatArray, FloatArray]:
    """Residual and step of centred point sets ``q`` ``(C, n, 2)`` against placed layouts
    ``placed`` ``(C, R, n, 2)`` (or ``(R, n, 2)`` for all): each ``(C, R)``."""
    step = np.maximum(rms_q[:, None], 1e-9) / rms_l  # (C, R)
    if placed.ndim == 3:
        placed = placed[None]
    # x and y apart: the same squares and sums as over a last axis of two, without the
    # strided reduction
    s = step[:, :, None, None]
    dx = q[:, None, :, None, 0] - s * placed[:, :, None, :, 0]
    dy = q[:, None, :, None, 1] - s * placed[:, :, None, :, 1]
    d2 = dx * dx + dy * dy  # (C, R, n, n) squared distances: their root after the least
    #                          (the same number, the root being monotonic), on n not n * n
    cost = (_mean(np.sqrt(d2.min(axis=3)), 2) + _mean(np.sqrt(d2.min(axis=2)), 2)) / 2.0 / step
    return cost, step


def _mean(values: FloatArray, axis: int, keepdims: bool = False) -> FloatArray:
    """``values.mean(axis)`` bit for bit (numpy's own sum, then division by the count),
    without the wrapper's overhead, which outweighs the arithmetic on a few values."""
    mean: FloatArray = np.add.reduce(values, axis=axis, keepdims=keepdims) / values.shape[axis]
    return mean


def _fit_batch(
    pts: FloatArray, value: int, rot: FloatArray, spreads: tuple[float, ...] = (1.0,)
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The best rotation (and, for a six, column spread) of ``value``'s layout onto each of
    many point sets ``pts`` ``(C, n, 2)``: the residual, grid step and angle of each ``(C,)``.

    The residual is the mean distance from a point to its nearest layout pip, both ways, in
    units of the grid step. Coarse to fine: every 4th rotation first, then the rotations
    beside the best one.
    """
    placed, rms_l, angles = _placed(value, spreads if value == 6 else (1.0,),
                                    180.0 / len(rot))
    n_rot = len(rot)
    q = pts - _mean(pts, 1, keepdims=True)
    rms_q = np.sqrt(_mean((q * q).sum(axis=2), 1))  # (C,)
    coarse = np.arange(0, len(placed), 4)
    cost, _ = _layout_costs(q, rms_q, placed[coarse], rms_l[coarse])
    best = coarse[cost.argmin(axis=1)]  # (C,)
    base = (best // n_rot) * n_rot
    near = base[:, None] + (best[:, None] - base[:, None] + np.arange(-2, 3)[None, :]) % n_rot
    cost, step = _layout_costs(q, rms_q, placed[near], rms_l[near])  # (C, 5)
    pick = cost.argmin(axis=1)
    rows = np.arange(len(pts))
    resid = np.where(rms_q > 1e-9, cost[rows, pick], 9.0)
    return resid, step[rows, pick], angles[near[rows, pick]]


def _affine_aspect(pts: FloatArray, value: int, angle_deg: float) -> float:
    """Side ratio of the affine map that best carries the layout onto ``pts``."""
    m = _affine_map(pts, value, angle_deg)
    if m is None:
        return 1.0
    sv = np.linalg.svd(m, compute_uv=False)
    return float(sv[0] / max(sv[1], 1e-9))


def stretch_axis(pts: FloatArray, value: int, angle_deg: float) -> tuple[float, float] | None:
    """The way (a unit vector, in ``pts``' coordinates) along which the affine map that best
    carries the layout of ``value`` (four pips or more) turned ``angle_deg`` onto ``pts``
    stretches most: the long side of the pips' grid. None for fewer pips, or where the
    layout's pips do not each find a point of their own."""
    m = _affine_map(pts, value, angle_deg)
    if m is None:
        return None
    _, _, vt = np.linalg.svd(m)
    return float(vt[0, 0]), float(vt[0, 1])


def _affine_map(pts: FloatArray, value: int, angle_deg: float) -> FloatArray | None:
    """The 2 x 2 map ``M`` (row vectors: ``q = layout @ M``) that best carries the layout of
    ``value`` turned ``angle_deg`` onto ``pts`` (about their mean), each layout pip matched
    to its nearest point; None for fewer than four pips or where two share a point."""
    if value < 4:
        return None
    lay = np.asarray(LAYOUTS[value], dtype=np.float64)
    a = math.radians(angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    placed = lay @ r.T
    q = pts - pts.mean(axis=0)
    # match each layout pip to its nearest point, then least squares q = placed @ M
    d = np.linalg.norm(placed[:, None, :] - q[None, :, :] / max(1e-9, np.abs(q).max()), axis=-1)
    order = d.argmin(axis=1)
    if len(set(order.tolist())) != len(order):
        return None
    m, *_ = np.linalg.lstsq(placed, q[order], rcond=None)
    return np.asarray(m, np.float64)


# --- reading one die ---------------------------------------------------------------------------


def _face_colour(
    lab: FloatArray, cfg: DiceConfig, die_frac: float = 1.0
) -> FloatArray:
    h, w = lab.shape[:2]
    r = cfg.face_sample * die_frac
    y0, y1 = int(h * (0.5 - r)), math.ceil(h * (0.5 + r))
    x0, x1 = int(w * (0.5 - r)), math.ceil(w * (0.5 + r))
    sample = lab[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
    if len(sample) < 4:
        return np.asarray(lab.reshape(-1, 3).mean(axis=0), dtype=np.float64)
    # the median colour near the centre (the face is the majority there, the pips are not,
    # and a marbled face has no single mode), refined by the mean of the colours near it
    centre = np.median(sample, axis=0)
    for _ in range(2):
        near = np.linalg.norm(sample - centre, axis=1) < cfg.face_radius
        if near.sum() < 4:
            break
        centre = sample[near].mean(axis=0)
    return np.asarray(centre, dtype=np.float64)


def _holes(
    dist: FloatArray, level: float, cfg: DiceConfig, die_frac: float = 1.0
) -> tuple[list[tuple[float, float, float, float]], tuple[float, float, float, float]] | None:
    """The face at one level and the round holes in it.

    Returns ``([(x, y, area, roundness), ...], (long side, short side, rectangle fill, the
    long side's direction in degrees))`` or None.
    """
    h, w = dist.shape
    face: Mask = cv2.morphologyEx((dist < level).astype(np.uint8), cv2.MORPH_CLOSE, _CROSS)
    n, lab, _stats, _cents = cv2.connectedComponentsWithStats(face, connectivity=4)
    if n <= 1:
        return None
    # the face is the component that covers most of the crop's central region
    r = 0.2 * die_frac
    cy0, cy1 = int(h * (0.5 - r)), int(h * (0.5 + r)) + 1
    cx0, cx1 = int(w * (0.5 - r)), int(w * (0.5 + r)) + 1
    central = np.bincount(lab[cy0:cy1, cx0:cx1].ravel(), minlength=n)
    central[0] = 0
    k = int(np.argmax(central))
    if central[k] == 0:
        return None
    comp = (lab == k).astype(np.uint8)
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.vstack(contours))
    region: Mask = np.zeros_like(comp)
    cv2.fillConvexPoly(region, hull, (1,))
    face_area = float(region.sum())
    if face_area < 0.08 * h * w:
        return None
    (_, (rw, rh), turn) = cv2.minAreaRect(hull)
    rect_fill = float(cv2.contourArea(hull)) / max(rw * rh, 1.0)
    hx, hy, hw, hh = cv2.boundingRect(hull)
    if hx <= 0 or hy <= 0 or hx + hw >= w or hy + hh >= h:
        rect_fill = 0.0  # cut by the crop: not a whole face, its shape unknown
    face_shape = (float(max(rw, rh)), float(min(rw, rh)), min(rect_fill, 1.0),
                  float(turn if rw >= rh else turn + 90.0))
    inner: Mask = cv2.erode(region, _SQUARE)
    inner[0, :] = inner[-1, :] = inner[:, 0] = inner[:, -1] = 0
    holes: Mask = cv2.morphologyEx((inner & (dist >= level)).astype(np.uint8), cv2.MORPH_OPEN,
                                   _CROSS)
    m, hl, hs, hc = cv2.connectedComponentsWithStats(holes, connectivity=4)
    border = region & (1 - cv2.erode(inner, _SQUARE))
    out: list[tuple[float, float, float, float]] = []
    for i in range(1, m):
        area = float(hs[i, cv2.CC_STAT_AREA])
        if area < cfg.pip_area_min * face_area or area > cfg.one_area_max * face_area:
            continue
        x0, y0, bw, bh = (int(v) for v in hs[i, :4])  # within its bounding box: the same
        sel = hl[y0:y0 + bh, x0:x0 + bw] == i            # pixels, in the same order
        if float(border[y0:y0 + bh, x0:x0 + bw][sel].sum()) > cfg.hole_border_max * area:
            continue
        ys, xs = np.nonzero(sel)
        pts = np.stack([xs + x0, ys + y0], 1).astype(np.float32)
        (_, _), rad = cv2.minEnclosingCircle(pts)
        roundness = area / max(math.pi * (rad + 0.5) ** 2, 1.0)
        if roundness < cfg.pip_roundness:
            continue
        out.append((float(hc[i, 0]), float(hc[i, 1]), area, roundness))
    out.sort(key=lambda t: -t[2])
    return out[: cfg.max_candidates], face_shape


@functools.lru_cache(maxsize=32)
def _radii(rw: int) -> FloatArray:
    """Distances from the centre of a ``(2 rw + 1)``-square window."""
    yy, xx = np.mgrid[-rw:rw + 1, -rw:rw + 1]
    return np.asarray(np.hypot(yy, xx), dtype=np.float64)


def _quantile(values: FloatArray, q: float) -> float:
    """``np.quantile(values, q)`` (linear), cheaper on the few values of a pip's window."""
    v = np.sort(values, axis=None)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def _blobs(
    dist: FloatArray, cfg: DiceConfig
) -> list[tuple[float, float, float, float]]:
    """Pip-sized bright spots of the distance map (either polarity: distance is unsigned).

    Each is ``(x, y, area, roundness)``: its centroid, area and roundness where it is
    brighter than the midpoint between its core and the face ring around it; the most
    contrasted come first.
    """
    h, w = dist.shape
    resp = np.full((h, w), -np.inf, np.float32)
    scale_of = np.zeros((h, w), np.float32)
    for sigma in cfg.blob_sigmas:
        g = cv2.GaussianBlur(dist, (0, 0), sigma)
        log = -(sigma**2) * cv2.Laplacian(g, cv2.CV_32F, ksize=3)
        better = log > resp
        resp[better] = log[better]
        scale_of[better] = sigma
    peaks = (resp >= cv2.dilate(resp, np.ones((5, 5), np.uint8))) & (resp > cfg.blob_min_response)
    ys, xs = np.nonzero(peaks)
    if len(ys) > cfg.blob_peaks:  # the strongest only: each costs a little
        top = np.argsort(-resp[ys, xs], kind="stable")[: cfg.blob_peaks]
        ys, xs = ys[top], xs[top]
    found: list[tuple[float, tuple[float, float, float, float]]] = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        r = float(scale_of[y, x]) * math.sqrt(2.0)
        rw = math.ceil(2.2 * r)
        y0, y1, x0, x1 = max(0, y - rw), min(h, y + rw + 1), max(0, x - rw), min(w, x + rw + 1)
        win = dist[y0:y1, x0:x1]
        rr = _radii(rw)[y0 - y + rw:y1 - y + rw, x0 - x + rw:x1 - x + rw]
        core = win[rr <= max(1.0, 0.5 * r)]
        ring = win[(rr >= 1.6 * r) & (rr <= 2.2 * r)]
        if core.size == 0 or ring.size < 6:
            continue
        core_v = _quantile(core, 0.5)
        ring_v = _quantile(ring, 0.4)
        contrast = core_v - ring_v
        if contrast < cfg.blob_min_contrast:
            continue
        mask = (win > 0.5 * (core_v + ring_v)).astype(np.uint8)
        _n, lab, st, ce = cv2.connectedComponentsWithStats(mask, connectivity=4)
        k = int(lab[y - y0, x - x0])
        if k == 0:
            continue
        bx, by, bw, bh = (int(v) for v in st[k, :4])
        if (bx == 0 and x0 > 0) or (by == 0 and y0 > 0):
            continue
        if (bx + bw >= x1 - x0 and x1 < w) or (by + bh >= y1 - y0 and y1 < h):
            continue
        area = float(st[k, cv2.CC_STAT_AREA])
        ys_k, xs_k = np.nonzero(lab == k)
        (_, _), rad = cv2.minEnclosingCircle(np.stack([xs_k, ys_k], 1).astype(np.float32))
        roundness = area / max(math.pi * (rad + 0.5) ** 2, 1.0)
        found.append((contrast, (float(ce[k, 0]) + x0, float(ce[k, 1]) + y0, area, roundness)))
    found.sort(key=lambda t: -t[0])
    return [t[1] for t in found[: cfg.max_candidates]]


def _explain(
    holes: list[tuple[float, float, float, float]],
    size: float,
    centre: tuple[float, float],
    rot: FloatArray,
    cfg: DiceConfig,
    known: bool = False,
) -> list[_Fit]:
    """Every plausible value for one set of pip candidates, with its cost (lower is better).

    ``size`` is the die's size in the crop and ``centre`` the crop's centre. When ``known`` is
    False the size is only the crop's side (a labelled box: the die fills it, sides and all);
    when True it is the die's edge, known from the board's geometry, and the checks tighten.
    """
    return _explain_many([holes], size, centre, rot, cfg, known)[0]


def _explain_many(
    sets: list[list[tuple[float, float, float, float]]],
    size: float,
    centre: tuple[float, float],
    rot: FloatArray,
    cfg: DiceConfig,
    known: bool = False,
) -> list[list[_Fit]]:
    """:func:`_explain` of each of several sets of pip candidates (the spots and the levels
    of one crop), all at once: each value's subsets of every set are screened and fitted in
    one batch, so numpy's cost per call is paid once per value, not once per set. Every step
    is row by row, so each set's explanations are those it gets alone."""
    step_lo, step_hi = (cfg.known_step_min, cfg.known_step_max) if known else (
        cfg.step_min, cfg.step_max)
    rad_many = cfg.known_unexplained_radius if known else cfg.one_unexplained_radius
    area_hi = cfg.known_pip_area_max if known else cfg.pip_area_max

    out: list[list[_Fit]] = [[] for _ in sets]
    live = [i for i, holes in enumerate(sets) if holes]
    if not live:
        return out
    xy = {i: np.array([(h[0], h[1]) for h in sets[i]], dtype=np.float64) for i in live}
    areas = {i: np.array([h[2] for h in sets[i]], dtype=np.float64) for i in live}
    # only round candidates count against an explanation that leaves them out: a streak of
    # light along a bevel or over a glossy face is no pip
    roundish = {i: [(j, x, y, area) for j, (x, y, area, rd) in enumerate(sets[i])
                    if rd >= cfg.unexplained_roundness] for i in live}
    crop_area = size * size
    crop_side = 2.0 * max(centre) + 1.0
    for value in range(1, 7):
        here = [i for i in live if len(sets[i]) >= value]
        if not here:
            break
        # every subset of ``value`` holes of every set, screened all at once on size and
        # centring; ``first[k]`` is set ``here[k]``'s first row
        subs = [_combos(len(sets[i]), value) for i in here]
        first = np.cumsum([0] + [len(sub) for sub in subs])
        a_all = np.concatenate([areas[i][sub] for i, sub in zip(here, subs, strict=True)])
        pts_all = np.concatenate([xy[i][sub] for i, sub in zip(here, subs, strict=True)])
        c_all = _mean(pts_all, 1)  # (C, 2)
        off_all = np.hypot(c_all[:, 0] - centre[0], c_all[:, 1] - centre[1]) / crop_side
        if value == 1:
            one_min = cfg.known_one_area_min if known else cfg.pip_area_min
            ok = ((a_all[:, 0] >= one_min * crop_area)
                  & (a_all[:, 0] <= cfg.one_area_max * crop_area)
                  & (off_all <= cfg.one_offset_max))
            if known:  # a lone pip must be round (subset j is hole j)
                ok &= ~(np.array([h[3] for i in here for h in sets[i]]) < cfg.one_roundness)
            keep = np.flatnonzero(ok)
            if not len(keep):
                continue
            cost = cfg.offset_weight * off_all[keep] * 2.0
            step = np.sqrt(a_all[keep, 0] / math.pi) * 1.6
            angle = np.zeros(len(keep))
            radius = np.full(len(keep), cfg.one_alone_radius * size)
        else:
            amin, amax = a_all.min(axis=1), a_all.max(axis=1)
            ok = ((amin >= cfg.pip_area_min * crop_area) & (amax <= area_hi * crop_area)
                  & (amax <= cfg.pip_size_ratio * amin) & (off_all <= cfg.centre_offset_max))
            # the grid step (rms radius / the layout's) and the pips' size against it must
            # fit for some variant of the layout: checked before the costly fit
            _, rms_l, _ = _placed(value, cfg.six_spreads if value == 6 else (1.0,),
                                  180.0 / len(rot))
            lo_l, hi_l = float(rms_l.min()), float(rms_l.max())
            q = pts_all - c_all[:, None, :]
            rms_q = np.sqrt(_mean((q * q).sum(axis=2), 1))
            pip_r = np.sqrt(_mean(a_all, 1) / math.pi)
            ok &= ((rms_q >= step_lo * size * lo_l - 1e-9) & (rms_q <= step_hi * size * hi_l + 1e-9)
                   & (pip_r * lo_l <= cfg.pip_step_max * rms_q + 1e-9)
                   & (pip_r * hi_l >= cfg.pip_step_min * rms_q - 1e-9))
            keep = np.flatnonzero(ok)
            if not len(keep):
                continue
            resid, step, angle = _fit_batch(pts_all[keep], value, rot, cfg.six_spreads)
            # the fitted layout, its grid step and the pips' size against that step must hold
            rel, pip_rel = step / size, pip_r[keep] / step
            good = np.flatnonzero(~(resid > cfg.residual_max) & (step_lo <= rel)
                                  & (rel <= step_hi) & (cfg.pip_step_min <= pip_rel)
                                  & (pip_rel <= cfg.pip_step_max))
            if not len(good):
                continue
            keep, resid, step, angle = keep[good], resid[good], step[good], angle[good]
            spread = _size_spread(a_all[keep])
            cost = resid + cfg.offset_weight * off_all[keep] + cfg.size_spread_weight * spread
            radius = np.maximum(cfg.unexplained_radius * step, rad_many * size)
        med = _row_quantile(a_all[keep], 0.5)
        # each set's rows of ``keep`` (in order, as ``keep`` is)
        bounds = np.searchsorted(keep, first).tolist()
        costs = cost.tolist()
        for k, i in enumerate(here):
            lo, hi = bounds[k], bounds[k + 1]
            if lo == hi:
                continue
            rows = keep[lo:hi]
            # penalise pip-like candidates the explanation leaves out
            left_out = _unexplained(roundish[i], subs[k][rows - first[k]], c_all[rows],
                                    med[lo:hi], radius[lo:hi], 0.15 if value == 1 else 0.4)
            # the first of the cheapest: a later subset must cost strictly less
            best, best_cost = 0, math.inf
            for b, (total, missed) in enumerate(zip(costs[lo:hi], left_out, strict=True)):
                for _ in range(missed):  # one at a time: ``missed * cost`` may round otherwise
                    total += cfg.unexplained_cost
                if b == 0 or total < best_cost:
                    best, best_cost = b, total
            j = int(rows[best])
            pts, c = pts_all[j], c_all[j]
            at = lo + best
            aspect = _affine_aspect(pts, value, float(angle[at])) if value >= 4 else 1.0
            out[i].append(_Fit(value, best_cost, (float(c[0]), float(c[1])), float(step[at]),
                               float(angle[at]), aspect,
                               tuple((float(p[0]), float(p[1])) for p in pts),
                               pip_area=float(med[at])))
    return out


def _size_spread(areas: FloatArray) -> FloatArray:
    """The spread of each row's pip sizes, ``areas`` ``(K, m)``: ``np.std(r) / np.mean(r)``
    of the square roots ``r`` of its areas, bit for bit (numpy's own sums and divisions,
    without the wrappers' overhead)."""
    ra = np.sqrt(areas)
    m = areas.shape[1]
    mean = np.add.reduce(ra, axis=1, keepdims=True) / m
    dev = ra - mean
    spread: FloatArray = np.sqrt(np.add.reduce(dev * dev, axis=1) / m) / mean[:, 0]
    return spread


def _row_quantile(values: FloatArray, q: float) -> FloatArray:
    """:func:`_quantile` of each row of ``values`` ``(K, m)``, bit for bit."""
    v = np.sort(values, axis=1)
    pos = q * (v.shape[1] - 1)
    lo = int(pos)
    hi = min(lo + 1, v.shape[1] - 1)
    return v[:, lo] + (v[:, hi] - v[:, lo]) * (pos - lo)


def _unexplained(roundish: list[tuple[int, float, float, float]], subs: npt.NDArray[np.intp],
                 centres: FloatArray, med: FloatArray, radius: FloatArray, lo_ratio: float
                 ) -> list[int]:
    """How many of the ``roundish`` candidates ``(index, x, y, area)`` each explanation
    leaves out that look like its pips: of ``lo_ratio`` to 2.5 times its median pip area
    and within ``radius`` of its centre.

    ``subs`` ``(K, value)`` are each explanation's own candidates, ``centres`` ``(K, 2)``,
    ``med`` and ``radius`` ``(K,)``. The few survivors of the screening are counted one by one
    on plain floats: cheaper than numpy's per-call cost, and the same arithmetic.
    """
    out = []
    for s, (cx, cy), m, r in zip(subs.tolist(), centres.tolist(), med.tolist(),
                                 radius.tolist(), strict=True):
        if m == 0.0:  # numpy made every ratio inf or nan: none in range
            out.append(0)
            continue
        out.append(sum(1 for i, x, y, area in roundish
                       if i not in s and lo_ratio <= area / m <= 2.5
                       and math.hypot(x - cx, y - cy) < r))
    return out


@functools.lru_cache(maxsize=128)
def _combos(n: int, k: int) -> npt.NDArray[np.intp]:
    """Every k-subset of range(n), in itertools order: ``(C, k)``."""
    return np.array(list(itertools.combinations(range(n), k)), dtype=np.intp).reshape(-1, k)


def _prepare(patch: Image, cfg: DiceConfig) -> tuple[FloatArray, float]:
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    h, w = patch.shape[:2]
    scale = cfg.work_px / max(h, w)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    img = cv2.resize(patch, (max(8, round(w * scale)), max(8, round(h * scale))),
                     interpolation=interp)
    lab: FloatArray = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    if cfg.blur_sigma > 0:
        lab = np.asarray(cv2.GaussianBlur(lab, (0, 0), cfg.blur_sigma))
    return lab, scale


def _distance_map(
    lab: FloatArray, cfg: DiceConfig, die_frac: float = 1.0
) -> FloatArray:
    face = _face_colour(lab, cfg, die_frac)
    diff = lab - face[None, None, :]
    diff[..., 0] *= cfg.lightness_weight
    return np.asarray(np.sqrt((diff**2).sum(axis=2)), dtype=np.float32)


def _all_fits(
    patch: Image, cfg: DiceConfig, die_frac: float = 1.0, known: bool = False,
    blobs_out: list[tuple[float, float, float, float]] | None = None,
) -> tuple[list[_Fit], float, FloatArray]:
    """Every level's best explanation of ``patch`` (and the blob detector's, weighted).

    ``die_frac`` is the die's size as a fraction of the patch's longer side: its outline box
    (``known=False``) or its edge (``known=True``). With the edge known, a patch without a
    pip-like spot near its centre is given up at once (no fits). The spots found are added
    to ``blobs_out``.
    """
    lab, scale = _prepare(patch, cfg)
    dist = _distance_map(lab, cfg, die_frac)
    rot = _rotations(cfg.angle_step)
    fits: list[_Fit] = []
    h, w = dist.shape
    size = float(max(h, w)) * die_frac
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    blobs = _blobs(dist, cfg) if cfg.use_blobs or known else []
    if blobs_out is not None:
        blobs_out.extend(blobs)
    if known and not any(math.hypot(b[0] - centre[0], b[1] - centre[1]) < cfg.spot_near * size
                         for b in blobs):
        return fits, scale, dist
    seen: dict[tuple[tuple[int, int, bool], ...], list[_Fit]] = {}

    def explain_levels(levels: list[float], spots: list[list[tuple[float, float, float, float]]]
                       ) -> list[list[_Fit]]:
        """Each level's best explanation added to ``fits`` (in order); ``spots``' sets
        explained in the same batch (see :func:`_explain_many`), and returned."""
        cut = [_holes(dist, level, cfg, die_frac) for level in levels]
        keys: list[tuple[tuple[int, int, bool], ...] | None] = []
        todo: dict[tuple[tuple[int, int, bool], ...], list[tuple[float, float, float, float]]]
        todo = {}
        for found in cut:
            key = None
            if found is not None and cfg.use_levels:
                # neighbouring levels often cut the same holes, a little larger or smaller:
                # the same explanation holds
                key = tuple((round(x), round(y), rd >= cfg.one_roundness)
                            for x, y, _, rd in found[0])
                if key not in seen and key not in todo:
                    todo[key] = found[0]
            keys.append(key)
        got = _explain_many(spots + list(todo.values()), size, centre, rot, cfg, known)
        seen.update(zip(todo, got[len(spots):], strict=True))
        for found, key in zip(cut, keys, strict=True):
            if found is not None and key is not None and seen[key]:
                best = min(seen[key], key=lambda f: (f.cost, -f.value))
                fits.append(dataclasses.replace(best, face=found[1]))
        return got[:len(spots)]

    quick = [lv for lv in cfg.quick_levels if known]
    rest = [lv for lv in cfg.levels if lv not in quick]
    got = explain_levels(quick or rest, [blobs] if cfg.use_blobs else [])
    blob_best: _Fit | None = None
    if got and got[0]:
        blob_best = min(got[0], key=lambda f: (f.cost, -f.value))
    easy = False
    if quick and rest:
        if blob_best is not None and _agree(fits, blob_best, quick, cfg):
            easy = True  # the spots and a few levels agree, each fitting well: read
        else:
            explain_levels(rest, [])
    if blob_best is not None:
        fits.extend([blob_best] * cfg.blob_votes)
    # the grid reader (for a die of known size) only where the pip readers are in doubt
    grid = (_grid_read(dist, size, centre, cfg) if known and cfg.grid_votes and not easy
            else None)
    if grid is not None:
        grid = _grid_pips(grid, dist)
        missed = _unexplained_spots(blobs, grid, size, cfg)
        if missed:  # round spots the grid's pattern leaves out: a pip it missed
            grid = dataclasses.replace(grid, cost=grid.cost + cfg.unexplained_cost * missed)
        fits.extend([grid] * cfg.grid_votes)
    return fits, scale, dist


def _unexplained_spots(blobs: list[tuple[float, float, float, float]], fit: _Fit,
                       size: float, cfg: DiceConfig) -> int:
    """Round pip-sized spots on the face that none of ``fit``'s pips stands on.

    The grid reader samples nine cells; a diagonal three has room for a small grid (a one)
    between its pips when two of them run into the bevel's highlight. The spot detector
    still sees them as round spots, which a one cannot explain.
    """
    on = [b for b in blobs
          if min(math.hypot(b[0] - px, b[1] - py) for px, py in fit.pips) < 0.5 * fit.step]
    if not on:
        return 0
    ref = _quantile(np.array([b[2] for b in on]), 0.5)
    radius = 0.45 * size  # on the face, not beside it
    n = 0
    for x, y, area, roundness in blobs:
        if roundness < cfg.unexplained_roundness or not 0.4 <= area / ref <= 2.5:
            continue
        if math.hypot(x - fit.centre[0], y - fit.centre[1]) >= radius:
            continue
        if min(math.hypot(x - px, y - py) for px, py in fit.pips) >= 0.5 * fit.step:
            n += 1
    return n


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[int, npt.NDArray[np.bool_]], ...]:
    """Every value's pips as on-cells of the 3 x 3 grid (row-major), under quarter turns."""
    out: list[tuple[int, npt.NDArray[np.bool_]]] = []
    for value, lay in LAYOUTS.items():
        seen: set[bytes] = set()
        pts = [(round(x), round(y)) for x, y in lay]
        for _ in range(4):
            on = np.zeros(9, bool)
            for x, y in pts:
                on[(y + 1) * 3 + (x + 1)] = True
            if on.tobytes() not in seen:
                seen.add(on.tobytes())
                out.append((value, on))
            pts = [(-y, x) for x, y in pts]
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _pattern_cells() -> tuple[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]], ...]:
    """Each of :func:`_patterns`' on-cells and off-cells as row numbers (cheaper to take
    than a boolean mask)."""
    return tuple((np.flatnonzero(on), np.flatnonzero(~on)) for _, on in _patterns())


@functools.lru_cache(maxsize=8)
def _grid_offsets(size: float, cfg: DiceConfig
                  ) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """The searched placements of the 3 x 3 grid, centred on (0, 0): cell positions
    ``(N, 9, 2)``, each placement's step ``(N,)`` and angle in degrees ``(N,)``, and the
    steps' median."""
    angles = np.arange(0.0, 90.0, cfg.grid_angle_step)
    steps = size * np.asarray(cfg.grid_steps, np.float64)
    r = cfg.grid_search * size
    offs = np.arange(-math.floor(r), math.floor(r) + 1, 1.0)
    cells = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], np.float64)
    a = np.deg2rad(angles)
    rot = np.stack([np.stack([np.cos(a), -np.sin(a)], -1),
                    np.stack([np.sin(a), np.cos(a)], -1)], -2)  # (A, 2, 2)
    base = np.einsum("aij,nj->ani", rot, cells)  # (A, 9, 2)
    placed = base[:, None] * steps[None, :, None, None]  # (A, S, 9, 2)
    ox, oy = np.meshgrid(offs, offs)
    shift = np.stack([ox.ravel(), oy.ravel()], -1)  # (O, 2)
    pos = placed[:, :, None] + shift[None, None, :, None, :]  # (A, S, O, 9, 2)
    n_a, n_s, n_o = len(angles), len(steps), len(shift)
    step_of = np.broadcast_to(steps[None, :, None], (n_a, n_s, n_o)).ravel()
    angle_of = np.broadcast_to(angles[:, None, None], (n_a, n_s, n_o)).ravel()
    return (pos.reshape(-1, 9, 2).astype(np.float32), step_of, angle_of,
            float(np.median(step_of)))


def _grid_read(dist: FloatArray, size: float, centre: tuple[float, float], cfg: DiceConfig
               ) -> _Fit | None:
    """Read a face of known size as a 3 x 3 grid of cells, each a pip or plain face.

    Every placement of the grid near the crop's centre (angle, step, offset) samples the
    colour-distance map, lightly blurred, at its nine cells; a value's pattern (its pips'
    cells, under quarter turns) fits a placement by its margin: its dimmest pip cell less
    its brightest plain cell, over the mean difference between the two. The best margin over
    every placement and pattern wins; a glare spot, a bevel's streak or a side face's pips
    sit off the cells of a well-placed grid, or light cells that must be plain. Needs no
    pip to be found as a separate spot (blurred pips that run together still light their
    cells).
    """
    pos, step_of, angle_of, median_step = _grid_offsets(round(size, 1), cfg)
    sigma = max(0.6, cfg.grid_blur * median_step)
    g = cv2.GaussianBlur(dist, (0, 0), sigma)
    mx = pos[..., 0] + np.float32(centre[0])
    my = pos[..., 1] + np.float32(centre[1])
    vals = cv2.remap(g, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)  # (N, 9)
    cols = np.ascontiguousarray(np.asarray(vals, np.float32).T)  # (9, N): a row per cell
    total = cols.sum(axis=0)
    best: tuple[float, int, int, npt.NDArray[np.bool_]] | None = None
    for (value, on), (on_at, off_at) in zip(_patterns(), _pattern_cells(), strict=True):
        v_on, v_off = cols[on_at], cols[off_at]
        sum_on = v_on.sum(axis=0)
        n_on = len(on_at)
        contrast = sum_on / n_on - (total - sum_on) / (9 - n_on)
        margin = v_on.min(axis=0) - v_off.max(axis=0)
        ok = contrast >= cfg.grid_min_contrast
        if value == 1:  # a lone pip must have plain face all round it, well out: a small
            ok &= step_of >= cfg.grid_one_step * size  # grid fits between another's pips
        score = np.where(ok, margin / np.maximum(contrast, 1e-9), -np.inf)
        i = int(np.argmax(score))
        if best is None or score[i] > best[0]:
            best = (float(score[i]), value, i, on)
    if best is None or not best[0] > 0.0:
        return None
    margin, value, i, on = best
    pips = pos[i][on].astype(np.float64) + np.asarray(centre)
    step = float(step_of[i])
    c = pos[i][4].astype(np.float64) + np.asarray(centre)
    return _Fit(value, 1.0 - margin, (float(c[0]), float(c[1])), step, float(angle_of[i]),
                pips=tuple((float(p[0]), float(p[1])) for p in pips),
                pip_area=math.pi * (0.35 * step) ** 2, kind="grid")


def _grid_pips(grid: _Fit, dist: FloatArray) -> _Fit:
    """The grid reader's fit with each pip moved to the centroid of its cell's brightness
    (a few mean-shift steps, weighted by the distance map above the plain face's level):
    the affine map carrying the layout onto them then measures the face's shape (a cocked
    die's is stretched). Only for four pips or more (fewer do not pin a shape down)."""
    if grid.value < 4:
        return grid
    h, w = dist.shape
    r = 0.55 * grid.step
    rw = math.ceil(r)
    rr = _radii(rw)
    base = float(np.median(dist[max(0, round(grid.centre[1]) - rw):round(grid.centre[1]) + rw + 1,
                                max(0, round(grid.centre[0]) - rw):round(grid.centre[0]) + rw + 1]))
    pts = []
    for px, py in grid.pips:
        x, y = px, py
        for _ in range(3):
            xi, yi = round(x), round(y)
            if not (rw <= xi < w - rw and rw <= yi < h - rw):
                return grid
            win = dist[yi - rw:yi + rw + 1, xi - rw:xi + rw + 1]
            wt = np.maximum(win - base, 0.0) * (rr <= r)
            total = float(wt.sum())
            if total <= 0.0:
                return grid
            yy, xx = np.mgrid[-rw:rw + 1, -rw:rw + 1]
            x = xi + float((wt * xx).sum()) / total
            y = yi + float((wt * yy).sum()) / total
        pts.append((x, y))
    q = np.asarray(pts) - np.mean(pts, axis=0)
    c0 = np.asarray(grid.pips) - np.asarray(grid.pips).mean(axis=0)
    m, *_ = np.linalg.lstsq(c0 / grid.step, q, rcond=None)
    sv = np.linalg.svd(m, compute_uv=False)
    return dataclasses.replace(grid, aspect=float(sv[0] / max(sv[1], 1e-9)),
                               pips=tuple((float(p[0]), float(p[1])) for p in pts),
                               kind="grid+spots")


def _agree(fits: list[_Fit], blob: _Fit, quick: list[float], cfg: DiceConfig) -> bool:
    """Whether every quick level and the spots read the same value, each fitting well."""
    return (len(fits) == len(quick) and blob.cost <= cfg.quick_cost
            and all(f.value == blob.value and f.cost <= cfg.quick_cost for f in fits))


def _decide(
    fits: list[_Fit], cfg: DiceConfig = DEFAULT_CONFIG, known: bool = False
) -> tuple[int, float, _Fit | None]:
    """Vote over levels: each level's best fit counts by how well it fits.

    A face whose pips are partly missed at some levels reads as a smaller value there (a
    four inside a six, a two inside a four), never the other way round; so a value with
    more pips gets a bonus per pip when it fits well somewhere.
    """
    score: dict[int, float] = {}
    best_per: dict[int, _Fit] = {}
    for f in fits:
        score[f.value] = score.get(f.value, 0.0) + max(0.0, 1.0 - f.cost) ** cfg.vote_power
        if f.value not in best_per or f.cost < best_per[f.value].cost:
            best_per[f.value] = f
    if not score or max(score.values()) <= 0.0:
        return 0, 0.0, None
    for v, f in best_per.items():
        if f.cost <= cfg.bonus_cost_max:
            score[v] += cfg.pip_bonus * v
    ranked = sorted(score, key=lambda v: -score[v])
    top = ranked[0]
    # pips missed at most levels (one run into a bevel's highlight) leave a smaller value
    # with many poor votes; a larger value fitting well with every one of its pips among
    # them is the face
    cover = [f for v, f in best_per.items() if known and v > top and f.cost <= cfg.superset_cost
             and f.kind == "pips" and _covers(f, best_per[top])]
    if cover:  # the smaller value's votes were votes for part of this face
        small, top = top, min(cover, key=lambda f: f.cost).value
        score[top] += score.pop(small)
    total = sum(score.values())
    conf = score[top] / total * (1.0 - math.exp(-score[top]))
    return top, float(min(max(conf, 0.0), 1.0)), best_per[top]


def _covers(big: _Fit, small: _Fit) -> bool:
    """Whether ``small`` is part of ``big``'s face: the same centre (within half the step)
    and every pip of it one of ``big``'s (within a third): a one inside a three or five, a
    two inside a four or six (each layout is a subset of a larger one about the centre)."""
    near = big.step / 3.0
    return (math.hypot(big.centre[0] - small.centre[0], big.centre[1] - small.centre[1])
            < big.step / 2.0
            and all(min(math.hypot(x - bx, y - by) for bx, by in big.pips) < near
                    for x, y in small.pips))


def read_die(patch: Image, *, config: DiceConfig = DEFAULT_CONFIG) -> tuple[int, float]:
    """The value (1-6) on a die seen from above, and a confidence in [0, 1].

    ``patch`` is a BGR (or grey) crop holding one die, roughly centred, the die filling a
    good part of it. When no layout fits, the value is 0 and the confidence 0. When the pips
    found one by one leave the value unsure, the face is matched whole as well
    (:mod:`pibg.vision.dice_match`), and a close match stands.

    >>> read_die(draw_die(3, size=40, angle=20.0))[0]
    3
    """
    if patch.size == 0 or min(patch.shape[:2]) < 6:
        return 0, 0.0
    fits, _, dist = _all_fits(patch, config)
    value, conf, best = _decide(fits, config)
    whole = _whole_face(patch, config) if conf < config.whole_face_below else None
    if whole is not None and whole.score >= config.whole_face_score:
        value, conf = whole.value, whole.score
    else:
        value = _completed(value, best, dist, config)
    return _net_checked(patch, value, conf, config)


def _net_checked(patch: Image, value: int, conf: float, cfg: DiceConfig) -> tuple[int, float]:
    """``(value, conf)``, or the network's value (:mod:`pibg.vision.dice_net`) where it finds
    that value more than ``net_keep`` times likelier than the one read, or where nothing was
    read and the network sees a die face rather than none."""
    if cfg.net_keep <= 0.0:
        return value, conf
    p = face_probabilities([patch], turns=cfg.net_turns)[0]
    if value == 0 and int(np.argmax(p)) == NO_DIE:
        return 0, 0.0
    p = p[:NO_DIE] / p[:NO_DIE].sum()
    best = int(np.argmax(p))
    if value == 0 or p[value - 1] * cfg.net_keep < p[best]:
        return best + 1, float(p[best])
    return value, conf


def _completed(value: int, fit: _Fit | None, dist: FloatArray, cfg: DiceConfig) -> int:
    """``value``, or a larger value whose pips the pips found are part of, read on the
    3 x 3 grid the fit gives.

    A pip that glare washes out, or that a streak of light runs into, is not found as a
    round spot (a three read as a two, a five as a four), but it still stands apart from
    the face's colour on the distance map. Each cell of the grid is sampled there: a
    pattern fits by its margin (its dimmest pip cell less its brightest plain cell, over
    the mean difference between them, as in ``_grid_read``), and a larger pattern holding
    the found pips wins when it fits better than the read one, with its pips lit at least
    ``complete_contrast`` of the found pips' level above its plain cells.
    """
    if fit is None or not 2 <= value <= 5 or fit.step <= 0.0:
        return value
    a = math.radians(fit.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    grid = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], np.float64)
    cells = (np.asarray(fit.centre) + fit.step * (grid @ rot.T)).astype(np.float32)
    g = cv2.GaussianBlur(dist, (0, 0), max(0.6, cfg.complete_blur * fit.step))
    vals = cv2.remap(g, cells[:, :1], cells[:, 1:], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)[:, 0].astype(np.float64)
    found = np.zeros(9, bool)
    for px, py in fit.pips:
        found[int(np.argmin(np.hypot(cells[:, 0] - px, cells[:, 1] - py)))] = True

    def margin(on: npt.NDArray[np.bool_]) -> tuple[float, float]:
        contrast = float(vals[on].mean() - vals[~on].mean())
        return float(vals[on].min() - vals[~on].max()) / max(contrast, 1e-9), contrast

    best, _ = margin(found)
    out = value
    for v, on in _patterns():
        if v <= value or not on[found].all():
            continue
        m, contrast = margin(on)
        if m > 0.0 and m > best and contrast >= cfg.complete_contrast * float(vals[found].mean()):
            best, out = m, v
    return out


def _whole_face(patch: Image, cfg: DiceConfig) -> FaceMatch | None:
    """The best whole-face match (:mod:`pibg.vision.dice_match`) to a crop holding one die
    of unknown size: the crop made square, and the die's edge taken as each of
    ``whole_face_edges`` of its side in turn."""
    h, w = patch.shape[:2]
    side = max(h, w)
    square = cv2.copyMakeBorder(patch, (side - h) // 2, side - h - (side - h) // 2,
                                (side - w) // 2, side - w - (side - w) // 2,
                                cv2.BORDER_REPLICATE)
    best: FaceMatch | None = None
    for frac in cfg.whole_face_edges:
        if frac * side <= 2.0:
            continue
        m = match_face(square, frac * side, cfg)
        if best is None or m.score > best.score:
            best = m
    return best


# --- synthetic dice ------------------------------------------------------------------------------


def draw_die(
    value: int,
    *,
    size: int = 48,
    angle: float = 0.0,
    face: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
    background: tuple[int, int, int] = (90, 120, 150),
    margin: float = 0.25,
    pip_diameter: float = 0.2,
    step: float = 0.28,
) -> Image:
    """A synthetic top view of a die (for tests and demos): BGR, ``size`` px edge, rotated."""
    if value not in LAYOUTS:
        raise ValueError(f"die value must be 1-6, got {value!r}")
    ss = 4
    edge = size * ss
    canvas = round(size * (1 + 2 * margin)) * ss
    img = np.empty((canvas, canvas, 3), np.uint8)
    img[:] = background
    c = canvas / 2.0
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * edge / 2.0
    poly = (corners @ rot.T + c).round().astype(np.int32)
    cv2.fillConvexPoly(img, poly, face, lineType=cv2.LINE_AA)
    for px, py in LAYOUTS[value]:
        p = np.array([px, py]) * step * edge @ rot.T + c
        cv2.circle(img, (round(p[0]), round(p[1])), int(pip_diameter * edge / 2),
                   pip, -1, lineType=cv2.LINE_AA)
    out = cv2.resize(img, (canvas // ss, canvas // ss), interpolation=cv2.INTER_AREA)
    return np.asarray(out, dtype=np.uint8)
