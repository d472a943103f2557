"""Checker counting on the canonical top-down view: pure stage functions.

Every checker place (a slot on a point, on the bar) is sampled as the mean Lab colour of a
small disc and compared with three learnt classes: the empty board at that very place (from
the starting-position frame), White's checkers and Black's. A point's count is the run of
occupied places from its base. All points and both trays are then chosen together
(:func:`joint_counts`) under the rules' constraint that each colour has 15 checkers: a phantom
checker that would make a 16th gives way, and checkers stacked in a second layer (from the 6th
on, hidden from above) are what the first layer, the bar and the tray leave over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

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

    def dist2(self, f: Array, side: int = 0) -> Array:
        """Squared normalised distance. ``side`` +1: a lighter colour than the mean is no
        farther (the lightest class only gets lighter under more light or glare); -1: a darker
        one is no farther (the darkest class); 0: both ways count."""
        m = np.asarray(self.mean, np.float32)
        s = np.asarray(self.sigma, np.float32)
        z = (np.asarray(f, np.float32) - m) / s
        if side:
            z[..., 0] = np.minimum(z[..., 0], 0.0) if side > 0 else np.maximum(z[..., 0], 0.0)
        return np.asarray((z ** 2).sum(-1), np.float32)


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


def float_image(canon: Array) -> Array:
    """The canonical BGR image as float32 (samples are averaged in BGR, where a change of
    exposure or white balance is a gain per channel)."""
    return np.asarray(canon, np.float32)


def to_lab(bgr: Array) -> Array:
    """BGR colours (..., 3) in 0-255 -> Lab on OpenCV's 8-bit scale (L 0-255, a/b centred 128)."""
    b = np.clip(np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0, 0.0, 1.0)
    lab = cv2.cvtColor(b, cv2.COLOR_BGR2LAB).reshape(-1, 3)
    lab = lab * np.array([255.0 / 100.0, 1.0, 1.0], np.float32) + np.array([0, 128, 128],
                                                                          np.float32)
    return np.asarray(lab, np.float32).reshape(np.shape(bgr))


def from_lab(lab: Array) -> Array:
    """The inverse of :func:`to_lab`: Lab on OpenCV's 8-bit scale -> BGR in 0-255."""
    f = np.asarray(lab, np.float32).reshape(-1, 1, 3)
    f = (f - np.array([0, 128, 128], np.float32)) * np.array([100.0 / 255.0, 1.0, 1.0],
                                                              np.float32)
    bgr = cv2.cvtColor(np.ascontiguousarray(f), cv2.COLOR_LAB2BGR) * 255.0
    return np.asarray(bgr, np.float32).reshape(np.shape(lab))


def read_places(cfg: VisionConfig, feat: Array, gains: Array | float, background: Array,
                background_lab: Array, white: ColourModel, black: ColourModel,
                seen: Array | None = None) -> SlotReading:
    """Class distances of places sampled (``feat``, BGR) in a frame whose light is ``gains``
    times the calibration's.

    A channel at the sensor's ceiling (``cfg.clip_level``) says only that the colour is at
    least that light there: divided by a gain above 1 it would read darker and tinted (render
    dev1's second frame, a brighter exposure: White's checkers clipped at 254 in two channels
    read 40 darker and blue, "like neither", and the frame was taken for a hand). Such a place
    is measured against White and against the empty board at the closest colour its reading
    allows (each clipped channel raised to theirs where lower).
    """
    seen = feat / gains if seen is None else seen
    reading = classify_places(cfg, to_lab(seen), background_lab, white, black)
    clipped = feat >= cfg.clip_level
    if not clipped.any():
        return reading
    rows = clipped.any(-1)
    f, c = seen[rows], clipped[rows]
    bg = np.broadcast_to(np.asarray(background, np.float32), feat.shape)[rows]
    as_white = to_lab(np.where(c, np.maximum(f, from_lab(np.asarray(white.mean))), f))
    as_empty = to_lab(np.where(c, np.maximum(f, bg), f))
    bgl = np.broadcast_to(np.asarray(background_lab, np.float32), feat.shape)[rows]
    d_white, d_empty = reading.d_white.copy(), reading.d_empty.copy()
    d_white[rows] = np.minimum(d_white[rows], white.dist2(as_white, _side(white, black)))
    d_empty[rows] = np.minimum(d_empty[rows], empty_dist2(cfg, as_empty, bgl))
    return SlotReading(d_empty, d_white, reading.d_black)


#: the empty board's level (0-255) in a channel from which that channel's gain is measured
_GAIN_FLOOR = 48.0


def photometric_gains(feat: Array, background: Array, groups: Array) -> Array:
    """Per-channel gain of this frame against the calibration, one per group of places.

    ``feat``/``background`` (..., 3) BGR; ``groups`` (...) integer labels (e.g. board
    quadrants). Most places are empty, so the median ratio is the change of light; checkers
    are outliers. Returns gains shaped like ``feat``.
    """
    ratio = (feat + 4.0) / (background + 4.0)
    flat_r = ratio.reshape(-1, 3)
    # A channel the empty board hardly has (green on magenta points: 22 of 255) says little
    # of a gain: a little light added, or noise, doubles it (render rns1: green's gain read
    # 1.3 where it was 0.9, and every White checker then looked Black). Each channel's gain
    # comes from the places where the board has it, where there are enough.
    has = np.broadcast_to(np.asarray(background, np.float32), feat.shape).reshape(-1, 3) \
        >= _GAIN_FLOOR
    has |= has.sum(0) < 8
    glob = np.array([np.median(flat_r[has[:, c], c]) for c in range(3)], np.float32)
    out = np.empty_like(flat_r)
    g = groups.reshape(-1)
    # Places whose ratio is far from the whole board's hold checkers (or their shadows): a
    # quadrant where half the places hold checkers must still get its light from the board.
    near = np.all(np.abs(np.log(flat_r / glob)) < np.log(3.0), 1)
    for label in np.unique(g):
        m = g == label
        local = glob.copy()
        for c in range(3):
            inl = m & near & has[:, c]
            if inl.sum() >= 8:
                local[c] = np.median(flat_r[inl, c])
        # A quadrant full of checkers must not drag its gain far from the whole board's.
        out[m] = np.clip(local, glob * 0.8, glob * 1.25)
    return np.asarray(np.clip(out, 0.2, 5.0), np.float32).reshape(feat.shape)


