"""Reading a die's top face whole: the six pip layouts matched as pictures.

The pip readers of :mod:`pibg.vision.dice_read` first find the pips, then fit layouts to
them. On a die 20 pixels across, a pip is three or four pixels: glare on the face, a side's
pips seen beside it or a point's stripe behind make spots come and go, and a face whose pips
were missed is not read at all. This reader skips finding pips. Each layout is drawn as
small Gaussian spots at every angle (``match_angle_step``) and a few sizes, and compared
with the face by normalised cross-correlation over a disc inside the top face. So where the
layout puts no pip counts as much as where it puts one: a three's bare corners tell it from
a five.

Two pictures of the face are matched, and their correlations averaged:
- its lightness, signed so that pips are bright (pips are the minority within the face);
- the same, band-passed to pip size, which removes glare's broad gradients.

A layout matched to something that is no die, such as a point's tip or a checker's edge,
lines its spots up along a ridge. So with the best-matching layout comes how round its
least round spot is: the weaker curvature of the brightness there over the stronger. A
caller that has nothing else saying "die" asks for round spots (see ``rescue_spot`` in
:mod:`pibg.vision.dice_find`).

Pure numpy and OpenCV: about 1.6 ms per face on a desktop, so find_dice matches whole only
the candidates its pip readers gave up on.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from pibg.vision.dice_config import DEFAULT_CONFIG, LAYOUTS, DiceConfig, FloatArray, Image

IntArray = npt.NDArray[np.integer[Any]]

#: A face whose brightness varies less than this (variance, lightness units squared) over
#: the disc is plain: it matches no layout.
_PLAIN = 1.0


@dataclass(frozen=True, slots=True)
class FaceMatch:
    """The best layout's match to a face: ``score`` its correlation (-1 to 1), ``margin``
    its lead over every other value's best match, ``spot`` the roundness of its least round
    spot (0 for a ridge, 1 for a round spot); ``centre`` (x, y) in the patch's pixels,
    ``angle`` in degrees, ``edge`` the matched die's edge in the patch's pixels."""

    value: int
    score: float
    margin: float
    spot: float
    centre: tuple[float, float]
    angle: float
    edge: float


@dataclass(frozen=True, slots=True)
class _Bank:
    """Every layout at every angle and size, for one working edge: indices of each spot
    at each offset into the (zero-padded) flattened picture, and each template's statistics
    over its disc."""

    index: tuple[IntArray, ...]  # per size: (U, O) flat indices of each distinct spot row
    row: tuple[IntArray, ...]  # per size: (K, 6) each template spot's row of ``index``
    mean: tuple[FloatArray, ...]  # per size: (K,) template mean over the disc
    norm: tuple[FloatArray, ...]  # per size: (K,) template's zero-mean norm over the disc
    disc: tuple[npt.NDArray[np.float32], ...]  # per size: the disc, normalised to sum 1
    area: tuple[float, ...]
    spots: tuple[FloatArray, ...]  # per size: (K, 6, 2) spot offsets in pixels
    value: IntArray  # (K,) each template's value
    angle: FloatArray  # (K,) its angle, degrees
    count: IntArray  # (K,) its number of spots
    offsets: IntArray  # (O, 2) dx, dy from the patch centre


def _layouts(step: float) -> tuple[list[int], list[float], list[FloatArray]]:
    """Each value at each angle its symmetry leaves distinct (a two, three or six repeats
    after 180 degrees, the others after 90)."""
    values, angles, spots = [], [], []
    for v in range(1, 7):
        lay = np.asarray(LAYOUTS[v], np.float64)
        for a in np.arange(0.0, 180.0 if v in (2, 3, 6) else 90.0, step):
            c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
            values.append(v)
            angles.append(float(a))
            spots.append(lay @ np.array([[c, s], [-s, c]]))
    return values, angles, spots


@functools.lru_cache(maxsize=4)
def _bank(size: int, edge: float, cfg: DiceConfig) -> _Bank:
    values, angles, layouts = _layouts(cfg.match_angle_step)
    k = len(values)
    reach = cfg.match_search * edge
    r = math.ceil(reach)
    oy, ox = np.mgrid[-r:r + 1, -r:r + 1]
    keep = ox**2 + oy**2 <= reach * reach
    offsets = np.stack([ox[keep], oy[keep]], -1).astype(np.intp)
    centre = size // 2
    sigma = cfg.match_pip_sigma * edge
    index, row, mean, norm, discs, areas, spots_out = [], [], [], [], [], [], []
    count = np.array([len(lay) for lay in layouts], np.intp)
    for scale in cfg.match_scales:
        e = edge * scale
        spots = np.zeros((k, 6, 2))
        for i, lay in enumerate(layouts):
            spots[i, :len(lay)] = lay * cfg.match_spread * e
        valid = np.arange(6)[None, :] < count[:, None]
        px = np.rint(spots[..., 0]).astype(np.intp)[:, :, None] + offsets[None, None, :, 0]
        py = np.rint(spots[..., 1]).astype(np.intp)[:, :, None] + offsets[None, None, :, 1]
        px += centre
        py += centre
        inside = (px >= 0) & (px < size) & (py >= 0) & (py < size) & valid[:, :, None]
        flat = np.where(inside, py * size + px, size * size).astype(np.int32)  # (K, 6, O)
        # templates share spots (a five's corners are a four's, padding is the zero
        # element): each distinct row of indices is gathered once
        rows, inverse = np.unique(flat.reshape(k * 6, -1), axis=0, return_inverse=True)
        index.append(rows)
        row.append(inverse.reshape(k, 6).astype(np.intp))
        rd = cfg.match_disc * e
        rr = math.ceil(rd)
        dy, dx = np.mgrid[-rr:rr + 1, -rr:rr + 1]
        disc = (dx**2 + dy**2 <= rd * rd)
        ddx, ddy = dx[disc].astype(np.float64), dy[disc].astype(np.float64)
        d2 = ((ddx[None, None] - spots[..., 0:1]) ** 2 + (ddy[None, None] - spots[..., 1:2]) ** 2)
        t = (np.exp(-d2 / (2.0 * sigma * sigma)) * valid[:, :, None]).sum(1)  # (K, disc px)
        m = t.mean(1)
        mean.append(m)
        norm.append(np.sqrt(np.maximum(((t - m[:, None]) ** 2).sum(1), 1e-12)))
        area = float(disc.sum())
        discs.append((disc / area).astype(np.float32))
        areas.append(area)
        spots_out.append(spots)
    return _Bank(tuple(index), tuple(row), tuple(mean), tuple(norm), tuple(discs), tuple(areas),
                 tuple(spots_out), np.array(values, np.intp), np.array(angles), count,
                 offsets)


def _signed_lightness(patch: Image, edge: float) -> npt.NDArray[np.float32]:
    """Lightness, negated when the face is lighter than its pips (pips come out bright)."""
    if patch.ndim == 2:
        grey = patch.astype(np.float32)
    else:
        grey = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    h = grey.shape[0]
    c = (h - 1) / 2.0
    yy, xx = np.mgrid[0:h, 0:h]
    near = grey[(xx - c) ** 2 + (yy - c) ** 2 < (0.35 * edge) ** 2]
    sign = 1.0 if float(near.mean()) >= float(np.median(near)) else -1.0
    return np.asarray(sign * grey, np.float32)


def _roundness(light: npt.NDArray[np.float32], edge: float, points: FloatArray) -> float:
    """The least, over ``points``, of the weaker curvature of the (bright-spot) brightness
    over the stronger: about 1 on a round spot, 0 on a ridge or a plain face."""
    g = cv2.GaussianBlur(light, (0, 0), 0.08 * edge)
    lxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    lyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    lxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    h = g.shape[0]
    worst = 1.0
    for x, y in points:
        xi, yi = round(x), round(y)
        if not (0 <= xi < h and 0 <= yi < h):
            return 0.0
        a, b, d = float(lxx[yi, xi]), float(lyy[yi, xi]), float(lxy[yi, xi])
        half, root = (a + b) / 2.0, math.sqrt(max(((a - b) / 2.0) ** 2 + d * d, 0.0))
        strong, weak = half - root, half + root  # a bright spot curves down both ways
        worst = min(worst, max(0.0, -weak) / -strong if strong < 0.0 else 0.0)
    return worst


def _fit_canvas(img: npt.NDArray[np.float32], size: int) -> npt.NDArray[np.float32]:
    """``img`` (square, odd) cut or padded (its edge repeated) about its centre to
    ``size``."""
    d = (size - img.shape[0]) // 2
    if d > 0:
        return np.asarray(cv2.copyMakeBorder(img, d, d, d, d, cv2.BORDER_REPLICATE),
                          np.float32)
    return img[-d:img.shape[0] + d, -d:img.shape[1] + d] if d < 0 else img


def match_face(patch: Image, edge: float, config: DiceConfig = DEFAULT_CONFIG
               ) -> FaceMatch:
    """Match the six layouts to the die whose top face is centred (within
    ``match_search`` of its edge) in a square BGR or grey ``patch``; ``edge`` is the top
    face's expected edge in the patch's pixels.

    >>> from pibg.vision.dice_read import draw_die
    >>> m = match_face(draw_die(3, size=24, angle=30.0, margin=0.5), 24.0)
    >>> (m.value, m.score > 0.8)
    (3, True)
    """
    if patch.ndim not in (2, 3) or min(patch.shape[:2]) < 8 or edge <= 2.0:
        raise ValueError(f"match_face needs a square patch and an edge of a few pixels, "
                         f"got {patch.shape} and {edge!r}")
    cfg = config
    n = min(patch.shape[:2])
    # only the middle counts (the face lies within the search of the centre): a patch many
    # edges across is cut down before it is rescaled
    cut = (n - min(n, math.ceil(3.0 * edge))) // 2
    if cut:
        n -= 2 * cut
        patch = patch[cut:cut + n, cut:cut + n]
    size = round(n * cfg.match_edge_px / edge) | 1  # odd: a pixel at the very centre
    k = size / n
    work = cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA if k < 1
                      else cv2.INTER_LINEAR)
    e = cfg.match_edge_px
    light = _signed_lightness(work, e)
    lo, hi = cfg.match_band
    band = cv2.GaussianBlur(light, (0, 0), lo * e) - cv2.GaussianBlur(light, (0, 0), hi * e)
    # one canvas, twice the edge, whatever the patch's size: one bank of templates serves
    # every call (read_die tries several edges)
    canvas = 2 * round(e) + 1
    shift = canvas // 2 - size // 2
    light, band = (_fit_canvas(img, canvas) for img in (light, band))
    bank = _bank(canvas, e, cfg)
    centre = canvas // 2
    sigma = cfg.match_pip_sigma * e
    amp = 2.0 * math.pi * sigma * sigma  # a unit-peak Gaussian's sum
    here = (centre + bank.offsets[:, 1]) * canvas + centre + bank.offsets[:, 0]
    # per picture: itself, its square, and its correlation with one spot (a Gaussian
    # blur), flattened with a zero at the end for spots off the canvas
    pictures = [(img, img * img, np.append(cv2.GaussianBlur(img, (0, 0), sigma).ravel(),
                                           np.float32(0.0))) for img in (light, band)]
    best: list[tuple[FloatArray, IntArray]] = []
    for j in range(len(cfg.match_scales)):
        total = np.zeros((len(bank.value), len(bank.offsets)), np.float64)  # (K, O)
        for img, img2, spots in pictures:
            mu = cv2.filter2D(img, -1, bank.disc[j], borderType=cv2.BORDER_REPLICATE).ravel()
            sq = cv2.filter2D(img2, -1, bank.disc[j], borderType=cv2.BORDER_REPLICATE)
            var = sq.ravel()[here] - mu[here] ** 2
            plain = var < _PLAIN  # nothing on the face to match (and no ratio to take)
            s = spots[bank.index[j]][bank.row[j]].sum(1)  # (K, O): each spot row, summed
            num = amp * s - bank.area[j] * bank.mean[j][:, None] * mu[here][None, :]
            ncc = num / (bank.norm[j][:, None]
                         * np.sqrt(bank.area[j] * np.maximum(var, _PLAIN))[None, :])
            total += np.where(plain[None, :], 0.0, ncc) if plain.any() else ncc
        total /= 2.0
        best.append((total.max(1), total.argmax(1)))
    scores = np.stack([b[0] for b in best])  # (S, K)
    values = bank.value
    by_value: dict[int, tuple[float, int, int]] = {}
    for v in range(1, 7):
        cols = np.nonzero(values == v)[0]
        sub = scores[:, cols]
        row, col = np.unravel_index(int(np.argmax(sub)), sub.shape)
        by_value[v] = (float(sub[row, col]), int(row), int(cols[col]))
    value = max(by_value, key=lambda v: by_value[v][0])
    score, j, i = by_value[value]
    off = bank.offsets[best[j][1][i]]
    cx, cy = centre + float(off[0]), centre + float(off[1])
    n_spots = int(bank.count[i])
    spot = _roundness(light, e, bank.spots[j][i, :n_spots] + np.array([cx, cy]))
    margin = score - max(by_value[u][0] for u in by_value if u != value)
    wx, wy = cx - shift, cy - shift  # in the rescaled patch
    return FaceMatch(value, score, margin, spot,
                     ((wx + 0.5) / k - 0.5 + cut, (wy + 0.5) / k - 0.5 + cut),
                     float(bank.angle[i]), e * cfg.match_scales[j] / k)


__all__ = ["FaceMatch", "match_face"]
