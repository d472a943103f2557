"""Finding dice on the playing surface (see :mod:`pibg.vision.dice`)."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from pibg.observation import DieRead
from pibg.vision.dice_config import DEFAULT_CONFIG, DiceConfig, FloatArray, Image, Mask, _Fit
from pibg.vision.dice_read import _all_fits, _blobs, _decide

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