def photometric_tone(cfg: VisionConfig, feat: Array, background: Array, groups: Array,
                     gains: Array) -> tuple[Array, Array]:
    """This frame's tone against the calibration: per channel, ``log(feat + 4)`` is
    ``power * log(background + 4) + offset`` at the empty places, with one power for the
    board and an offset per group of places (a gain: see :func:`photometric_gains`).

    A light whose colour or strength changed, seen through a tone curve (a camera's, a
    renderer's filmic view), shifts light and dark colours by different amounts, which no
    gain per channel undoes. The points of both colours give the fit its span; checkers are
    outliers, left out as their residuals grow. Returns ``(power (3,), offset like feat)``,
    the power divided by the three's geometric mean: the colour of the change only (a change
    of contrast alike in every channel is left to the gains, as the colour models' spreads
    allow for it). Too few empty places, or all of one colour: the frame's ``gains`` alone
    (:func:`photometric_gains`, power 1).
    """
    x = np.log(np.asarray(background, np.float64).reshape(-1, 3) + 4.0)
    y = np.log(np.asarray(feat, np.float64).reshape(-1, 3) + 4.0)
    x = np.broadcast_to(x, y.shape)
    g = groups.reshape(-1)
    labels = np.unique(g)
    power = np.ones(3)
    offset = np.zeros_like(y)
    tau = math.log(cfg.tone_inlier_first)
    for _ in range(3):
        for label in labels:
            m = g == label
            offset[m] = np.median(y[m] - power * x[m], 0)
        inl = np.all(np.abs(y - power * x - offset) < tau, 1)
        xt, yt = x[inl].copy(), y[inl].copy()
        for label in labels:
            m = g[inl] == label
            if m.any():
                xt[m] -= xt[m].mean(0)
                yt[m] -= yt[m].mean(0)
        den = (xt * xt).sum(0)
        if inl.sum() < cfg.tone_min_places or np.any(den < cfg.tone_min_span * inl.sum()):
            return np.ones(3), np.log(np.broadcast_to(np.asarray(gains, np.float64), feat.shape))
        power = np.clip((xt * yt).sum(0) / den, cfg.tone_power_min, cfg.tone_power_max)
        tau = math.log(cfg.tone_inlier)
    power = power / float(np.prod(power)) ** (1.0 / 3.0)
    for label in labels:
        m = g == label
        offset[m] = np.median(y[m & inl] - power * x[m & inl], 0) if (m & inl).sum() >= 8 \
            else np.median(y[inl] - power * x[inl], 0)
    return power, offset.reshape(feat.shape)


def toned(feat: Array, power: Array, offset: Array | float) -> Array:
    """``feat`` as the calibration's light would show it (see :func:`photometric_tone`)."""
    back = np.exp((np.log(np.asarray(feat, np.float64) + 4.0) - offset) / power) - 4.0
    return np.asarray(back, np.float32)


def sample_discs(cfg: VisionConfig, layout: Layout, img: Array,
                 centres: Array, radius: float | None = None,
                 integral: Array | None = None) -> Array:
    """Mean colour over a small box round each centre; ``centres`` (..., 2) -> (..., 3).

    ``radius`` is a fraction of the checker diameter (default ``cfg.sample_radius``);
    ``integral`` is ``cv2.integral(img)`` when the caller already has it.
    """
    frac = cfg.sample_radius if radius is None else radius
    r = max(1, round(layout.checker_px * frac))
    h, w = img.shape[:2]
    c = np.asarray(centres, np.float32)
    flat = c.reshape(-1, 2)
    xs = np.clip(np.round(flat[:, 0]).astype(np.int32), r, w - r - 1)
    ys = np.clip(np.round(flat[:, 1]).astype(np.int32), r, h - r - 1)
    # An integral image makes every box mean O(1).
    ii = cv2.integral(img) if integral is None else integral
    x0, x1, y0, y1 = xs - r, xs + r + 1, ys - r, ys + r + 1
    s = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
    out = s / float((2 * r + 1) ** 2)
    return np.asarray(out, np.float32).reshape(*c.shape[:-1], 3)


#: The share of a place's pixels darker than its dark lightness (:func:`sample_dark`).
DARK_SHARE = 0.2


def sample_dark(cfg: VisionConfig, layout: Layout, img: Array, centres: Array) -> Array:
    """The grey level (0-255) that ``DARK_SHARE`` of the pixels of each place's box (as
    :func:`sample_discs` samples, every other pixel) are darker than; ``centres`` (..., 2) -> (...).

    A glossy dark checker mirrors a lamp: its highlight lifts its mean colour towards a
    light checker's in a dim corner, while its darker pixels stay dark (render rpa3: a Black
    checker's box L 52 to 193 round a mean of 118, a White one's in the dim corner 121 to 141
    round 131)."""
    frac = cfg.sample_radius
    r = max(1, round(layout.checker_px * frac))
    grey = cv2.cvtColor(np.asarray(np.clip(img, 0, 255), np.uint8), cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    c = np.asarray(centres, np.float32)
    flat = c.reshape(-1, 2)
    xs = np.clip(np.round(flat[:, 0]).astype(np.int32), r, w - r - 1)
    ys = np.clip(np.round(flat[:, 1]).astype(np.int32), r, h - r - 1)
    d = np.arange(-r, r + 1, 2)  # every other pixel: as good a quantile, a quarter the work
    box = grey[(ys[:, None, None] + d[None, :, None]), (xs[:, None, None] + d[None, None, :])]
    box = box.reshape(len(flat), -1)
    k = int(DARK_SHARE * (box.shape[1] - 1))
    return np.asarray(np.partition(box, k, axis=1)[:, k], np.float32).reshape(c.shape[:-1])


def dark_lab(feat: Array, dark: Array, gains: Array | float) -> Array:
    """Lab of places sampled (``feat``, BGR) in a frame whose light is ``gains`` times the
    calibration's, their lightness that of their darker pixels (``dark``, grey levels from
    :func:`sample_dark`): what tells whose a checker is (:class:`DarkModel`)."""
    g = np.broadcast_to(np.asarray(gains, np.float32), np.shape(feat))
    lab = to_lab(feat / g)
    level = dark / np.maximum(g @ np.array([0.114, 0.587, 0.299], np.float32), 1e-3)
    lab[..., 0] = to_lab(np.repeat(np.asarray(level, np.float32)[..., None], 3, -1))[..., 0]
    return lab


def dark_models(white: ColourModel, black: ColourModel, dark: tuple[float, ...]
                ) -> tuple[ColourModel, ColourModel]:
    """The two checker colours in :func:`dark_lab`'s terms: their lightness that of their
    darker pixels (``dark``: White's mean and spread, then Black's, as calibrated), their
    hue as learnt."""
    wm, ws, bm, bs = dark
    return (ColourModel((wm, white.mean[1], white.mean[2]), (ws, white.sigma[1], white.sigma[2])),
            ColourModel((bm, black.mean[1], black.mean[2]), (bs, black.sigma[1], black.sigma[2])))


def classify_places(cfg: VisionConfig, feat: Array, background: Array,
                    white: ColourModel, black: ColourModel) -> SlotReading:
    """Distances of each place to empty / White / Black; all colours in Lab.

    White is the lighter class and Black the darker (unless the players named them the other
    way round, ``--white-home``): a checker of the lighter colour lighter than learnt (more
    light, glare, a clipped sensor) or one of the darker colour darker is no less itself.
    """
    side = _side(white, black)
    return SlotReading(empty_dist2(cfg, feat, background), white.dist2(feat, side),
                       black.dist2(feat, -side))


def _side(white: ColourModel, black: ColourModel) -> int:
    """+1 when White's colour is the lighter (as pibg names them), -1 when the darker."""
    return 1 if white.mean[0] >= black.mean[0] else -1


def empty_dist2(cfg: VisionConfig, feat: Array, background: Array) -> Array:
    """Squared normalised distance (Lab, in ``background_sigma`` units) of each place to the
    empty board there."""
    bs = np.asarray(cfg.background_sigma, np.float32)
    return np.asarray((((feat - background) / bs) ** 2).sum(-1), np.float32)


_ANGLES = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)


def edge_map(cfg: VisionConfig, canon: Array) -> tuple[Array, float]:
    """Strong colour edges of the canonical view (bool (H, W)) and the frame's gradient scale
    (median gradient strength), so that "strong" does not depend on the light."""
    img = cv2.GaussianBlur(np.asarray(canon), (3, 3), 0)
    gx = cv2.Sobel(img, cv2.CV_16S, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_16S, 0, 1, ksize=3)
    both = cv2.add(cv2.convertScaleAbs(gx, alpha=0.25), cv2.convertScaleAbs(gy, alpha=0.25))
    b, g, r = cv2.split(both)
    mag = cv2.max(cv2.max(b, g), r)  # the strongest channel: colour edges count too
    scale = float(np.median(mag[::4, ::4])) + 1.0
    return np.asarray(mag > cfg.ring_edge * scale), scale


