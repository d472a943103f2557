"""The dice stage of pibg's vision: find dice on the playing surface and count their pips.

Pure functions on BGR images (OpenCV + numpy, nothing learned, nothing downloaded):

- :func:`read_die` reads one die from a crop around it: the value 1-6 and a confidence.
- :func:`find_dice` finds every die in a top-down view of the playing surface and reports
  each as a :class:`~pibg.observation.DieRead`, with ``flat=False`` for a cocked die.

How a die is read. Pips differ from the face around them in *some* colour direction (black
on white, white on black, white on translucent red, yellow on green ...), so the crop is
turned into a map of Lab colour distance from the face colour (the median colour near the
crop's centre, refined by the colours close to it). Two detectors propose pips on that map:
thresholding it at several levels gives the face as a connected region and the pips as the
round holes in it, and a Laplacian-of-Gaussian spot detector finds pip-sized spots (which
survives pips that touch or a face that breaks up, as marbled ones do). Each set of
candidates is matched against the six canonical pip layouts under an unknown rotation and
scale (a six's columns may sit closer than its corners): the pips must be of one size, sit on
the layout's grid with a spacing that fits the die, and leave no pip-sized candidate
unexplained near the face. The best explanation of each level votes; a value's votes weigh
how well it fits. The winner's share of the votes is the confidence.

How dice are found. Pip-sized spots of either polarity are moved, by a mean shift with a
die-sized window, to the mean of their neighbours: every layout's pips are centred on the
face, so the modes are die centres. Each mode is read (with the die's edge known, so the grid
spacing is checked tightly) and the read re-centred on its pips. A read of 1-3 pips must also
show a plain square face of about a die's size (a checker's highlight is a lone round spot
on a large round face; the doubling cube's digits are clutter on its face).

How a cocked die is told apart. A die lying flat shows its top face squarely; a die leaning
on a checker or the board's edge shows a foreshortened top face and a second face beside it.
Three signs mark it ``flat=False``: the affine map that carries the layout onto its pips is
stretched (4-6 pips), its face region at most levels is not a square of about the expected
edge, or pips of a second face show beside the read one. Such a die must never count as a
roll.

>>> import numpy as np
>>> img = draw_die(5, size=48)
>>> read_die(img)[0]
5
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import cv2
import numpy as np
import numpy.typing as npt

from pibg.observation import DieRead

__all__ = ["LAYOUTS", "DiceConfig", "draw_die", "find_dice", "read_die"]

#: A BGR (or grey) image as OpenCV gives it; uint8 expected, any dtype accepted.
Image: TypeAlias = npt.NDArray[Any]
FloatArray: TypeAlias = npt.NDArray[np.float64]
Mask: TypeAlias = npt.NDArray[Any]

#: Canonical pip positions, in units of the pip grid step (corner pips at (+-1, +-1)).
LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 0.0), (1.0, 1.0)),
}


@dataclass(frozen=True, slots=True)
class DiceConfig:
    """Every threshold of the dice stage (sizes are fractions of the die's edge)."""

    #: Crops are rescaled so that their longer side has this many pixels.
    work_px: int = 72
    #: Colour-distance levels (Lab units, 0-255 scale) at which the face is cut from its pips.
    levels: tuple[float, ...] = (7.0, 10.0, 14.0, 19.0, 25.0, 32.0, 40.0, 50.0, 62.0, 76.0)
    #: Blur (sigma, in working pixels) before measuring colour distance.
    blur_sigma: float = 0.8
    #: Weight of lightness against the two colour axes in the distance map.
    lightness_weight: float = 1.0
    #: Region of the crop (fraction of its size, about the centre) that samples the face colour.
    face_sample: float = 0.25
    #: Colours this close (Lab units) to the median near the centre refine the face colour.
    face_radius: float = 40.0
    #: Pip area as a fraction of the crop's area: least, largest (pips 2-6), largest (a 1).
    pip_area_min: float = 0.003
    pip_area_max: float = 0.06
    one_area_max: float = 0.2
    #: Largest share of a hole's pixels on the rim of the face (else it is background).
    hole_border_max: float = 0.3
    use_levels: bool = True
    use_blobs: bool = True
    blob_votes: int = 2
    #: Blob detector: Gaussian scales (working px), least response and core-ring contrast.
    blob_sigmas: tuple[float, ...] = (2.5, 3.5, 4.5)
    blob_min_response: float = 4.0
    blob_min_contrast: float = 10.0
    #: Least roundness of a pip (area / area of its enclosing circle).
    pip_roundness: float = 0.45
    #: Largest area ratio between the pips of one face.
    pip_size_ratio: float = 2.2
    #: Pip grid step (centre to corner pip, along an edge) as a fraction of the crop's side.
    step_min: float = 0.09
    step_max: float = 0.28
    #: The same when the die's edge is known (find_dice), as a fraction of that edge.
    known_step_min: float = 0.22
    known_step_max: float = 0.4
    known_pip_area_max: float = 0.13
    #: Pip radius as a fraction of the grid step.
    pip_step_min: float = 0.15
    pip_step_max: float = 0.8
    #: Largest distance of a lone pip / of the pips' centroid from the crop centre (fraction).
    one_offset_max: float = 0.22
    centre_offset_max: float = 0.22
    #: Largest mean distance of pips from their layout positions (fraction of the grid step).
    residual_max: float = 0.3
    #: Column half-distances tried for a six (in units of its row step; 1 = square grid).
    six_spreads: tuple[float, ...] = (0.7, 0.85, 1.0, 1.2)
    #: Vote bonus per pip for a value whose best fit costs at most ``bonus_cost_max``.
    pip_bonus: float = 0.0
    bonus_cost_max: float = 0.25
    #: Weight, in a fit's cost, of the spread of pip sizes (std / mean of their radii).
    size_spread_weight: float = 0.3
    #: Weight, in a fit's cost, of its centre's offset from the crop centre.
    offset_weight: float = 0.5
    #: Angle step (degrees) of the rotation search.
    angle_step: float = 3.0
    #: Most hole candidates considered at one level.
    max_candidates: int = 9
    #: Cost added for every pip-sized hole left unexplained inside the face ...
    unexplained_cost: float = 0.6
    #: ... that is, closer than this to the fitted centre (in grid steps; for a one, crop sides).
    unexplained_radius: float = 2.0
    one_unexplained_radius: float = 0.42
    one_alone_radius: float = 0.65
    #: ... when the die's edge is known (fraction of that edge).
    known_unexplained_radius: float = 0.75
    #: find_dice: die size range accepted (fraction of ``die_px``) for a flat die's top face.
    flat_size_min: float = 0.7
    flat_size_max: float = 1.5
    #: find_dice: candidate size range (fraction of ``die_px``) of any die-like blob.
    blob_size_min: float = 0.6
    blob_size_max: float = 1.8
    #: find_dice: largest side ratio of a flat die's top face and of its fitted pip grid.
    flat_aspect_max: float = 1.16
    #: find_dice: least confidence for a blob to be reported as a die.
    min_confidence: float = 0.35
    #: find_dice: crop half-width around a candidate (multiples of ``die_px``).
    crop_half: float = 1.0
    #: find_dice: least roundness of a lone pip (a one): the cube's digits are not round.
    one_roundness: float = 0.6
    #: find_dice: most clutter (see ``_clutter``) on the face of a read with few pips.
    clutter_max: float = 0.22
    #: find_dice: a reading with this many pips or more is a die on its pips' evidence alone.
    pips_enough: int = 4
    #: find_dice: largest side ratio of the affine map carrying the layout onto the pips.
    pip_aspect_max: float = 1.10
    #: find_dice: share of the whole faces seen (over the levels) that must look flat.
    flat_share: float = 0.34
    #: find_dice: spots this far from a read face's centre (fraction of ``die_px``), and of
    #: about its pips' size (within this area ratio), are pips of a second face; this many
    #: of them make the die cocked.
    extra_dist_min: float = 0.6
    extra_dist_max: float = 1.3
    extra_area_ratio: float = 2.2
    extra_pips_cocked: int = 2
    #: find_dice: a die's face region, seen at some level, lies in this range (of ``die_px``).
    die_size_min: float = 0.65
    die_size_max: float = 1.45
    die_aspect_max: float = 1.35
    #: find_dice: least fill of its least rectangle by a face's hull (a die's face is square,
    #: a checker's round), for any die and for a flat one.
    die_fill_min: float = 0.8
    flat_fill_min: float = 0.7
    #: find_dice: pip scale (fraction of ``die_px``) of the spot detector that finds candidates,
    #: the least spot response (grey levels), the most spots followed, and the mean-shift window
    #: (fraction of ``die_px``).
    pip_sigma: float = 0.07
    spot_min_response: float = 6.0
    max_spots: int = 1000
    shift_radius: float = 0.85
    #: find_dice: most candidates read per image.
    max_dice_candidates: int = 40
    #: find_dice: a die's centre lies at least this far inside the image (fraction of
    #: ``die_px``): the view is cut at the playing surface's edge.
    edge_margin: float = 0.45
    #: find_dice: two detections closer than this (fraction of ``die_px``) are one die.
    merge_dist: float = 0.6


DEFAULT_CONFIG = DiceConfig()


@dataclass(frozen=True, slots=True)
class _Fit:
    """One explanation of a set of holes as a die face."""

    value: int
    cost: float
    centre: tuple[float, float]
    step: float
    angle: float
    aspect: float = 1.0
    pips: tuple[tuple[float, float], ...] = field(default=())
    #: Median pip area (working pixels).
    pip_area: float = 0.0
    #: Pip-like spots beside the face (find_dice only; see ``_extra_pips``).
    extra_pips: int = 0
    #: The face region at this fit's level: (long side, short side, how much of its least
    #: rectangle its convex hull fills: about 0.95 for a square, 0.79 for a disc).
    face: tuple[float, float, float] | None = None


_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
_SQUARE = np.ones((3, 3), np.uint8)

# --- layout matching --------------------------------------------------------------------------


def _rotations(step_deg: float) -> FloatArray:
    angles = np.deg2rad(np.arange(0.0, 180.0, step_deg))
    c, s = np.cos(angles), np.sin(angles)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)  # (A, 2, 2)