def ring_index(cfg: VisionConfig, layout: Layout, centres: Array, shape: tuple[int, ...],
               steps: int | None = None) -> Array:
    """Flat pixel indices (S, N, A) of circles round each centre: S shift/radius variants
    (``steps`` shifts each way, default ``cfg.ring_steps``), N centres, A angles. Computed once
    per board, then :func:`ring_scores` only gathers."""
    h, w = shape[:2]
    c = np.asarray(centres, np.float32).reshape(-1, 2)
    cos, sin = np.cos(_ANGLES), np.sin(_ANGLES)
    r0 = layout.checker_px / 2
    s = cfg.ring_shift * layout.u
    out = []
    n = cfg.ring_steps if steps is None else steps
    shifts = [i * s for i in range(-n, n + 1)]
    for dr in (-cfg.ring_radius_slack, 0.0, cfg.ring_radius_slack):
        rr = r0 * (1.0 + dr)
        for dx in shifts:
            for dy in shifts:
                xi = np.clip(np.rint(c[:, 0, None] + dx + rr * cos[None]), 0, w - 1)
                yi = np.clip(np.rint(c[:, 1, None] + dy + rr * sin[None]), 0, h - 1)
                out.append(yi.astype(np.intp) * w + xi.astype(np.intp))
    return np.stack(out)


def ring_scores(edges: Array, index: Array, out_shape: tuple[int, ...], rank: int = -1
                ) -> Array:
    """Evidence of a checker's round edge at each centre: the largest share, over small
    shifts and radii, of a checker-sized circle that runs along strong edges.

    With ``rank`` >= 0 the circle is cut into four arcs (right, bottom, left, top) and the
    arc of that rank from the weakest counts: a checker's rim closes all round, while the
    straight outlines of a point or of the board's edge run along one or two arcs only.
    """
    hit = edges.reshape(-1)[index]
    if rank < 0:
        return np.asarray(hit.mean(-1).max(0), np.float32).reshape(out_shape)
    a = hit.shape[-1]
    arcs = np.roll(hit, a // 8, -1).reshape(*hit.shape[:-1], 4, a // 4).mean(-1)
    pick = arcs.min(-1) if rank == 0 else np.sort(arcs, -1)[..., rank]
    return np.asarray(pick.max(0), np.float32).reshape(out_shape)


@dataclass(frozen=True, slots=True)
class RingModel:
    """Ring evidence on occupied places and on empty ones (per distance from the base, since
    the board's edge and the points' outlines cross the circle more near the base), learnt
    at calibration."""

    occupied: tuple[float, float]  #: mean, sigma
    empty: tuple[tuple[float, float], ...]  #: mean, sigma for each place k from the base

    def llr(self, r: Array) -> Array:
        """log P(r | checker) - log P(r | empty); ``r`` (..., K)."""
        mo, so = self.occupied
        emp = np.asarray(self.empty, np.float32)
        k = r.shape[-1]
        me = emp[:k, 0] if len(emp) >= k else np.resize(emp[:, 0], k)
        se = emp[:k, 1] if len(emp) >= k else np.resize(emp[:, 1], k)
        lo = -0.5 * ((r - mo) / so) ** 2 - np.log(so)
        le = -0.5 * ((r - me) / se) ** 2 - np.log(se)
        return np.asarray(lo - le, np.float32)


#: The round-edge evidence taken where none was learnt (a rough calibration from a frame of
#: any position, :func:`~pibg.vision.calibrate.learn_from_any_frame`): a board's own is
#: learnt from its starting position.
ROUGH_RING = RingModel((0.9, 0.1), ((0.35, 0.2),))


def occupancy_logits(cfg: VisionConfig, reading: SlotReading, ring: Array | None,
                     ring_model: RingModel | None, ring_clip: Array | None = None) -> Array:
    """Log-odds that each place holds a checker, from colour and (if known) the round edge.

    ``ring_clip`` (per place): where the colour says empty, the rim's evidence for a checker
    is clipped to it rather than to ``cfg.ring_clip`` (beside the cube, whose edges and
    shadow cross the circle); a missing rim counts in full everywhere.
    """
    colour = 0.5 * (reading.d_empty - np.minimum(reading.d_white, reading.d_black))
    logit = np.clip(colour, -cfg.colour_clip, cfg.colour_clip) * cfg.colour_weight
    if ring is not None and ring_model is not None:
        top = (cfg.ring_clip if ring_clip is None
               else np.where(colour < 0, ring_clip, cfg.ring_clip))
        logit = logit + np.clip(ring_model.llr(ring), -cfg.ring_clip, top)
    return np.asarray(logit, np.float32)


def counts_from_logits(logits: Array, reading: SlotReading) -> tuple[Array, Array, Array]:
    """Checkers sit in a run from the base: the run length n maximising the summed log-odds
    of its places (and the emptiness of the rest). Returns (run, colour, log-score per n)."""
    n_pts, _k = logits.shape
    cum = np.concatenate([np.zeros((n_pts, 1), np.float32), np.cumsum(logits, 1)], 1)
    run = np.argmax(cum, 1)
    # Colour: summed evidence White vs Black over the run (at least the base place).
    cev = 0.5 * (reading.d_black - reading.d_white)
    colour = np.zeros(n_pts, np.int8)
    for p in range(n_pts):
        m = max(int(run[p]), 1)
        colour[p] = WHITE if float(cev[p, :m].sum()) >= 0 else BLACK
    return run, colour, cum


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


def point_reads(cum: Array, reading: SlotReading, run: Array, colour: Array,
                extra: Array) -> tuple[RegionRead, ...]:
    """A RegionRead per point from the run log-scores ``cum`` (24, K+1).

    P(n) follows exp(cum[n]); the colour of a run from the summed colour evidence over it.
    ``extra`` (24,) holds checkers inferred in a second layer; they are added to the count with
    a little doubt about their number.
    """
    reads = []
    cev = 0.5 * (reading.d_black - reading.d_white)
    for p in range(cum.shape[0]):
        sc = cum[p] - cum[p].max()
        pn = np.exp(np.maximum(sc, -30.0))
        pn /= pn.sum()
        dist: dict[int, float] = {}
        for n, pr in enumerate(pn):
            if n == 0:
                dist[0] = dist.get(0, 0.0) + float(pr)
                continue
            e = float(np.clip(cev[p, :n].sum(), -30, 30))
            pw = 1.0 / (1.0 + np.exp(-e))
            dist[n] = dist.get(n, 0.0) + float(pr) * pw
            dist[-n] = dist.get(-n, 0.0) + float(pr) * (1.0 - pw)
        if extra[p]:
            sign = 1 if colour[p] == WHITE else -1
            base = sign * int(run[p])
            keep = dist.pop(base, 0.0)
            e_n = int(extra[p])
            for de, w in ((0, 0.8), (-1, 0.1), (1, 0.1)):
                if e_n + de > 0:
                    key = base + sign * (e_n + de)
                    dist[key] = dist.get(key, 0.0) + keep * w
        dist = {n: v for n, v in dist.items() if v > 1e-5}
        reads.append(RegionRead.from_mapping(dist))
    return tuple(reads)


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


#: A tray's pile is measured by its length: leaning checkers (the first ones borne off lean
#: on the tray's end or lie aslant) make a short pile look longer, so counts below the
#: reading's neighbour fall off by only this much each (see :func:`tray_read`).
TRAY_LEAN_FALL = 0.3


def tray_read(n: int, confidence: float) -> RegionRead:
    """A tray's count ``n`` as read from the pile's length: its neighbours as
    :func:`count_read` has them above, and counts below it falling off more slowly, down to
    one checker (a lone checker leaning across the tray reads as a pile of two or three)."""
    read = count_read(n, confidence)
    if n <= 1:
        return read
    probs = dict(read.likelihoods)
    below = probs[n - 1]
    for m in range(n - 2, 0, -1):
        below *= TRAY_LEAN_FALL
        probs[m] = below
    total = sum(probs.values())
    return RegionRead.from_mapping({m: v / total for m, v in probs.items()})


def tray_energy(layout: Layout, canon: Array, white: bool, scale: float) -> Array:
    """Horizontal-edge strength per row of one half of the tray, from its outer end inwards.

    Checkers standing on edge make a pile of thin slabs: many horizontal edges. The strength
    is divided by the frame's gradient ``scale`` so that it does not depend on the light.
    """
    x0, y0, x1, y1 = layout.tray_rect(white)
    w = canon.shape[1]
    xa = int(min(max(x0 + (x1 - x0) * 0.3, 0), w - 2))
    xb = int(min(max(x1 - (x1 - x0) * 0.3, xa + 1), w - 1))
    strip = np.asarray(canon[int(y0):int(y1), xa:xb], np.float32)
    if strip.shape[0] < 3:
        return np.zeros(0, np.float32)
    strip = np.asarray(cv2.GaussianBlur(strip, (0, 0), 0.7), np.float32)
    gy = np.abs(np.diff(strip, axis=0)).sum(-1).mean(1)
    win = max(3, round(layout.tray_capacity_px()))
    e = np.convolve(gy, np.ones(win, np.float32) / win, mode="same") / scale
    return np.asarray(e[::-1] if white else e, np.float32)


#: An empty half of the tray is taken to be at least this share as rough, inside, as the
#: other half (see :func:`tray_floor`).
TRAY_FLOOR_SHARE = 0.75


def tray_floor(tray_bg: Array) -> Array:
    """The two halves' empty profiles (``Calibration.tray_bg``, (2, R)), each raised to
    :data:`TRAY_FLOOR_SHARE` of the other half's median inside it (from a quarter of its
    length on). The two halves are one material under one light: a half learnt far smoother
    than the other showed something else at calibration (the tray's wall or its shadow, the
    corners a few pixels off, render rnt0's Black half 0.07 against White's 0.38), and
    measured against it the tray's own grain, once the camera has moved a little, reads as
    a full pile."""
    bg = np.asarray(tray_bg, np.float32)
    if bg.ndim != 2 or bg.shape[0] != 2 or bg.shape[1] < 4:
        return bg
    inner = [float(np.median(half[len(half) // 4:])) for half in bg]
    return np.asarray(np.stack([np.maximum(bg[0], TRAY_FLOOR_SHARE * inner[1]),
                                np.maximum(bg[1], TRAY_FLOOR_SHARE * inner[0])]), np.float32)


def _tray_start(cfg: VisionConfig, base: Array, pitch: float) -> float:
    """How many rows at the outer end of a tray's profile lie on the board's frame.

    The frame's edge makes the empty tray's profile (``base``) stand out from its inside by
    ``tray_frame_ratio`` over a band at the outer end. Half a pitch of that band is the
    profile's own smoothing (:func:`tray_energy` averages over a pitch) spreading an edge at
    the very end. Any more is frame inside the tray's rectangle: corners found a little
    outside the playing surface (on the checkers' tops) put it there, and a pile measured
    from the rectangle's end would count it as a checker.
    """
    inside = float(np.median(base[len(base) // 4:]))
    strong = base > cfg.tray_frame_ratio * max(inside, 1e-6)
    band = 0
    while band < len(base) // 4 and strong[band]:
        band += 1
    return max(0.0, band - max(3, round(pitch)) / 2.0)


def tray_slabs(cfg: VisionConfig, layout: Layout, canon: Array, white: bool, scale: float
               ) -> int:
    """How many checkers one half of the tray shows as slabs, counted one by one; 0 where no
    clear run of them starts at the tray's outer end.

    Checkers standing on edge show a bright rim each, one tray pitch apart: the brightness
    along the tray (across its middle) rises and falls once a checker. The rims are the
    brightness's peaks above its smooth course; a run of them starts near the outer end where
    the rise and fall is most regular (the profile's share at the pitch's frequency,
    ``tray_slab_coherence``), and goes on, both ways, while the next peak follows a pitch on
    (0.7 to 1.45 of it: the rims seen from a camera off to one side lie wider apart than the
    checkers) and stands as high as ``tray_slab_height`` of the run's typical one. The run
    counts only if it starts within ``tray_slab_start`` pitches of the outer end, has at
    least ``tray_slab_min`` rims, and rises and falls by ``tray_slab_contrast`` of the frame's
    gradient scale: an empty tray's grain and noise do not. Unlike the pile's length, the
    count does not depend on where the pile's ends are seen (the camera's height, the last
    checker's face, the frame's band over the outer end), but a rim can be missed at either
    end, or an extra one seen on the last checker's face.
    """
    pitch = layout.tray_capacity_px()
    if canon.ndim != 3 or pitch < 3:
        return 0
    x0, y0, x1, y1 = layout.tray_rect(white)
    h, w = canon.shape[:2]
    ya, yb = int(max(y0, 0)), int(min(y1, h))
    xa = int(min(max(x0 + (x1 - x0) * 0.15, 0), w - 2))
    xb = int(min(max(x1 - (x1 - x0) * 0.15, xa + 1), w - 1))
    if yb - ya < 6 * pitch:
        return 0
    grey = cv2.cvtColor(np.ascontiguousarray(canon[ya:yb, xa:xb]), cv2.COLOR_BGR2GRAY)
    p = grey.astype(np.float32).mean(1)
    p = p[::-1] if white else p
    hp = p - cv2.GaussianBlur(p.reshape(-1, 1), (1, 0), pitch * 0.6).ravel()
    hp = cv2.GaussianBlur(hp.reshape(-1, 1), (1, 0), 0.7).ravel()
    t = np.arange(-int(2 * pitch), int(2 * pitch) + 1)
    win = np.exp(-0.5 * (t / pitch) ** 2)
    z = np.convolve(hp, (win * np.exp(2j * np.pi * t / pitch))[::-1], mode="same")
    power = np.convolve(hp ** 2, win, mode="same") * win.sum()
    coherence = np.abs(z) / (np.sqrt(power) + 1e-3)
    n = len(hp)
    up = (hp[1:-1] > hp[:-2]) & (hp[1:-1] >= hp[2:]) & (hp[1:-1] > 0)
    peaks: list[int] = []
    for r in (np.flatnonzero(up) + 1).tolist():  # one peak per rim: the highest within half a pitch
        if peaks and r - peaks[-1] < 0.5 * pitch:
            if hp[r] > hp[peaks[-1]]:
                peaks[-1] = r
        else:
            peaks.append(r)
    regular = [k for k, r in enumerate(peaks) if coherence[r] > cfg.tray_slab_coherence]
    seeds = [k for k in regular if peaks[k] < 4 * pitch]
    if not seeds:
        return 0
    seed = max(seeds, key=lambda k: float(coherence[peaks[k]]))
    typical = float(np.median(hp[[peaks[k] for k in regular]]))
    run = [seed]
    for step in (1, -1):
        k = seed
        while 0 <= k + step < len(peaks):
            gap = abs(peaks[k + step] - peaks[k])
            if not (0.7 * pitch <= gap <= 1.45 * pitch
                    and hp[peaks[k + step]] > cfg.tray_slab_height * typical):
                break
            k += step
            run.append(k)
    rims = sorted(peaks[k] for k in run)
    reach = int(pitch) + 1
    rise = float(np.median([hp[r] - hp[max(r - reach, 0):min(r + reach, n)].min()
                            for r in rims]))
    if (len(rims) < cfg.tray_slab_min or rims[0] > cfg.tray_slab_start * pitch
            or rise < cfg.tray_slab_contrast * scale):
        return 0
    return len(rims)


class TrayCount(NamedTuple):
    """One half of the tray read alone: the pile's estimated number of checkers, how sure
    (0-1), and the count its rims give where its length shows none (None otherwise): either
    may be right, and the rule of 15 chooses."""

    est: float
    conf: float
    other: float | None = None


def tray_count(cfg: VisionConfig, layout: Layout, canon: Array, base: Array, white: bool,
               scale: float) -> TrayCount:
    """Estimated number of checkers in one half of the tray, and how sure (0-1).

    Each row's edge strength is compared with the empty tray's ``base`` profile learnt at
    calibration (a log ratio, so a dark pile in a dark tray counts as much as a light one). The
    pile is the run of rows from the outer end that splits the profile best into a strong part
    and a weak rest (the largest between-part variance); it must stand out from the rest and
    from the empty tray, and end in a step (a light that only sharpens the tray's grain raises
    the whole profile, with no end), else the tray is empty. Without a learnt empty tray (a
    rough calibration) the profile's own lower quintile stands in for it, and the count is
    reported as a guess. The pile's rims counted one by one (:func:`tray_slabs`) check the
    length: where they count a pile of another length the count is unsure, and where the
    length shows none their count is kept beside it (a dark pile in a dark tray shows its
    rims' light edges, and little else: render rnj1_08, 14 checkers read by their length as
    none, by their rims as 15).
    """
    e = tray_energy(layout, canon, white, scale)
    n = min(len(e), len(base))
    if n < 4:
        return TrayCount(0.0, 0.3)
    learnt = bool(np.any(base[:n] > 0))
    trim = 0.0  # rows of the board's frame at the outer end, left in the profile
    if learnt:
        # the tray's outer end: past the board's frame, where corners found a little outside
        # the surface put the frame's edge inside the tray's rectangle
        trim = _tray_start(cfg, base[:n], layout.tray_capacity_px())
        start = int(trim)
        e, base, n, trim = e[start:], base[start:], n - start, trim - start
        if n < 4:
            return TrayCount(0.0, 0.3)
    empty = base[:n] if learnt else np.full(n, np.percentile(e[:n], 20))
    r = np.log((e[:n] + 0.05) / (np.maximum(empty, 0.0) + 0.05))
    c = np.concatenate([[0.0], np.cumsum(r)])
    pitch = layout.tray_capacity_px()
    w = max(2, round(2 * pitch))
    m = np.arange(max(2, int(pitch)), min(n - 2, int((15.5 + cfg.tray_end_allowance) * pitch)))
    ext = 0
    if len(m):
        m1 = c[m] / m
        m2 = (c[n] - c[m]) / (n - m)
        lo, hi = np.maximum(m - w, 0), np.minimum(m + w, n)
        step = (c[m] - c[lo]) / (m - lo) - (c[hi] - c[m]) / (hi - m)
        ok = (m1 - m2 >= cfg.tray_contrast) & (m1 >= cfg.tray_level) & (step >= cfg.tray_contrast)
        score = np.where(ok, m * (n - m) * (m1 - m2) ** 2, 0.0)
        i = int(np.argmax(score))
        ext = int(m[i]) if score[i] > 0 else 0
    est = max((ext - trim) / pitch - cfg.tray_end_allowance, 0.0) if ext else 0.0
    est = min(est, 15.0)
    conf = 0.9 - min(abs(est - round(est)), 0.5)
    if not learnt:
        return TrayCount(est, min(conf, 0.3))
    slabs = tray_slabs(cfg, layout, canon, white, scale)
    if (slabs or est >= cfg.tray_slab_min) and abs(slabs - est) >= cfg.tray_slab_disagree:
        # the pile's length and its rims counted one by one disagree (or a pile's length
        # shows no rims at all): the tray is unsure, and the rule of 15 settles it from the
        # points; where the length shows no checker at all and the rims a pile, between the
        # two (the length of two piles that disagree is no worse than the rims' count: on
        # pibg.sim's trays a lone checker shows three rims)
        other = float(slabs) if slabs and round(est) == 0 else None
        return TrayCount(est, min(conf, cfg.tray_unsure), other)
    return TrayCount(est, conf)


# -- the whole board at once: each colour has 15 checkers -----------------------------------

_NEG = -1e9


@dataclass(frozen=True, slots=True)
class JointRead:
    """The most likely first-layer runs of all 24 points and both trays under the rules'
    constraint that each colour has 15 checkers (on the points' first layer, in a second layer
    on a full point, on the bar or borne off)."""

    run: Array      #: (24,) first-layer checkers per point
    colour: Array   #: (24,) WHITE / BLACK (meaningless where run is 0)
    off: dict[int, int]     #: colour -> checkers borne off
    hidden: dict[int, int]  #: colour -> checkers in a second layer
    options: Array  #: (24, 2K+1) max-marginal log-score of each option (0, W1..WK, B1..BK)
    tray_conf: dict[int, float]  #: colour -> how sure the tray count is (0-1)
    #: points (0-based; 24 and 25 the bar's sides) read otherwise by another reading as
    #: likely: the frame does not tell where a checker is hidden or one too many is seen
    ties: tuple[int, ...] = ()
    #: per row, the first-layer run from which it may hold checkers on top (see
    #: :func:`full_from`); empty: :func:`stacks_on` of the points' places for every row
    full_at: tuple[int, ...] = ()

    def stacks_from(self, p: int, k: int) -> int:
        """The first-layer run from which row ``p`` (K places a point) may hold more on top."""
        return self.full_at[p] if p < len(self.full_at) else stacks_on(k)

    def full(self, p: int, k: int) -> bool:
        """Whether row ``p`` (K places a point) shows a run that may hold more on top."""
        return bool(self.colour[p] != EMPTY and self.run[p] >= self.stacks_from(p, k))


def with_bar(cum: Array, reading: SlotReading, bar_cum: Array, bar_read: SlotReading
             ) -> tuple[Array, SlotReading]:
    """The points' run scores and readings with the bar's two sides appended as rows 24, 25
    (shorter runs padded as impossible), for :func:`joint_counts`."""
    k = cum.shape[1] - 1
    pad = max(k - (bar_cum.shape[1] - 1), 0)
    bc = np.pad(np.asarray(bar_cum, np.float64), ((0, 0), (0, pad)), constant_values=_NEG)

    def cat(a: Array, b: Array) -> Array:
        return np.concatenate([a, np.pad(b, ((0, 0), (0, pad)))[:, :k]])

    return (np.concatenate([np.asarray(cum, np.float64), bc[:, :k + 1]]),
            SlotReading(cat(reading.d_empty, bar_read.d_empty),
                        cat(reading.d_white, bar_read.d_white),
                        cat(reading.d_black, bar_read.d_black)))


def _option_scores(cum: Array, reading: SlotReading, place_clip: float | None = None) -> Array:
    """(24, 2K+1) log-score of each point's options: empty, White 1..K, Black 1..K.

    A run's colour: with ``place_clip`` each of its places must look that colour (White vs
    Black evidence per place, clipped to +-``place_clip``, summed): a point holds one colour
    only, so a run of White over a place plainly Black pays for it (an empty light point
    next to a lone Black checker is no second White one). Without it, the evidence summed
    over the run decides."""
    n_pts, k1 = cum.shape
    k = k1 - 1
    ev = 0.5 * (reading.d_black - reading.d_white)  # (24, K): White vs Black
    if place_clip is not None:
        e = np.clip(ev, -place_clip, place_clip)
        log_w = np.cumsum(-np.logaddexp(0.0, -e), 1)  # sum of log sigmoid
        log_b = np.cumsum(-np.logaddexp(0.0, e), 1)
    else:
        e = np.clip(np.cumsum(ev, 1), -30.0, 30.0)
        log_w = -np.logaddexp(0.0, -e)  # log sigmoid(e)
        log_b = -np.logaddexp(0.0, e)
    out = np.empty((n_pts, 2 * k + 1), np.float64)
    out[:, 0] = cum[:, 0]
    out[:, 1:k + 1] = cum[:, 1:] + log_w
    out[:, k + 1:] = cum[:, 1:] + log_b
    return out


def _tray_miss(tray: TrayCount, offs: Array) -> Array:
    """How far (checkers) each count in ``offs`` lies from what the tray shows: from its
    length's estimate or, nearer, from its rims' count."""
    near = np.abs(offs - tray.est)
    if tray.other is not None:
        near = np.minimum(near, np.abs(offs - tray.other))
    return np.asarray(near, np.float64)


def _tray_terms(cfg: VisionConfig, bar: int, tray: TrayCount, k_full: bool,
                empty: bool = False) -> tuple[Array, Array]:
    """For first-layer totals F = 0..15 of one colour: the best log-score of the tray and the
    hidden second layer (without a full point nothing can hide), and the tray count giving it
    (0 where the tray is held ``empty``). A tray read two ways (``tray.other``) scores each
    count by the nearer of the two."""
    sigma = cfg.tray_sigma / max(tray.conf, 0.2)
    f = np.arange(16)[:, None]
    offs = np.arange(16)[None, :]
    hidden = 15 - f - bar - offs
    near = _tray_miss(tray, offs)
    s = -0.5 * (near / sigma) ** 2 - cfg.hidden_cost * hidden
    ok = (hidden >= 0) & ((hidden == 0) | k_full) & ((offs == 0) | (not empty))
    s = np.where(ok, s, _NEG)
    arg = np.asarray(np.argmax(s, 1), np.int32)
    best = np.asarray(s[np.arange(16), arg], np.float64)
    return best, arg


_TRANSITIONS: dict[tuple[int, int], tuple[Array, Array]] = {}

#: A point with this many checkers in a row (or all its places, on a board with fewer) may hold
#: more in a second layer: a point holds five in a row on most boards, and on longer points
#: (a tournament board's six places) players stack the sixth as often as they line it up.
STACK_FROM = 5


def stacks_on(k: int) -> int:
    """The first-layer run from which a point of K places may hold checkers on top."""
    return min(k, STACK_FROM)


def full_from(cum: Array) -> tuple[int, ...]:
    """Per row of :func:`joint_counts`' ``cum``, the first-layer run from which it may hold
    checkers on top: :func:`stacks_on` of its places, or all of a shorter row's (a bar's side
    holds four in a row on most boards, and a fifth checker hit goes on top of them, as on a
    full point)."""
    k = cum.shape[1] - 1
    out = []
    for row in np.asarray(cum):
        places = int(np.flatnonzero(row > _NEG / 2).max(initial=0))
        out.append(min(stacks_on(k), max(places, 1)))
    return tuple(out)


def _transitions(k: int, full_at: int | None = None) -> tuple[Array, Array]:
    """State transitions of :func:`joint_counts` for K places per point, computed once; a run
    of ``full_at`` or more (default :func:`stacks_on` of K) makes a full point.

    A state is (White total, Black total, White has a full point, Black has one), flattened;
    index ``16*16*2*2`` is a sink of impossible states. Returns ``nxt`` (options, states): the
    state after each option, and ``prv`` (options, 2, states): the (up to two) states before.
    """
    at = stacks_on(k) if full_at is None else full_at
    if (k, at) in _TRANSITIONS:
        return _TRANSITIONS[(k, at)]
    shape = (16, 16, 2, 2)
    n_st = 16 * 16 * 2 * 2
    opts = [(0, 0)] + [(n, 0) for n in range(1, k + 1)] + [(0, n) for n in range(1, k + 1)]
    nxt = np.full((len(opts), n_st), n_st, np.intp)
    prv = np.full((len(opts), 2, n_st), n_st, np.intp)
    count = np.zeros((len(opts), n_st), np.intp)
    for o, (w, b) in enumerate(opts):
        for s in range(n_st):
            tw, tb, fw, fb = np.unravel_index(s, shape)
            if tw + w > 15 or tb + b > 15:
                continue
            t = int(np.ravel_multi_index((tw + w, tb + b, fw or int(w >= at),
                                          fb or int(b >= at)), shape))
            nxt[o, s] = t
            prv[o, count[o, t], t] = s
            count[o, t] += 1
    _TRANSITIONS[(k, at)] = (nxt, prv)
    return nxt, prv


def joint_counts(cfg: VisionConfig, cum: Array, reading: SlotReading, bar: dict[int, int],
                 tray: dict[int, tuple[float, float]] | dict[int, TrayCount]) -> JointRead:
    """Choose every point's run and colour, and both trays, together (max-sum dynamic
    programming over the two colours' first-layer totals and whether each has a full point).

    ``cum`` (24, K+1) run log-scores from :func:`counts_from_logits` (rows past 24: the bar's
    sides, as short points); ``bar`` colour -> count; ``tray`` colour -> (estimated count,
    confidence), or the :class:`TrayCount` of :func:`tray_count`. A reading that would need
    more than 15 checkers of a colour gives way where the evidence is weakest.

    A colour bears off only once all its checkers are home (docs/rules.md rule 4): a reading
    that has a colour with checkers borne off and others outside its home board (or on the
    bar) costs ``home_cost`` more, and the best reading with that colour's tray empty is
    taken when it scores as well. A checker the points' first layer does not show then stays
    on the board (in a full point's second layer) rather than going to a tray that barely
    shows it.
    """
    trays = {c: TrayCount(*t) for c, t in tray.items()}
    jr, score = _joint(cfg, cum, reading, bar, trays, ())
    for c in (WHITE, BLACK):
        if jr.off[c] > 0 and _outside_home(jr, c):
            alt, alt_score = _joint(cfg, cum, reading, bar, trays, (c,))
            if alt_score >= score - cfg.home_cost:
                jr, score = alt, alt_score
    return jr


def _outside_home(jr: JointRead, colour: int) -> bool:
    """Whether ``colour`` has a checker outside its home board (points 1-6 for White, 19-24
    for Black; rows past 24 are the bar)."""
    on = np.flatnonzero((jr.colour == colour) & (jr.run > 0))
    home = range(0, 6) if colour == WHITE else range(18, 24)
    return any(int(p) not in home for p in on)


def _joint(cfg: VisionConfig, cum: Array, reading: SlotReading, bar: dict[int, int],
           tray: dict[int, TrayCount], empty: tuple[int, ...]
           ) -> tuple[JointRead, float]:
    """:func:`joint_counts`' reading without the home rule, with the trays of the colours
    in ``empty`` held empty, and its log-score."""
    n_pts, k1 = cum.shape
    k = k1 - 1
    opts = _option_scores(cum, reading, cfg.colour_place_clip).astype(np.float32)
    n_opt = 2 * k + 1
    at = full_from(cum)
    tables = {a: _transitions(k, a) for a in set(at)}
    nxt_of = [tables[a][0] for a in at]  # each row's transitions (a bar's side is full
    prv_of = [tables[a][1] for a in at]  # at its own length)
    n_st = nxt_of[0].shape[1]
    # fwd[p]: best score of each state (totals and full flags) after points 0..p-1.
    fwd = np.full((n_pts + 1, n_st + 1), _NEG, np.float32)
    fwd[0, 0] = 0.0
    # Options far less likely than a point's best cannot win (empty always stays, so that
    # every reading can give way to the 15-checker rule): leave them out.
    keep = opts > opts.max(1, keepdims=True) - cfg.joint_prune
    keep[:, 0] = True
    live = [np.flatnonzero(row) for row in keep]
    for p in range(n_pts):
        # Every state's predecessors: (option, flag variant) -> state before, or the sink.
        o = live[p]
        cand = fwd[p][prv_of[p][o]] + opts[p, o][:, None, None]
        fwd[p + 1, :n_st] = cand.max((0, 1))
    terms = {c: [_tray_terms(cfg, bar[c], tray[c], full, c in empty)
                 for full in (False, True)] for c in (WHITE, BLACK)}
    term = np.full((16, 16, 2, 2), _NEG)
    for a in (0, 1):
        for b in (0, 1):
            term[:, :, a, b] = terms[WHITE][a][0][:, None] + terms[BLACK][b][0][None, :]
    # bwd[p]: best completion (points p.. and the trays) from each state.
    bwd = np.full((n_pts + 1, n_st + 1), _NEG, np.float32)
    bwd[n_pts, :n_st] = term.reshape(-1)
    mm = np.full((n_pts, n_opt), _NEG, np.float64)
    for p in range(n_pts - 1, -1, -1):
        o = live[p]
        after = bwd[p + 1][nxt_of[p][o]] + opts[p, o][:, None]  # (options, states)
        bwd[p, :n_st] = after.max(0)
        mm[p, o] = (after + fwd[p][None, :n_st]).max(1)
    best_o = np.argmax(mm, 1)
    final = fwd[n_pts, :n_st] + bwd[n_pts, :n_st]
    ties: tuple[int, ...] = ()
    if not _reaches(best_o, nxt_of, opts, bwd[n_pts, :n_st], float(final.max())):
        # Two readings tie (each place's evidence is clipped, so a checker dropped here or
        # there, or a run's colour swapped, can cost the same): each point's best option
        # then comes from either, and together they break the rule of 15 (render dev3_03
        # in light scaled to 1.3 read 23 White checkers). One best reading is taken whole,
        # and the points the readings differ on are named.
        whole = _traced(fwd, opts, live, prv_of, best_o, int(np.argmax(final)))
        ties = tuple(int(p) for p in np.flatnonzero(whole != best_o))
        best_o = whole
    run = np.where(best_o <= k, best_o, best_o - k).astype(np.int64)
    colour = np.where(best_o == 0, EMPTY, np.where(best_o <= k, WHITE, BLACK)).astype(np.int8)
    off, hidden, conf = {}, {}, {}
    for c in (WHITE, BLACK):
        f = int(run[colour == c].sum())
        full = bool(np.any((colour == c) & (run >= np.asarray(at))))
        if f + bar[c] > 15:  # nothing fits: keep what the tray shows
            off[c], hidden[c] = round(tray[c].est), 0
            conf[c] = 0.3
            continue
        off[c] = int(terms[c][int(full)][1][f])
        hidden[c] = 15 - f - bar[c] - off[c]
        near = float(_tray_miss(tray[c], np.array([off[c]]))[0])
        conf[c] = max(tray[c].conf, 0.95) if near < 0.75 else 0.5
    return JointRead(run, colour, off, hidden, mm, conf, ties, at), float(final.max())


def _reaches(choice: Array, nxt_of: list[Array], opts: Array, end: Array, best: float
             ) -> bool:
    """Whether taking ``choice`` (an option per point) in turn (each row's transitions
    ``nxt_of``), then the trays' ``end`` score of the state it leads to, scores ``best``: a
    reading the rule of 15 allows, and a best one."""
    state, score = 0, 0.0
    for p, o in enumerate(choice.tolist()):
        state = int(nxt_of[p][o, state])
        if state >= nxt_of[p].shape[1]:
            return False
        score += float(opts[p, o])
    score += float(end[state])
    return score >= best - 1e-3 * max(1.0, abs(best))


def _traced(fwd: Array, opts: Array, live: list[Array], prv_of: list[Array], prefer: Array,
            state: int) -> Array:
    """One best reading whole: from the best end ``state`` back through the forward scores
    ``fwd`` (each row's transitions ``prv_of``), at each point the option (``prefer``'s
    where it is one) that led there."""
    n_pts = len(live)
    n_st = prv_of[0].shape[2]
    out = np.zeros(n_pts, np.int64)
    for p in range(n_pts - 1, -1, -1):
        o_live = live[p]
        order = sorted(o_live.tolist(), key=lambda o: o != int(prefer[p]))
        for o in order:
            before = prv_of[p][o, :, state]
            ok = before[before < n_st]
            hit = ok[fwd[p][ok] + opts[p, o] == fwd[p + 1, state]]
            if len(hit):
                out[p], state = o, int(hit[0])
                break
        else:  # unreachable: fwd[p + 1, state] came from one of these
            raise AssertionError(f"no option leads to state {state} at point {p}")
    return out


#: the probability a full point holds one more checker in a second layer than the tray's
#: count leaves over
HIDDEN_DOUBT = 0.07
#: ... of one, two or three more (each as much less likely again)
_HIDDEN_MORE = tuple(HIDDEN_DOUBT ** j for j in range(1, 4))


def _share_marginal(hidden: int, points: int) -> dict[int, float]:
    """P(one point holds e of ``hidden`` checkers) when every way of sharing them among
    ``points`` points is as likely (stars and bars)."""
    if points == 1:
        return {hidden: 1.0}
    ways = {e: math.comb(hidden - e + points - 2, points - 2) for e in range(hidden + 1)}
    total = sum(ways.values())
    return {e: w / total for e, w in ways.items() if w}


#: How much weaker (share of the circle) the rims of a full point's first two places must be
#: than every other full point's of its colour for the checkers hidden in a second layer to
#: be put there (a stack seen from a low, wide lens shows its rims off the places).
STACK_CLEAR = 0.25


#: Share of the hidden checkers' split taken as every split being as likely, whatever the
#: network says of the stacks (its word is strong, not final).
STACK_DOUBT = 0.15


def _stack_counts(probs: Array, hidden: int) -> Array:
    """P(a point's first-layer places carry m checkers on top), m = 0..``hidden``, from each
    place's probability of carrying one (``probs``; independent places, a Poisson binomial);
    more than one a place (a third layer) is rare."""
    dist = np.zeros(hidden + 1)
    dist[0] = 1.0
    for q in np.clip(np.asarray(probs, np.float64), 0.01, 0.99):
        dist[1:] = dist[1:] * (1.0 - q) + dist[:-1] * q
        dist[0] *= 1.0 - q
    r = len(probs)
    for m in range(r + 1, hidden + 1):
        dist[m] = dist[r] * 0.05 ** (m - r)
    return dist


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way of sharing ``total`` among ``parts`` (ordered)."""
    if parts == 1:
        return [(total,)]
    return [(e, *rest) for e in range(total + 1) for rest in _splits(total - e, parts - 1)]


def _stacked_shares(full: list[int], hidden: int, stacked: Array, run: Array
                    ) -> dict[int, dict[int, float]]:
    """P(each full point holds e of the ``hidden`` checkers) from the network's stacked
    probabilities (``stacked`` (points, K)) over each point's first-layer run, mixed with
    every split being as likely (``STACK_DOUBT``); the likeliest split gets a hair more, so
    that the likeliest counts add up to 15."""
    like = {p: _stack_counts(stacked[p, :int(run[p])], hidden) for p in full}
    splits = _splits(hidden, len(full))
    w = np.array([math.prod(float(like[p][e]) for p, e in zip(full, sp, strict=True))
                  for sp in splits])
    w = (1.0 - STACK_DOUBT) * w / max(float(w.sum()), 1e-300) + STACK_DOUBT / len(splits)
    best = splits[int(np.argmax(w))]
    out: dict[int, dict[int, float]] = {}
    for i, p in enumerate(full):
        m: dict[int, float] = {}
        for sp, wi in zip(splits, w, strict=True):
            m[sp[i]] = m.get(sp[i], 0.0) + float(wi)
        m[best[i]] *= 1.1
        total = sum(m.values())
        out[p] = {e: v / total for e, v in m.items()}
    return out


#: How likely the board with the tray's checkers borne off is kept (see
#: :func:`tray_alternative`): the tray's own confidence, within these bounds.
TRAY_ALTERNATIVE = (0.05, 0.2)


def tray_alternative(jr: JointRead, tray: dict[int, TrayCount]
                     ) -> tuple[JointRead, float] | None:
    """The reading with the checkers the points' first layer does not show borne off as far
    as the tray shows them (``tray``: colour -> its own count and confidence, from
    :func:`tray_count`), where :func:`joint_counts` put them in a second layer instead, and
    how likely that reading is kept (the tray's confidence, within ``TRAY_ALTERNATIVE``).

    :func:`joint_counts` takes a tray as empty rather than a colour with checkers borne off
    and others outside its home board, which the rules allow only after one of them was hit
    while bearing off. The referee knows how many are off: kept possible, the board the game
    has reached is found on it. None where the reading put every checker the tray shows
    there, or hid none."""
    off, hidden = dict(jr.off), dict(jr.hidden)
    sure = 0.0
    for c in (WHITE, BLACK):
        more = min(int(hidden[c]), round(tray[c].est) - int(off[c]))
        if more > 0:
            off[c] += more
            hidden[c] -= more
            sure = max(sure, tray[c].conf)
    if sure == 0.0:
        return None
    lo, hi = TRAY_ALTERNATIVE
    return replace(jr, off=off, hidden=hidden), min(max(sure, lo), hi)


def mixed(a: RegionRead, b: RegionRead, w: float) -> RegionRead:
    """The reading ``a`` with ``b`` mixed in at weight ``w`` (each count's probability
    ``(1 - w) * a + w * b``; counts neither lists stay at the floor); ``a`` itself where
    the mixture's likeliest count would not be ``a``'s (an alternative is kept possible,
    never read instead)."""
    probs: dict[int, float] = {}
    for read, weight in ((a, 1.0 - w), (b, w)):
        for n, p in read.likelihoods:
            probs[n] = probs.get(n, 0.0) + weight * p
    out = RegionRead.from_mapping(probs, min(a.floor, b.floor))
    return out if out.count == a.count else a


def joint_point_reads(jr: JointRead, k: int, rims: Array | None = None,
                      stacked: Array | None = None) -> tuple[RegionRead, ...]:
    """A RegionRead per point from the max-marginals. Checkers hidden in a second layer could
    be on any full point of their colour: each full point gets the number it holds under
    every way of sharing them out being as likely (the referee's legal plays settle which),
    with a little doubt about the total.

    ``rims`` (per point, the rim evidence of its first two places) may tell: a checker
    stacked on another stands higher, and from a low camera with a wide lens its rim is no
    longer where a lone checker's would be. Full points whose rims are clearly weaker than
    every other's of their colour (by ``STACK_CLEAR``) share the hidden checkers alone.

    ``stacked`` (points, K: each place's probability, from the checker-place network, that
    its checker carries another) tells better where it is given: the split of the hidden
    checkers among the full points is weighed by it (:func:`_stacked_shares`)."""
    extra: dict[int, dict[int, float]] = {}
    for c in (WHITE, BLACK):
        full = [p for p in range(len(jr.run)) if jr.colour[p] == c and jr.full(p, k)]
        h = int(jr.hidden[c])
        if stacked is not None and h > 0 and len(full) >= 2:
            extra.update(_stacked_shares(full, h, stacked, jr.run))
            continue
        if rims is not None and len(full) >= 2:
            weak = [p for p in full if all(float(rims[p]) + STACK_CLEAR <= float(rims[q])
                                           for q in full if q != p)]
            full = weak or full
        if h > 0 and full:
            share, rest = divmod(h, len(full))
            for i, p in enumerate(full):
                # a hair's preference for an even split, so that the likeliest counts
                # add up to 15; not enough to choose between two legal plays
                m = _share_marginal(h, len(full))
                even = share + (1 if i < rest else 0)
                m[even] *= 1.1
                total = sum(m.values())
                extra[p] = {e: v / total for e, v in m.items()}
    reads = []
    for p in range(len(jr.run)):
        sc = jr.options[p] - jr.options[p].max()
        pr = np.exp(np.maximum(sc, -30.0))
        pr /= pr.sum()
        dist: dict[int, float] = {0: float(pr[0])}
        for n in range(1, k + 1):
            dist[n] = dist.get(n, 0.0) + float(pr[n])
            dist[-n] = dist.get(-n, 0.0) + float(pr[k + n])
        if p not in extra and jr.full(p, k):
            # a full point may hide one more checker in a second layer (the tray then
            # holds one fewer than it seems): a little of its probability goes there
            # (two or three: the tray's pile, measured by its length, may read that many
            # too long; each more as much less likely again)
            sign = 1 if jr.colour[p] == WHITE else -1
            base = sign * int(jr.run[p])
            keep = dist.pop(base, 0.0)
            dist[base] = keep * (1.0 - sum(_HIDDEN_MORE))
            for j, more in enumerate(_HIDDEN_MORE, 1):
                dist[base + j * sign] = dist.get(base + j * sign, 0.0) + keep * more
        if p in extra:
            sign = 1 if jr.colour[p] == WHITE else -1
            base = sign * int(jr.run[p])
            # every run that makes the point full holds the hidden checkers on top: a run
            # read one shorter leaves one more hidden, the point's count the same (a
            # six-place point of 13, render rpc1_03: its first layer as likely 5 as 6, and
            # the 5 read as five checkers in all)
            keep = sum(dist.pop(sign * n, 0.0) for n in range(jr.stacks_from(p, k), k + 1))
            for e, pe in extra[p].items():
                for de, w in ((0, 0.8), (-1, 0.1), (1, 0.1)):
                    if e + de >= 0:
                        key = base + sign * (e + de)
                        dist[key] = dist.get(key, 0.0) + keep * pe * w
        reads.append(RegionRead.from_mapping({n: v for n, v in dist.items() if v > 1e-5}))
    return tuple(reads)