def _variants(value: int, spreads: tuple[float, ...]) -> list[FloatArray]:
    """The layouts tried for ``value``: a six's columns sit at various distances."""
    lay = np.asarray(LAYOUTS[value], dtype=np.float64)
    if value != 6:
        return [lay]
    return [lay * np.array([a, 1.0]) for a in spreads]


def _fit_layout(
    pts: FloatArray, value: int, rot: FloatArray, spreads: tuple[float, ...] = (1.0,)
) -> tuple[float, float, float]:
    """Best rotation of the canonical layout onto ``pts`` (centred): (residual, step, angle).

    The residual is the mean distance from a point to its nearest layout pip, both ways,
    in units of the grid step.
    """
    best = (9.0, 0.0, 0.0)
    for lay in _variants(value, spreads):
        fit = _fit_one(pts, lay, rot)
        if fit[0] < best[0]:
            best = fit
    return best


def _fit_one(pts: FloatArray, lay: FloatArray, rot: FloatArray) -> tuple[float, float, float]:
    q = pts - pts.mean(axis=0)
    rms_q = math.sqrt(float((q**2).sum(axis=1).mean()))
    rms_l = math.sqrt(float((lay**2).sum(axis=1).mean()))
    step = rms_q / rms_l
    if step <= 1e-9:
        return 9.0, 0.0, 0.0
    placed = step * np.einsum("aij,nj->ani", rot, lay)  # (A, n, 2)
    d = np.linalg.norm(q[None, :, None, :] - placed[:, None, :, :], axis=-1)  # (A, n, n)
    cost = d.min(axis=2).mean(axis=1) + d.min(axis=1).mean(axis=1)
    best = int(np.argmin(cost))
    ang = best * (180.0 / len(rot))
    return float(cost[best]) / 2.0 / step, step, ang


def _affine_aspect(pts: FloatArray, value: int, angle_deg: float) -> float:
    """Side ratio of the affine map that best carries the layout onto ``pts``."""
    if value < 4:
        return 1.0
    lay = np.asarray(LAYOUTS[value], dtype=np.float64)
    a = math.radians(angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    placed = lay @ r.T
    q = pts - pts.mean(axis=0)
    # match each layout pip to its nearest point, then least squares q = placed @ M
    d = np.linalg.norm(placed[:, None, :] - q[None, :, :] / max(1e-9, np.abs(q).max()), axis=-1)
    order = d.argmin(axis=1)
    if len(set(order.tolist())) != len(order):
        return 1.0
    m, *_ = np.linalg.lstsq(placed, q[order], rcond=None)
    sv = np.linalg.svd(m, compute_uv=False)
    return float(sv[0] / max(sv[1], 1e-9))


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
) -> tuple[list[tuple[float, float, float, float]], tuple[float, float, float]] | None:
    """The face at one level and the round holes in it.

    Returns ``([(x, y, area, roundness), ...], (long side, short side, rectangle fill))``
    or None.
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
    (_, (rw, rh), _) = cv2.minAreaRect(hull)
    rect_fill = float(cv2.contourArea(hull)) / max(rw * rh, 1.0)
    hx, hy, hw, hh = cv2.boundingRect(hull)
    if hx <= 0 or hy <= 0 or hx + hw >= w or hy + hh >= h:
        rect_fill = 0.0  # cut by the crop: not a whole face, its shape unknown
    face_shape = (float(max(rw, rh)), float(min(rw, rh)), min(rect_fill, 1.0))
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
        sel = hl == i
        if float(border[sel].sum()) > cfg.hole_border_max * area:
            continue
        ys, xs = np.nonzero(sel)
        pts = np.stack([xs, ys], 1).astype(np.float32)
        (_, _), rad = cv2.minEnclosingCircle(pts)
        roundness = area / max(math.pi * (rad + 0.5) ** 2, 1.0)
        if roundness < cfg.pip_roundness:
            continue
        out.append((float(hc[i, 0]), float(hc[i, 1]), area, roundness))
    out.sort(key=lambda t: -t[2])
    return out[: cfg.max_candidates], face_shape


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
    found: list[tuple[float, tuple[float, float, float, float]]] = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        r = float(scale_of[y, x]) * math.sqrt(2.0)
        rw = math.ceil(2.2 * r)
        y0, y1, x0, x1 = max(0, y - rw), min(h, y + rw + 1), max(0, x - rw), min(w, x + rw + 1)
        win = dist[y0:y1, x0:x1]
        yy, xx = np.mgrid[y0:y1, x0:x1]
        rr = np.hypot(yy - y, xx - x)
        core = win[rr <= max(1.0, 0.5 * r)]
        ring = win[(rr >= 1.6 * r) & (rr <= 2.2 * r)]
        if core.size == 0 or ring.size < 6:
            continue
        core_v = float(np.median(core))
        ring_v = float(np.percentile(ring, 40))
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
    step_lo, step_hi = (cfg.known_step_min, cfg.known_step_max) if known else (
        cfg.step_min, cfg.step_max)
    rad_many = cfg.known_unexplained_radius if known else cfg.one_unexplained_radius
    area_hi = cfg.known_pip_area_max if known else cfg.pip_area_max

    fits: list[_Fit] = []
    if not holes:
        return fits
    xy = np.array([(h[0], h[1]) for h in holes], dtype=np.float64)
    areas = np.array([h[2] for h in holes], dtype=np.float64)
    crop_area = size * size
    crop_side = 2.0 * max(centre) + 1.0
    idx_all = range(len(holes))
    for value in range(1, 7):
        if value > len(holes):
            break
        best: _Fit | None = None
        for sub in itertools.combinations(idx_all, value):
            s = list(sub)
            a = areas[s]
            pts = xy[s]
            c = pts.mean(axis=0)
            off = math.hypot(c[0] - centre[0], c[1] - centre[1]) / crop_side
            if value == 1:
                if not cfg.pip_area_min <= a[0] / crop_area <= cfg.one_area_max:
                    continue
                if known and holes[s[0]][3] < cfg.one_roundness:
                    continue
                if off > cfg.one_offset_max:
                    continue
                cost = cfg.offset_weight * off * 2.0
                step = math.sqrt(a[0] / math.pi) * 1.6
                angle = 0.0
                radius = cfg.one_alone_radius * size
            else:
                if a.min() < cfg.pip_area_min * crop_area or a.max() > area_hi * crop_area:
                    continue
                if a.max() / a.min() > cfg.pip_size_ratio:
                    continue
                if off > cfg.centre_offset_max:
                    continue
                resid, step, angle = _fit_layout(pts, value, rot, cfg.six_spreads)
                if resid > cfg.residual_max:
                    continue
                if not step_lo <= step / size <= step_hi:
                    continue
                pip_r = math.sqrt(float(a.mean()) / math.pi)
                if not cfg.pip_step_min <= pip_r / step <= cfg.pip_step_max:
                    continue
                spread = float(np.std(np.sqrt(a)) / np.mean(np.sqrt(a)))
                cost = resid + cfg.offset_weight * off + cfg.size_spread_weight * spread
                radius = max(cfg.unexplained_radius * step, rad_many * size)
            # penalise pip-like candidates the explanation leaves out
            med = float(np.median(a))
            for i in idx_all:
                if i in sub:
                    continue
                d = math.hypot(xy[i, 0] - c[0], xy[i, 1] - c[1])
                lo_ratio = 0.15 if value == 1 else 0.4
                if lo_ratio <= areas[i] / med <= 2.5 and d < radius:
                    cost += cfg.unexplained_cost
            if best is None or cost < best.cost:
                aspect = _affine_aspect(pts, value, angle) if value >= 4 else 1.0
                best = _Fit(value, cost, (float(c[0]), float(c[1])), step, angle, aspect,
                            tuple((float(p[0]), float(p[1])) for p in pts),
                            pip_area=float(np.median(a)))
        if best is not None:
            fits.append(best)
    return fits


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
    patch: Image, cfg: DiceConfig, die_frac: float = 1.0, known: bool = False
) -> tuple[list[_Fit], float, FloatArray]:
    """Every level's best explanation of ``patch`` (and the blob detector's, weighted).

    ``die_frac`` is the die's size as a fraction of the patch's longer side: its outline box
    (``known=False``) or its edge (``known=True``).
    """
    lab, scale = _prepare(patch, cfg)
    dist = _distance_map(lab, cfg, die_frac)
    rot = _rotations(cfg.angle_step)
    fits: list[_Fit] = []
    h, w = dist.shape
    size = float(max(h, w)) * die_frac
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    for level in cfg.levels:
        found = _holes(dist, level, cfg, die_frac)
        if found is None:
            continue
        holes, face_shape = found
        if cfg.use_levels:
            level_fits = _explain(holes, size, centre, rot, cfg, known)
            if level_fits:
                best = min(level_fits, key=lambda f: (f.cost, -f.value))
                fits.append(dataclasses.replace(best, face=face_shape))
    if cfg.use_blobs:
        blob_fits = _explain(_blobs(dist, cfg), size, centre, rot, cfg, known)
        if blob_fits:
            best = min(blob_fits, key=lambda f: (f.cost, -f.value))
            fits.extend([best] * cfg.blob_votes)
    return fits, scale, dist


def _decide(
    fits: list[_Fit], cfg: DiceConfig = DEFAULT_CONFIG
) -> tuple[int, float, _Fit | None]:
    """Vote over levels: each level's best fit counts by how well it fits.

    A face whose pips are partly missed at some levels reads as a smaller value there (a
    four inside a six, a two inside a four), never the other way round; so a value with
    more pips gets a bonus per pip when it fits well somewhere.
    """
    score: dict[int, float] = {}
    best_per: dict[int, _Fit] = {}
    for f in fits:
        score[f.value] = score.get(f.value, 0.0) + max(0.0, 1.0 - f.cost)
        if f.value not in best_per or f.cost < best_per[f.value].cost:
            best_per[f.value] = f
    if not score or max(score.values()) <= 0.0:
        return 0, 0.0, None
    for v, f in best_per.items():
        if f.cost <= cfg.bonus_cost_max:
            score[v] += cfg.pip_bonus * v
    ranked = sorted(score, key=lambda v: -score[v])
    top = ranked[0]
    total = sum(score.values())
    conf = score[top] / total * (1.0 - math.exp(-score[top]))
    return top, float(min(max(conf, 0.0), 1.0)), best_per[top]


def read_die(patch: Image, *, config: DiceConfig = DEFAULT_CONFIG) -> tuple[int, float]:
    """The value (1-6) on a die seen from above, and a confidence in [0, 1].

    ``patch`` is a BGR (or grey) crop holding one die, roughly centred, the die filling a
    good part of it. When no layout fits, the value is 0 and the confidence 0.

    >>> read_die(draw_die(3, size=40, angle=20.0))[0]
    3
    """
    if patch.size == 0 or min(patch.shape[:2]) < 6:
        return 0, 0.0
    fits, _, _ = _all_fits(patch, config)
    value, conf, _ = _decide(fits, config)
    return value, conf


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


# --- finding dice -------------------------------------------------------------------------------


def _read_crop(
    image: Image, x: float, y: float, half: float, cfg: DiceConfig
) -> tuple[int, float, _Fit | None, list[_Fit], float, tuple[float, float]]:
    """Read the die in a square crop centred on (x, y); fit geometry back in image pixels."""
    h, w = image.shape[:2]
    x0, x1 = round(x - half), round(x + half)
    y0, y1 = round(y - half), round(y + half)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        pad = math.ceil(half) + 2
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        x0, x1, y0, y1 = x0 + pad, x1 + pad, y0 + pad, y1 + pad
        origin = (x0 - pad, y0 - pad)
    else:
        origin = (x0, y0)
    crop = image[y0:y1, x0:x1]
    fits, scale, dist = _all_fits(crop, cfg, die_frac=1.0 / (2.0 * cfg.crop_half), known=True)
    value, conf, best = _decide(fits, cfg)
    if best is not None and value < cfg.pips_enough:
        die_work = half / cfg.crop_half * scale
        if _clutter(dist, best, die_work) > cfg.clutter_max:
            return 0, 0.0, None, fits, scale, (float(origin[0]), float(origin[1]))
    if best is not None and value >= 2:
        extra = _extra_pips(dist, best, half / cfg.crop_half * scale, cfg)
        if extra:
            best = dataclasses.replace(best, extra_pips=extra)
    return value, conf, best, fits, scale, (float(origin[0]), float(origin[1]))


def _clutter(dist: FloatArray, fit: _Fit, die_work: float) -> float:
    """Share of a face's area, away from its pips, that is not face-coloured.

    A die's face is plain around its pips; the doubling cube's digits, a checker's rings or
    the board's grain are not. Measured within 0.4 die edges of the fitted centre, outside
    1.6 pip radii of each pip, against half the pips' own colour distance.
    """
    h, w = dist.shape
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy = fit.centre
    inside = np.hypot(xx - cx, yy - cy) < 0.4 * die_work
    pip_r = math.sqrt(max(fit.pip_area, 1.0) / math.pi)
    pip_core = np.zeros((h, w), bool)
    for px, py in fit.pips:
        near = np.hypot(xx - px, yy - py)
        inside &= near > 1.6 * pip_r
        pip_core |= near < 0.6 * pip_r
    if not inside.any() or not pip_core.any():
        return 1.0
    thresh = 0.5 * float(np.median(dist[pip_core]))
    return float((dist[inside] > thresh).mean())


def _extra_pips(dist: FloatArray, fit: _Fit, die_work: float, cfg: DiceConfig) -> int:
    """Pips of the winning size seen beside the read face: a second face shows (cocked die).

    A flat die seen from above shows its sides at a grazing angle at most, where pips are
    thin slivers; a leaning die shows a second face squarely enough for round pips.
    """
    n = 0
    cx, cy = fit.centre
    for x, y, area, _ in _blobs(dist, cfg):
        d = math.hypot(x - cx, y - cy) / die_work
        if not cfg.extra_dist_min <= d <= cfg.extra_dist_max:
            continue
        if min(math.hypot(x - px, y - py) for px, py in fit.pips) < 0.25 * die_work:
            continue
        if 1.0 / cfg.extra_area_ratio <= area / max(fit.pip_area, 1.0) <= cfg.extra_area_ratio:
            n += 1
    return n


def _face_sizes(fits: list[_Fit], scale: float, die_px: float) -> list[tuple[float, float, float]]:
    """The whole (uncut) faces seen at the levels: (long, short) in ``die_px``, and fill."""
    out = []
    for f in fits:
        if f.face is not None and f.face[2] > 0.0:
            out.append((f.face[0] / scale / die_px, f.face[1] / scale / die_px, f.face[2]))
    return out


def _is_die(value: int, fits: list[_Fit], scale: float, die_px: float, cfg: DiceConfig) -> bool:
    """Whether what was read is a die: enough pips in a die's layout, or a die-sized face.

    A lone pip needs a face of about a die's size and square, seen at some level: that keeps
    a checker's highlight (a round spot on a large round face) from being read as a one.
    """
    if value >= cfg.pips_enough:
        return True
    return any(
        lo <= cfg.die_size_max and sh >= cfg.die_size_min and fill >= cfg.die_fill_min
        and lo / max(sh, 1e-6) <= cfg.die_aspect_max
        for lo, sh, fill in _face_sizes(fits, scale, die_px)
    )


def _is_flat(value: int, fits: list[_Fit], scale: float, die_px: float, cfg: DiceConfig) -> bool:
    """Whether the die lies flat: a square top face of the expected size, unstretched pips.

    A cocked die shows a foreshortened top face (one side shorter, or the whole face smaller
    or larger than expected) and its pips' grid is stretched the same way.
    """
    aspects = [f.aspect for f in fits if f.value == value and f.value >= 4]
    if aspects:
        # four pips or more pin down the face's shape better than its outline does (the
        # outline merges with the die's sides and shadow)
        return float(np.median(aspects)) <= cfg.pip_aspect_max
    faces = _face_sizes(fits, scale, die_px)
    if not faces:
        return True
    good = sum(
        1 for lo, sh, fill in faces
        if cfg.flat_size_min <= sh and lo <= cfg.flat_size_max
        and lo / max(sh, 1e-6) <= cfg.flat_aspect_max and fill >= cfg.flat_fill_min
    )
    return good >= max(1, math.ceil(cfg.flat_share * len(faces)))


def _candidates(
    image: Image, die_px: float, mask: Mask | None, cfg: DiceConfig
) -> list[tuple[float, float]]:
    """Likely die centres, strongest first.

    Pip-sized spots of either polarity are found with a Laplacian of Gaussian; each spot is
    then moved to the mean of the spots of its polarity around it (a mean shift with a
    die-sized window). Every layout's pips are centred on the face, so the modes are die
    centres; a checker's highlight is too large a spot to count.
    """
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    sigma = max(0.7, cfg.pip_sigma * die_px)
    g = cv2.GaussianBlur(grey, (0, 0), sigma)
    log = (sigma**2) * cv2.Laplacian(g, cv2.CV_32F, ksize=3)
    if mask is not None:
        log[mask == 0] = 0.0
    k = max(3, round(2.0 * sigma) | 1)
    kernel = np.ones((k, k), np.uint8)
    spots: list[tuple[FloatArray, FloatArray]] = []
    for resp in (log, -log):  # dark spots, bright spots
        peaks = (resp >= cv2.dilate(resp, kernel)) & (resp > cfg.spot_min_response)
        ys, xs = np.nonzero(peaks)
        pts = np.stack([xs, ys], 1).astype(np.float64)
        spots.append((pts, resp[ys, xs].astype(np.float64)))
    radius = cfg.shift_radius * die_px
    modes: list[tuple[float, float, float]] = []
    for pts, weight in spots:
        if len(pts) == 0:
            continue
        for i in np.argsort(-weight)[: cfg.max_spots]:
            c = pts[i].copy()
            for _ in range(6):
                d = np.hypot(*(pts - c).T)
                near = d < radius
                nc = (pts[near] * weight[near, None]).sum(0) / weight[near].sum()
                if np.hypot(*(nc - c)) < 0.5:
                    c = nc
                    break
                c = nc
            near = np.hypot(*(pts - c).T) < radius
            score = float(weight[near].sum())
            if all(math.hypot(c[0] - m[0], c[1] - m[1]) > 0.3 * die_px for m in modes):
                modes.append((float(c[0]), float(c[1]), score))
    modes.sort(key=lambda m: -m[2])
    return [(m[0], m[1]) for m in modes[: cfg.max_dice_candidates]]


def find_dice(
    image: Image,
    *,
    die_px: float,
    surface_mask: Mask | None = None,
    config: DiceConfig = DEFAULT_CONFIG,
) -> list[DieRead]:
    """Every die lying in a top-down BGR view of the playing surface.

    ``die_px`` is the expected edge of a die in this image's pixels; ``surface_mask`` (non-zero
    where dice may lie) limits the search. Each die is reported with its value, its centre in
    this image's pixel coordinates, ``flat=False`` when its top face is not a square of the
    expected size (a cocked die) and a confidence; strongest first.

    >>> board = np.full((200, 300, 3), (40, 90, 30), np.uint8)
    >>> die = draw_die(4, size=30, angle=10.0, background=(40, 90, 30))
    >>> board[50:50 + die.shape[0], 80:80 + die.shape[1]] = die
    >>> [(d.value, d.flat) for d in find_dice(board, die_px=30)]
    [(4, True)]
    """
    if die_px <= 2:
        raise ValueError(f"die_px must be a few pixels at least, got {die_px!r}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    cfg = config
    half = cfg.crop_half * die_px
    found: list[DieRead] = []
    h, w = image.shape[:2]
    edge = cfg.edge_margin * die_px
    for cx, cy in _candidates(image, die_px, surface_mask, cfg):
        if not (edge <= cx <= w - 1 - edge and edge <= cy <= h - 1 - edge):
            continue
        if any(math.hypot(cx - d.x, cy - d.y) < cfg.merge_dist * die_px for d in found):
            continue
        x, y = cx, cy
        value, conf, best, fits, scale, origin = _read_crop(image, x, y, half, cfg)
        for _ in range(2):  # re-centre on the pips and read again
            if best is None:
                break
            nx = origin[0] + best.centre[0] / scale
            ny = origin[1] + best.centre[1] / scale
            if math.hypot(nx - x, ny - y) < 0.08 * die_px:
                break
            x, y = nx, ny
            value, conf, best, fits, scale, origin = _read_crop(image, x, y, half, cfg)
        if best is None or value == 0 or conf < cfg.min_confidence:
            continue
        x = origin[0] + best.centre[0] / scale
        y = origin[1] + best.centre[1] / scale
        if any(math.hypot(x - d.x, y - d.y) < cfg.merge_dist * die_px for d in found):
            continue
        if not _is_die(value, fits, scale, die_px, cfg):
            continue
        flat = best.extra_pips < cfg.extra_pips_cocked and _is_flat(value, fits, scale, die_px,
                                                                       cfg)
        found.append(DieRead(value, x, y, flat, conf))
    found.sort(key=lambda d: -d.confidence)
    return found
