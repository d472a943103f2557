"""Finding dice on the playing surface (see :mod:`pibg.vision.dice`)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import TypeAlias

import cv2
import numpy as np
import numpy.typing as npt

from pibg.observation import DieRead
from pibg.vision import dice_spot
from pibg.vision.dice_config import (
    DEFAULT_CONFIG,
    LAYOUTS,
    DiceConfig,
    FloatArray,
    Image,
    Mask,
    _Fit,
)
from pibg.vision.dice_face import FaceShape, top_face
from pibg.vision.dice_match import match_face
from pibg.vision.dice_net import NO_DIE, face_probabilities
from pibg.vision.dice_read import (  # noqa: F401 (draw_die: doctest)
    _all_fits,
    _blobs,
    _decide,
    _distance_map,
    _prepare,
    draw_die,
    stretch_axis,
)

# --- finding dice -------------------------------------------------------------------------------


#: ``crop(x, y, half)``: the view's square ``[x - half, x + half]^2`` as an image (from the
#: view itself or from a sharper source such as the camera frame), and its pixels per view
#: pixel.
CropFn: TypeAlias = Callable[[float, float, float], tuple[Image, float]]
#: ``spotted()``: the places ``(x, y, likelihood)`` where the dice-finding network finds a
#: flat die, likeliest first (found when first asked for).
Spotted: TypeAlias = Callable[[], list[tuple[float, float, float]]]


def view_crop(image: Image, work_px: int = DEFAULT_CONFIG.work_px) -> CropFn:
    """A :data:`CropFn` that cuts squares out of ``image`` itself (edges replicated)."""

    def crop(x: float, y: float, half: float) -> tuple[Image, float]:
        k = work_px / (2.0 * half)
        m = np.array([[k, 0.0, -k * (x - half)], [0.0, k, -k * (y - half)]])
        src = image
        if k < 0.7:  # shrinking: smooth first, as INTER_AREA would
            src = cv2.GaussianBlur(image, (0, 0), 0.45 / k)
        out = cv2.warpAffine(src, m, (work_px, work_px), flags=cv2.INTER_CUBIC,
                             borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out), k

    return crop


_Read = tuple[int, float, _Fit | None, list[_Fit], float, tuple[float, float]]


def _read_crop(crop: CropFn, x: float, y: float, half: float, cfg: DiceConfig) -> _Read:
    """Read the die in a square crop centred on (x, y); fit geometry back in view pixels.

    A candidate's centre is the centroid of the spots around it, which a glare spot on the
    die's bevel pulls aside: when nothing reads there, the crop is read again centred on the
    roundest pip-like spot near its centre.
    """
    blobs: list[tuple[float, float, float, float]] = []
    got = _read_crop_once(crop, x, y, half, cfg, blobs)
    if got[0] != 0:
        return got
    scale, origin = got[4], got[5]
    die_work = half / cfg.crop_half * scale
    c = (half * scale, half * scale)
    near = [b for b in blobs if b[3] >= cfg.retry_roundness
            and cfg.retry_min * die_work <= math.hypot(b[0] - c[0], b[1] - c[1])
            <= cfg.spot_near * die_work]
    if not near:
        return got
    bx, by, _, _ = max(near, key=lambda b: b[3])
    return _read_crop_once(crop, origin[0] + bx / scale, origin[1] + by / scale, half, cfg, [])


def _read_crop_once(
    crop: CropFn, x: float, y: float, half: float, cfg: DiceConfig,
    blobs: list[tuple[float, float, float, float]],
) -> _Read:
    patch, k = crop(x, y, half)
    origin = (x - half, y - half)
    fits, scale, dist = _all_fits(patch, cfg, die_frac=1.0 / (2.0 * cfg.crop_half), known=True,
                                  blobs_out=blobs)
    scale *= k
    value, conf, best = _decide(fits, cfg, known=True)
    die_work = half / cfg.crop_half * scale
    grid_only = not any(f.kind == "pips" and f.value == value and f.cost <= cfg.grid_alone_cost
                        for f in fits)
    if best is not None and grid_only and (value < cfg.pips_enough
                                           or best.cost > cfg.grid_only_fit):
        # pips read by the grid alone: one to three must be found as such too, more must fit
        # the grid closely (a grid of nine cells fits a leaning die's half-seen face, the
        # board's marks or the cube's digits)
        return 0, 0.0, None, fits, scale, origin
    if (best is not None and (value < cfg.pips_enough or grid_only)
            and _clutter(dist, best, die_work) > cfg.clutter_max):
        # a face with few pips, or many read by the grid alone, must be plain between them
        # (the doubling cube's digits are not)
        return 0, 0.0, None, fits, scale, origin
    if best is not None and value >= 1:
        extra = _extra_pips(blobs, best, die_work, cfg)
        if extra:
            best = dataclasses.replace(best, extra_pips=len(extra), extra_at=tuple(extra))
    return value, conf, best, fits, scale, origin


def _top_face(crop: CropFn, x: float, y: float, half: float, best: _Fit, cfg: DiceConfig
              ) -> FaceShape:
    """The read face's outline (see :mod:`pibg.vision.dice_face`) in the crop read last."""
    patch, k = crop(x, y, half)
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    scale = cfg.work_px / max(patch.shape[:2])  # _all_fits' rescaling of the crop
    edge = half / cfg.crop_half * k
    centre = (best.centre[0] / scale, best.centre[1] / scale)
    pips = tuple((px / scale, py / scale) for px, py in best.pips)
    pip_r = math.sqrt(max(best.pip_area, 1.0) / math.pi) / scale
    return top_face(patch, centre, best.angle, edge, pips, pip_r,
                    _face_angles(best.value, best.angle, cfg))


def _face_angles(value: int, angle: float, cfg: DiceConfig) -> tuple[float, ...]:
    """The orientations to measure a face's outline at: round the pips' own, or every one
    for a lone pip (a one gives none)."""
    if value == 1:
        return tuple(float(a) for a in np.arange(0.0, 90.0, cfg.face_angle_step))
    return tuple(float(a) for a in angle + np.arange(-3, 4) * cfg.face_angle_step / 2.0)


def _square_outline(shape: FaceShape, edge: float, cfg: DiceConfig) -> bool:
    """Whether a top face's outline is a flat die's: square, about ``edge`` across."""
    return (shape.aspect <= cfg.top_face_aspect_max
            and cfg.outline_half_min <= min(shape.half_u, shape.half_v) / edge
            and max(shape.half_u, shape.half_v) / edge <= cfg.outline_half_max)


def _crop_edge(crop: CropFn, x: float, y: float, half: float, cfg: DiceConfig) -> float:
    """The die's expected edge in the pixels of the crop ``_top_face`` measures."""
    _, k = crop(x, y, half)
    return half / cfg.crop_half * k


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


def _extra_pips(blobs: list[tuple[float, float, float, float]], fit: _Fit, die_work: float,
                cfg: DiceConfig) -> list[tuple[float, float, float]]:
    """Pips of the winning size seen beside the read face (where they lie, how round): a
    second face shows (cocked die).

    A flat die seen from above shows its sides at a grazing angle at most, where pips are
    thin slivers; a leaning die shows a second face squarely enough for round pips. Far
    from the camera a flat die's near side shows round pips too (see ``_second_face``).
    """
    n: list[tuple[float, float, float]] = []
    cx, cy = fit.centre
    for x, y, area, roundness in blobs:
        if roundness < cfg.extra_roundness:
            continue  # a sliver: a side's pip seen at a grazing angle
        d = math.hypot(x - cx, y - cy) / die_work
        if not cfg.extra_dist_min <= d <= cfg.extra_dist_max:
            continue
        if min(math.hypot(x - px, y - py) for px, py in fit.pips) < 0.25 * die_work:
            continue
        if 1.0 / cfg.extra_area_ratio <= area / max(fit.pip_area, 1.0) <= cfg.extra_area_ratio:
            n.append((x, y, roundness))
    return n


def _second_face(spots: list[tuple[float, float, float]], x: float, y: float,
                 nadir: tuple[float, float] | None, cfg: DiceConfig) -> int:
    """How many pips beside a face at (x, y) may be a second face's: those on the side facing
    the point below the camera, foreshortened (seen aslant: no rounder than
    ``side_roundness``), are the flat die's own side, seen from there (in the top-down view a
    die's top face leans away from that point, and the side facing it shows between the top
    face and the die's foot). Round pips there are another face's: a larger die's, say."""
    if nadir is None:
        return len(spots)
    ix, iy = nadir[0] - x, nadir[1] - y
    r = math.hypot(ix, iy)
    if r < 1e-6:
        return len(spots)
    n = 0
    for sx, sy, roundness in spots:
        dx, dy = sx - x, sy - y
        cos = (dx * ix + dy * iy) / max(math.hypot(dx, dy) * r, 1e-9)
        n += cos < cfg.side_cos or roundness > cfg.side_roundness
    return n


def _side_towards(spots: list[tuple[float, float, float]], x: float, y: float,
                  room: Callable[[float, float], float], size: float, cfg: DiceConfig) -> bool:
    """Whether a pip beside a face at (x, y) lies towards what the die may lean on (a
    checker, the bar or the frame, within ``lean_reach`` edges): the face the die turns to
    what props it up, seen beside its top face. A flat die's own side shows towards the
    point below the camera instead; beside a checker that is away from it."""
    here = room(x, y)
    if here >= cfg.lean_reach * size:
        return False
    return any(here - room(sx, sy) >= cfg.lean_side_cos * math.hypot(sx - x, sy - y)
               for sx, sy, _ in spots)


def _shortened_towards(value: int, fits: list[_Fit], scale: float, die_px: float, x: float,
                       y: float, room: Callable[[float, float], float], cfg: DiceConfig) -> bool:
    """Whether the face of a die of one to three pips at (x, y), within ``lean_reach`` edges
    of what it may lean on, is shortened towards that and only that way (``lean_short``,
    ``lean_across``): a lean tilts the face away from what props it up, so it is seen
    foreshortened along the way to it. The way is where the room round the die falls
    fastest."""
    if value >= cfg.pips_enough or room(x, y) >= cfg.lean_reach * die_px:
        return False
    return _shortened_along(fits, scale, die_px, _way_out(x, y, room), cfg)


def _way_out(x: float, y: float, room: Callable[[float, float], float]) -> tuple[float, float]:
    """The way from (x, y) in which the room round it falls fastest: towards what is
    nearest (not a unit vector; (0, 0) in the open)."""
    return room(x - 2.0, y) - room(x + 2.0, y), room(x, y - 2.0) - room(x, y + 2.0)


def _shortened_along(fits: list[_Fit], scale: float, die_px: float, way: tuple[float, float],
                     cfg: DiceConfig) -> bool:
    """Whether the faces seen at the levels are shortened along ``way`` and only along it
    (see ``_shortened_towards``)."""
    ratios, across = _face_axes(fits, scale, die_px, way, cfg)
    return (bool(ratios) and float(np.median(ratios)) >= cfg.lean_short
            and float(np.median(across)) <= cfg.lean_across)


def _face_axes(fits: list[_Fit], scale: float, die_px: float, way: tuple[float, float],
               cfg: DiceConfig) -> tuple[list[float], list[float]]:
    """The side ratio of each face seen at the levels that is one top face, and how far its
    long side lies along ``way`` (|cosine|; none where ``way`` is (0, 0))."""
    gx, gy = way
    g = math.hypot(gx, gy)
    if g <= 0.0:
        return [], []
    ratios, across = [], []
    for f in fits:
        if f.face is None or f.face[2] <= 0.0:
            continue  # cut by the crop
        long, short, turn = f.face[0] / scale / die_px, f.face[1] / scale / die_px, f.face[3]
        if _not_one_face(short, cfg):
            continue
        ratios.append(long / max(short, 1e-6))
        across.append(abs(math.cos(math.radians(turn)) * gx + math.sin(math.radians(turn)) * gy)
                      / g)
    return ratios, across


def _face_sizes(fits: list[_Fit], scale: float, die_px: float) -> list[tuple[float, float, float]]:
    """The whole (uncut) faces seen at the levels: (long, short) in ``die_px``, and fill."""
    out = []
    for f in fits:
        if f.face is not None and f.face[2] > 0.0:
            out.append((f.face[0] / scale / die_px, f.face[1] / scale / die_px, f.face[2]))
    return out


def _is_die(value: int, fits: list[_Fit], scale: float, die_px: float, cfg: DiceConfig,
            face: Callable[[], FaceShape] | None = None, edge: float = 0.0) -> bool:
    """Whether what was read is a die: enough pips in a die's layout, or a die-sized face.

    A lone pip needs a face of about a die's size and square, seen at some level or as the
    top face's outline (``face()``, ``edge`` its expected edge in its pixels): that keeps a
    checker's highlight (a round spot on a large round face) from being read as a one. A
    dark die on a dark board merges with the board at every level; its outline still shows.
    """
    if value >= cfg.pips_enough:
        return True
    if value >= 2 and sum(1 for f in fits if f.value == value and f.kind == "pips"
                          and f.cost <= cfg.pips_fit_cost) >= cfg.pips_fit_votes:
        return True  # two or three pips on the die's grid, again and again
    if any(lo <= cfg.die_size_max and sh >= cfg.die_size_min and fill >= cfg.die_fill_min
           and lo / max(sh, 1e-6) <= cfg.die_aspect_max
           for lo, sh, fill in _face_sizes(fits, scale, die_px)):
        return True
    if face is None or edge <= 0.0:
        return False
    return _square_outline(face(), edge, cfg)


def _square_pips(value: int, fits: list[_Fit], cfg: DiceConfig) -> bool:
    """Whether four or more pips sit on a square grid, unstretched: the face lies flat
    within ``side_face_aspect`` (about 17 degrees), too little of a lean to show a second
    face's pips round. Pips beside such a face are the sides' own, seen obliquely at the
    edge of a wide view (the top-down view keeps a flat top face square, not its sides)."""
    aspect = _pip_aspect(value, fits)
    return aspect is not None and aspect <= cfg.side_face_aspect


def _pip_aspect(value: int, fits: list[_Fit]) -> float | None:
    """How stretched the grid of four pips or more is (median over the readers' fits)."""
    aspects = [f.aspect for f in fits if f.value == value and value >= 4 and f.kind != "grid"]
    return float(np.median(aspects)) if aspects else None


def _not_one_face(short: float, cfg: DiceConfig) -> bool:
    """Whether a face region ``short`` die edges across holds more than the top face (its
    sides or shadow joined to it) or was cut short across (by glare or a point's stripe)."""
    return short >= cfg.merged_face_short or short < cfg.flat_size_min


def _face_aspect(fits: list[_Fit], scale: float, die_px: float, cfg: DiceConfig) -> float:
    """The median side ratio of the faces seen at the levels that are one top face's size
    (1.0 where none is)."""
    ratios = [lo / max(sh, 1e-6) for lo, sh, _ in _face_sizes(fits, scale, die_px)
              if not _not_one_face(sh, cfg)]
    return float(np.median(ratios)) if ratios else 1.0


def _stretched(aspect: float | None, fits: list[_Fit], scale: float, die_px: float,
               cfg: DiceConfig, way: tuple[float, float] = (0.0, 0.0)) -> bool:
    """Whether a die read flat is stretched as one leaning on what is beside it would be:
    four pips or more (``aspect``, their grid's stretch) past ``lean_aspect_max``, fewer
    (``aspect`` None) with a face past ``lean_face_aspect_max`` whose long side does not lie
    along ``way``, the way to what it may lean on (``lean_long_cos``): a lean shortens the
    face that way, a flat die's side in view lengthens it."""
    if aspect is not None:
        return aspect > cfg.lean_aspect_max
    if _face_aspect(fits, scale, die_px, cfg) <= cfg.lean_face_aspect_max:
        return False
    along = _face_axes(fits, scale, die_px, way, cfg)[1]
    return not (along and float(np.median(along)) >= cfg.lean_long_cos)


def _long_along(value: int, fits: list[_Fit], way: tuple[float, float], cfg: DiceConfig
                ) -> bool:
    """Whether the grid of ``value``'s pips (four or more) is long along ``way``, the way to
    the checker, bar or frame beside it (``lean_long_cos``, the median over the readers'
    fits): a lean on that shortens the grid that way, so such a stretch is no lean on it
    (render rpd3_07: a flat four by the frame, its grid 1.08 long at |cosine| 0.86). A
    lean on the other die, which ``way`` does not point to, is told by ``clear_room_die``."""
    along = _grid_axes(value, fits, way)
    return bool(along) and float(np.median(along)) >= cfg.lean_long_cos


def _grid_axes(value: int, fits: list[_Fit], way: tuple[float, float]) -> list[float]:
    """How far the long side of each grid of ``value``'s pips (four or more) the readers fit
    lies along ``way`` (|cosine|; none where ``way`` is (0, 0))."""
    gx, gy = way
    g = math.hypot(gx, gy)
    if g <= 0.0:
        return []
    out = []
    for f in fits:
        if f.value != value or value < 4 or f.kind == "grid" or len(f.pips) != value:
            continue
        axis = stretch_axis(np.asarray(f.pips, np.float64), value, f.angle)
        if axis is not None:
            out.append(abs(axis[0] * gx + axis[1] * gy) / g)
    return out


def _is_flat(value: int, fits: list[_Fit], scale: float, die_px: float, cfg: DiceConfig,
             face: Callable[[], FaceShape] | None = None) -> bool:
    """Whether the die lies flat: a square top face of the expected size, unstretched pips.

    A cocked die shows a foreshortened top face (one side shorter, or the whole face smaller
    or larger than expected) and its pips' grid is stretched the same way. A face region
    wider than a die's edge both ways holds more than the top face (the die's sides, its
    shadow, board of its colour: a black die on a dark board) and says nothing of a lean;
    such a region is judged instead by the top face's own outline (``face()``, measured
    only when needed).
    """
    aspects = [f.aspect for f in fits if f.value == value and f.value >= 4 and f.kind == "pips"]
    if aspects:
        # four pips or more pin down the face's shape better than its outline does (the
        # outline merges with the die's sides and shadow)
        return float(np.median(aspects)) <= cfg.pip_aspect_max
    # pips read by the grid alone: their re-centred spots must be unstretched, and the face's
    # outline, where seen, square too (a squashed face's pips can fit a grid of another value)
    aspects = [f.aspect for f in fits if f.value == value and f.value >= 4
               and f.kind == "grid+spots"]
    if aspects and float(np.median(aspects)) > cfg.pip_aspect_max:
        return False
    if aspects and face is not None:
        # the top face's outline is measured around those pips: squarer evidence than the
        # face regions, which a board of the die's colour or a point's stripe cuts or joins
        return face().aspect <= cfg.top_face_aspect_max
    faces = _face_sizes(fits, scale, die_px)
    if not faces:
        return True
    # a region holding more than the top face, or cut short across (by glare or a point's
    # stripe), stands for the top face's own outline
    top_square = (face is not None and any(_not_one_face(sh, cfg) for _, sh, _ in faces)
                  and face().aspect <= cfg.top_face_aspect_max)
    good = sum(
        1 for lo, sh, fill in faces
        if (top_square if _not_one_face(sh, cfg) else
            cfg.flat_size_min <= sh and lo <= cfg.flat_size_max
            and lo / max(sh, 1e-6) <= cfg.flat_aspect_max and fill >= cfg.flat_fill_min)
    )
    return good >= max(1, math.ceil(cfg.flat_share * len(faces)))


def _candidates(
    image: Image, size: float, mask: Mask | None, cfg: DiceConfig
) -> list[tuple[float, float]]:
    """Likely centres of dice of edge ``size``, strongest first.

    Pips are small round spots of any colour on a plain face: the determinant of the
    Hessian of the brightness at pip scale (which answers to spots, hardly to edges or
    stripes) is summed over a die-sized window, and the window's local maxima are the
    candidates. Whole-image filters only: a few
    milliseconds on the top-down view.
    """
    return _peaks(_spot_map(image, size, mask, cfg), size, mask, cfg)


def _spot_map(image: Image, size: float, mask: Mask | None, cfg: DiceConfig) -> FloatArray:
    """How pip-like each pixel's surroundings are (see :func:`_candidates`)."""
    _, doh = _pip_response(image, size, cfg)
    spots = np.sqrt(np.maximum(doh - cfg.spot_min_response, 0.0))
    if mask is not None:
        spots[mask == 0] = 0.0
    return np.asarray(spots, np.float32)


def _pip_response(image: Image, size: float, cfg: DiceConfig
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The grey view and the determinant of its Hessian at pip scale (``pip_sigma`` of the
    die edge ``size``), scale-normalised: grey levels squared, high on round spots."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    sigma = max(cfg.pip_sigma_min, cfg.pip_sigma * size)
    g = cv2.GaussianBlur(grey, (0, 0), sigma)
    lxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    lyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    lxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    return np.asarray(grey, np.float32), np.asarray((lxx * lyy - lxy * lxy) * (sigma**4 / 16.0),
                                                    np.float32)


def _window_maxima(spots: npt.NDArray[np.float32], size: float, cfg: DiceConfig
                   ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """``spots`` summed over die-sized windows, and where that sum is a local maximum."""
    k = max(3, round(cfg.window * size))
    # two box filters make a tent-shaped window: it peaks near the spots' centroid (one box
    # has a plateau) and costs the same at any size
    kb = max(2, round(cfg.window * size * 1.25))
    score = np.asarray(cv2.boxFilter(cv2.boxFilter(spots, -1, (kb, kb)), -1, (kb, kb)), np.float32)
    return score, np.asarray(score >= cv2.dilate(score, np.ones((k, k), np.uint8)), np.bool_)


def _peaks(spots: FloatArray, size: float, mask: Mask | None, cfg: DiceConfig
           ) -> list[tuple[float, float]]:
    """The candidates: the spot map summed over die-sized windows, its local maxima."""
    h, w = spots.shape
    edge = round(cfg.edge_margin * size)
    score, peaks = _window_maxima(np.asarray(spots, np.float32), size, cfg)
    score = score * cfg.score_scale
    peaks &= score >= cfg.min_score
    if mask is not None:
        peaks &= mask > 0
    peaks[:edge] = False
    peaks[h - edge:] = False
    peaks[:, :edge] = False
    peaks[:, w - edge:] = False
    top = cv2.minMaxLoc(score, peaks.view(np.uint8))[1] if peaks.any() else 0.0
    # only the peaks the loop below may take (a plateau of weak ones is costly to sort)
    peaks &= score >= cfg.min_score_share * top * (1.0 - 1e-6)
    at = cv2.findNonZero(peaks.view(np.uint8))  # np.nonzero's order, faster
    xs, ys = (at[:, 0, 0], at[:, 0, 1]) if at is not None else (np.zeros(0, int),) * 2
    order = np.argsort(-score[ys, xs], kind="stable")
    out: list[tuple[float, float, float]] = []
    for i in order[: 4 * cfg.max_dice_candidates]:
        sc = float(score[ys[i], xs[i]])
        if sc < cfg.min_score_share * top:
            break  # a die's spots sum to a good share of the strongest's (a one to a six)
        x, y = _centroid(spots, float(xs[i]), float(ys[i]), cfg.shift_radius * size)
        if all(math.hypot(x - c[0], y - c[1]) > cfg.merge_dist * size for c in out):
            out.append((x, y, sc))
        if len(out) >= cfg.max_dice_candidates:
            break
    return [(x, y) for x, y, _ in out]


def _faint_peaks(image: Image, size: float, mask: Mask | None, cfg: DiceConfig
                 ) -> list[tuple[float, float]]:
    """The ``faint_candidates`` strongest places of pips whatever their contrast: the spot
    map's response (:func:`_spot_map`, before its least response) over the spread of the
    brightness round each pixel (half a die edge, plus ``faint_floor`` grey levels), summed
    over die-sized windows as :func:`_peaks` sums them; local maxima at least ``merge_dist``
    die edges apart, strongest first."""
    if cfg.faint_candidates <= 0 or mask is None:
        return []
    grey, doh = _pip_response(image, size, cfg)
    mean = cv2.GaussianBlur(grey, (0, 0), 0.5 * size)
    var = cv2.GaussianBlur(grey * grey, (0, 0), 0.5 * size) - mean * mean
    spots = np.sqrt(np.maximum(doh, 0.0)) / (np.sqrt(np.maximum(var, 0.0)) + cfg.faint_floor)
    spots[mask == 0] = 0.0
    score, peaks = _window_maxima(np.asarray(spots, np.float32), size, cfg)
    peaks &= (mask > 0) & (score > 0)
    edge = round(cfg.edge_margin * size)
    inside = np.zeros_like(peaks)
    inside[edge:peaks.shape[0] - edge, edge:peaks.shape[1] - edge] = True
    ys, xs = np.nonzero(peaks & inside)
    out: list[tuple[float, float]] = []
    for i in np.argsort(-score[ys, xs], kind="stable"):
        x, y = float(xs[i]), float(ys[i])
        if all(math.hypot(x - a, y - b) >= cfg.merge_dist * size for a, b in out):
            out.append((x, y))
            if len(out) >= cfg.faint_candidates:
                break
    return out


def _centroid(spots: FloatArray, x: float, y: float, radius: float) -> tuple[float, float]:
    """(x, y) moved to the centroid of the spots around it (a few mean-shift steps): every
    layout's pips are centred on the face."""
    h, w = spots.shape
    r = max(1, math.ceil(radius))
    for _ in range(3):
        xi, yi = round(x), round(y)
        x0, x1, y0, y1 = max(0, xi - r), min(w, xi + r + 1), max(0, yi - r), min(h, yi + r + 1)
        yy, xx = np.ogrid[y0:y1, x0:x1]
        win = spots[y0:y1, x0:x1] * ((xx - x) ** 2 + (yy - y) ** 2 <= radius * radius)
        total = float(win.sum())
        if total <= 0.0:
            break
        nx = float((win.sum(axis=0) * xx[0]).sum()) / total
        ny = float((win.sum(axis=1) * yy[:, 0]).sum()) / total
        done = math.hypot(nx - x, ny - y) < 0.5
        x, y = nx, ny
        if done:
            break
    return x, y


def _inside(mask: Mask | None, x: float, y: float) -> bool:
    """Whether (x, y) lies where dice may lie (a die's centre off the mask is no die)."""
    if mask is None:
        return True
    xi, yi = round(x), round(y)
    return 0 <= yi < mask.shape[0] and 0 <= xi < mask.shape[1] and bool(mask[yi, xi])


def find_dice(
    image: Image,
    *,
    die_px: float | Sequence[float],
    surface_mask: Mask | None = None,
    config: DiceConfig = DEFAULT_CONFIG,
    crop: CropFn | None = None,
    nadir: tuple[float, float] | None = None,
    rescue: bool = True,
    near: tuple[float, float, float] | None = None,
    exposure: float = 1.0,
    spotted: Spotted | None = None,
) -> list[DieRead]:
    """Every die lying in a top-down BGR view of the playing surface.

    ``die_px`` is the expected edge of a die in this image's pixels (or several sizes to try,
    likeliest first); ``surface_mask`` (non-zero where dice may lie) limits the search;
    ``crop`` cuts a square of the view from a sharper source for reading (default: the view
    itself); ``nadir`` is the point straight below the camera in this image, when known (a
    flat die shows the side facing it, pips and all); ``rescue``: let the die-face network
    read a die in the clear that nothing else reads (``net_rescue``; it reads a die of
    any size, so a caller choosing between sizes asks without it first); ``near``: (x, y,
    r), only a die centred within r of (x, y) is looked for (a die at one place);
    ``exposure``: over 1, the view and its crops are read that many times brighter (a dim
    board or room, whose pips' contrast falls under the thresholds: the caller knows the
    light from the board, see :class:`~pibg.vision.pipeline.Vision`); ``spotted``: the
    places where the dice-finding network finds a flat die (:func:`~pibg.vision.dice_spot.
    spots` at ``spot_sure``), asked for only when the rescue wants them (default: found in
    ``image`` then, once; a caller reading one view several times passes its own, found
    once). Each die is
    reported with its value, its centre in this image's pixel coordinates, ``flat=False``
    when its top face is not a square of the expected size (a cocked die) and a confidence;
    strongest first.

    >>> board = np.full((200, 300, 3), (40, 90, 30), np.uint8)
    >>> die = draw_die(4, size=30, angle=10.0, background=(40, 90, 30))
    >>> board[50:50 + die.shape[0], 80:80 + die.shape[1]] = die
    >>> [(d.value, d.flat) for d in find_dice(board, die_px=30)]
    [(4, True)]
    """
    sizes = [float(die_px)] if isinstance(die_px, (int, float)) else [float(s) for s in die_px]
    if not sizes or min(sizes) <= 2:
        raise ValueError(f"die_px must be a few pixels at least, got {die_px!r}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    crop = crop or view_crop(image, config.work_px)
    if not rescue or config.spot_sure >= 1.0:
        spotted = None  # the network not asked, whoever found its places
    elif spotted is None:
        spotted = functools.cache(functools.partial(dice_spot.spots, image, config.spot_sure))
    if exposure > 1.0:  # a dim view: read as a longer exposure would show it
        image, crop = _brightened(image, exposure), _brightened_crop(crop, exposure)
    for size in sizes:  # the dice of one roll are alike: the first size that finds one
        found = _find_at(image, size, surface_mask, config, crop, nadir, rescue, near, spotted)
        if found:
            return found
    return []


def _brightened(image: Image, gain: float) -> Image:
    """``image`` with its values times ``gain`` (clipped), as a longer exposure shows it."""
    return np.asarray(cv2.convertScaleAbs(image, alpha=gain))


class _BrightenedCrop:
    """A :data:`CropFn` whose squares are ``raw``'s brightened by ``gain`` (clipped)."""

    def __init__(self, raw: CropFn, gain: float) -> None:
        self.raw, self.gain = raw, gain

    def __call__(self, x: float, y: float, half: float) -> tuple[Image, float]:
        patch, k = self.raw(x, y, half)
        return _brightened(patch, self.gain), k


def _brightened_crop(crop: CropFn, gain: float) -> CropFn:
    """``crop``, each square it cuts brightened by ``gain``."""
    return _BrightenedCrop(crop, gain)


def _unbrightened(crop: CropFn) -> CropFn:
    """The squares as the camera saw them, for the die-face network: it centres and scales
    each crop's lightness itself, and a brightening clips a light die on a dark board to one
    white square, pips and all (render rnq2: pink dice with white pips, read at 2.1 times)."""
    return crop.raw if isinstance(crop, _BrightenedCrop) else crop


def _no_room(x: float, y: float) -> float:
    return 0.0


def _matched(crop: CropFn, x: float, y: float, half: float, size: float, mask: Mask | None,
             cfg: DiceConfig, room: Callable[[float, float], float] = _no_room,
             spot: float | None = None, in_clear: list[DieRead] | None = None,
             found: Sequence[DieRead] = (), nadir: tuple[float, float] | None = None
             ) -> DieRead | None:
    """A flat die read whole (:func:`~pibg.vision.dice_match.match_face`) where its pips
    were not found one by one: only a close match, clearly ahead of every other value's,
    whose spots are all round, and whose top face's outline is a flat die's square, unless
    it lies in the clear (``room``, see ``clear_room``): there it has nothing to lean on,
    and the outline of a black die on a dark board, its sides in view, is no square. Within
    ``lean_reach`` of what it may lean on, in the clear or not, a pip beside the face
    towards that, or a second face's pips beside it (``nadir``: see ``_second_face``), make
    it a die, not flat (see ``_leans_aside``)."""
    patch, k = crop(x, y, half)
    m = match_face(patch, size * k, cfg)
    if (m.score < cfg.rescue_score or m.margin < cfg.rescue_margin
            or m.spot < (cfg.rescue_spot if spot is None else spot)):
        return None
    dx, dy = m.centre[0] / k, m.centre[1] / k
    px, py = x - half + dx, y - half + dy
    if not _inside(mask, px, py):
        return None
    if room(px, py) >= cfg.clear_room * size:
        face = (_face_shape(crop(px, py, cfg.net_crop * size)[0], cfg)
                if m.value % 2 == 0 and not _in_open(room, px, py, size, cfg) else None)
        if face is not None and face[0] and not face[1]:
            # a leaning die's face, foreshortened (its pips can match another value's): the
            # face is measured where no pip lies, at the centre of an even value's face (in
            # the open nothing to lean on: not measured)
            return None
        if _leans_aside(crop, px, py, half, size, m.value, m.angle, mask, room, found, cfg,
                        nadir):
            return DieRead(m.value, px, py, False, m.score)  # in the clear, yet its side in view
        die = DieRead(m.value, px, py, True, m.score)
        if in_clear is not None:
            in_clear.append(die)
        return die
    pips = _layout_at(m.value, m.centre, m.edge * cfg.match_spread, m.angle)
    pip_r = cfg.match_pip_sigma * 2.0 * m.edge
    shape = top_face(patch, m.centre, m.angle, size * k, pips, pip_r,
                     _face_angles(m.value, m.angle, cfg))
    if not _square_outline(shape, size * k, cfg):
        return None  # without its pips found, nothing else says it is a die: a cube's digit
        #              or a checker's rings can match a layout, but have no die's square face
    flat = not _leans_aside(crop, px, py, half, size, m.value, m.angle, mask, room, found,
                            cfg, nadir)
    return DieRead(m.value, px, py, flat, m.score)


def _layout_at(value: int, centre: tuple[float, float], spread: float, angle: float
               ) -> tuple[tuple[float, float], ...]:
    """Where a face of ``value`` centred at ``centre``, turned ``angle`` degrees, has its pips
    (corner pips ``spread`` from the centre along each axis)."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return tuple((centre[0] + spread * (u * c - v * s), centre[1] + spread * (u * s + v * c))
                 for u, v in LAYOUTS[value])


def _leans_aside(crop: CropFn, x: float, y: float, half: float, size: float, value: int,
                 angle: float, mask: Mask | None, room: Callable[[float, float], float],
                 found: Sequence[DieRead], cfg: DiceConfig,
                 nadir: tuple[float, float] | None = None) -> bool:
    """Whether a face of ``value`` matched whole at (x, y), turned ``angle`` degrees, within
    ``lean_reach`` of what it may lean on, shows a pip beside it towards that (see
    ``_side_towards``), or ``extra_pips_cocked`` round pips beside it elsewhere (see
    ``_second_face``: the face matched may be the side the die turns up from what props it,
    its top face beside it, away from that; render rnk1_06). The dice ``found`` are no side."""
    if mask is None or room(x, y) >= cfg.lean_reach * size:
        return False
    beside = [(bx, by, rd) for bx, by, rd in _pips_beside(crop, x, y, half, size, value, angle,
                                                         cfg)
              if all(math.hypot(bx - d.x, by - d.y) > cfg.touching_radius * size for d in found)]
    return (_side_towards(beside, x, y, room, size, cfg)
            or _second_face(beside, x, y, nadir, cfg) >= cfg.extra_pips_cocked)


def _pips_beside(crop: CropFn, x: float, y: float, half: float, size: float, value: int,
                 angle: float, cfg: DiceConfig) -> list[tuple[float, float, float]]:
    """The pips beside a face of ``value`` matched whole at (x, y), turned ``angle`` degrees
    (see ``_extra_pips``): where they lie (view pixels) and how round they are."""
    patch, k = crop(x, y, half)
    lab, scale = _prepare(patch, cfg)
    dist = _distance_map(lab, cfg, 1.0 / (2.0 * cfg.crop_half))
    blobs = _blobs(dist, cfg)
    scale *= k
    die_work = size * scale
    h, w = dist.shape
    c = ((w - 1) / 2.0, (h - 1) / 2.0)
    spread = cfg.match_spread * die_work
    pips = _layout_at(value, c, spread, angle)
    own = [a for bx, by, a, _ in blobs
           if min(math.hypot(bx - px, by - py) for px, py in pips) < 0.25 * die_work]
    area = float(np.median(own)) if own else math.pi * (0.09 * die_work) ** 2
    fit = _Fit(value, 0.0, c, spread, angle, pips=pips, pip_area=area)
    return [(x - half + bx / scale, y - half + by / scale, rd)
            for bx, by, rd in _extra_pips(blobs, fit, die_work, cfg)]


def _net_reads(crop: CropFn, points: list[tuple[float, float]], size: float, cfg: DiceConfig
               ) -> tuple[list[Image], FloatArray]:
    """The crops the die-face network (:mod:`pibg.vision.dice_net`) reads for dice at
    ``points``, and its likelihoods for each (one batch)."""
    raw = _unbrightened(crop)
    patches = [raw(x, y, cfg.net_crop * size)[0] for x, y in points]
    return patches, np.asarray(face_probabilities(patches), np.float64)


def _net_read(crop: CropFn, x: float, y: float, size: float, cfg: DiceConfig
              ) -> tuple[Image, FloatArray]:
    """The crop the network reads for a die at (x, y), and its likelihoods."""
    patches, p = _net_reads(crop, [(x, y)], size, cfg)
    return patches[0], p[0]


def _net_value(crop: CropFn, x: float, y: float, size: float, value: int, cfg: DiceConfig
               ) -> int:
    """``value``, or the network's value where it finds that one more than ``net_keep_find``
    times likelier (a side's pip read as a second pip, a pip lost in glare)."""
    if cfg.net_keep_find <= 0.0:
        return value
    _, p = _net_read(crop, x, y, size, cfg)
    best = int(np.argmax(p[:NO_DIE]))
    return best + 1 if p[best] > cfg.net_keep_find * p[value - 1] else value


def _net_look(crop: CropFn, d: DieRead, size: float, cfg: DiceConfig) -> Callable[[], FloatArray]:
    """The network's likelihoods on the crop round the die ``d`` (:func:`_net_read`), read
    when first asked for and once only."""
    return functools.cache(lambda: _net_read(crop, d.x, d.y, size, cfg)[1])


def _more_pips(crop: CropFn, die: DieRead, size: float, cfg: DiceConfig,
               look: Callable[[], FloatArray] | None = None) -> DieRead:
    """``die``, or ``die`` with the higher value the network reads on its face at least
    ``net_more_pips`` likely (see :class:`DiceConfig`); asked of a flat die read as a one,
    two or three (under ``pips_enough``), where a lost pip leaves too few to tell. ``look``:
    the network's read round the die, where already made (:func:`_net_look`)."""
    if cfg.net_more_pips >= 1.0 or not die.flat or die.value >= cfg.pips_enough:
        return die
    p = (look or _net_look(crop, die, size, cfg))()
    best = int(np.argmax(p[:NO_DIE]))
    if best + 1 <= die.value and p[best] >= cfg.net_more_pips:
        return die  # one look is sure of no more pips
    _, _, _, p = _rescue_read(crop, die.x, die.y, size, cfg)
    if p[:NO_DIE].max() < cfg.net_more_pips:
        step = cfg.rescue_shift * size
        spots = [(die.x + i * step, die.y + j * step) for j in (-1, 0, 1) for i in (-1, 0, 1)]
        _, _, _, p = _rescue_read(crop, *_surest(crop, spots, size, cfg), size, cfg)
    best = int(np.argmax(p[:NO_DIE]))
    if best + 1 <= die.value or p[best] < cfg.net_more_pips:
        return die
    return dataclasses.replace(die, value=best + 1)


def _face_shape(patch: Image, cfg: DiceConfig) -> tuple[bool, bool] | None:
    """Of the face at ``patch``'s centre (see :func:`_face_blob`): whether it is long (past
    ``rescue_aspect_max``), not square, and whether it runs on across ``rescue_open`` of the
    crop (its colour running on into the board's: then its shape is the board's, not the
    face's); None where the centre stands out from nothing."""
    blob = _face_blob(patch, cfg.rescue_open)
    if blob is None:
        return None
    return (blob[0] > cfg.rescue_aspect_max * blob[1],
            blob[0] >= cfg.rescue_open * min(patch.shape[:2]))


def _face_blob(patch: Image, whole: float = DEFAULT_CONFIG.rescue_open
               ) -> tuple[float, float] | None:
    """The long and short side (pixels) of the face at ``patch``'s centre (see
    :func:`_face_rect`), or None where the centre stands out from nothing."""
    rect = _face_rect(patch, whole)
    return None if rect is None else rect[1]


def _face_rect(patch: Image, whole: float = DEFAULT_CONFIG.rescue_open
               ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The centre (patch pixels) and the long and short side of the rectangle round the face
    at ``patch``'s centre: the region of its
    centre's colour (pips closed over, thin bridges to anything of a like colour opened),
    or None where the centre stands out from nothing. Where that region fills the crop both
    ways (``whole`` of its side or more), the split of the crop's colours fell between the
    board and dark pips: it is measured again with colours farther from the centre's than
    the board round the crop counted as the board's. Where it runs out of the crop one way
    only, the face ran on into something of a like colour (a pale point's tip under a white
    die): the region's own colours are split once more, and the face is the nearer part.
    Where no region of the centre's colour is left, the face is the one a dark die's
    outline closes (:func:`_outlined`)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(patch, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    centre = np.median(lab[h // 2 - 3:h // 2 + 4, w // 2 - 3:w // 2 + 4].reshape(-1, 3), axis=0)
    dist = np.linalg.norm(lab - centre, axis=2)
    region = _region_at_centre(dist)
    if region is None:
        return _outlined(lab[:, :, 0], whole)
    if _rect(region)[1][1] >= whole * min(h, w):
        border = np.concatenate([dist[0], dist[-1], dist[:, 0], dist[:, -1]])
        region = _region_at_centre(np.minimum(dist, float(np.median(border))))
    elif region[0].any() or region[-1].any() or region[:, 0].any() or region[:, -1].any():
        region = _region_at_centre(dist, within=region)
    return _outlined(lab[:, :, 0], whole) if region is None else _rect(region)


def _outlined(lightness: npt.NDArray[np.float32], whole: float
              ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The rectangle round the face at the crop's centre as a dark die's outline closes it:
    the region lighter than half the board round the crop (its border's median), where the
    face's colour is the board's (glare over a black die: no split of colours parts them)
    but its sides, in shadow, are darker than either. None where the centre is dark, or
    where that region fills the crop both ways (``whole`` of its side: no outline there)."""
    h, w = lightness.shape
    border = np.concatenate([lightness[0], lightness[-1], lightness[:, 0], lightness[:, -1]])
    light = (lightness > 0.5 * float(np.median(border))).astype(np.uint8)
    _, labels = cv2.connectedComponents(light)
    i = labels[h // 2, w // 2]
    if i == 0:
        return None
    rect = _rect(labels == i)
    return None if rect[1][1] >= whole * min(h, w) else rect


def _rect(region: Mask) -> tuple[tuple[float, float], tuple[float, float]]:
    """The centre and the long and short side (pixels) of the rectangle round ``region``."""
    pts = np.column_stack(np.nonzero(region)[::-1]).astype(np.float32)
    (cx, cy), (a, b), _ = cv2.minAreaRect(pts)
    return (cx, cy), (max(a, b), min(a, b))


def _region_at_centre(dist: FloatArray, within: Mask | None = None) -> Mask | None:
    """The region nearer in colour to the centre (``dist``: each pixel's colour distance
    from it) by an Otsu split of the distances (of those ``within`` only, if given), holes
    filled, closed over pips and opened at thin bridges; None where the centre is not in it."""
    h, w = dist.shape
    span = max(float(dist.max() - dist.min()), 1e-6)
    d8 = (255.0 * (dist - dist.min()) / span).astype(np.uint8)
    t = _otsu(d8)
    if within is not None:  # split the near colours of the region once more (not its pips)
        nearer = d8[within & (d8 <= t)]
        t = _otsu(nearer) if nearer.size else t
    near = _filled(np.where(d8 <= t, 255, 0).astype(np.uint8))
    k = max(3, round(0.12 * w)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    near = cv2.morphologyEx(cv2.morphologyEx(near, cv2.MORPH_CLOSE, disc), cv2.MORPH_OPEN, disc)
    _, labels = cv2.connectedComponents(near)
    i = labels[h // 2, w // 2]
    return None if i == 0 else labels == i


def _otsu(values: Image) -> float:
    """The Otsu threshold of ``values`` (8-bit)."""
    t, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(t)


def _filled(mask: Image) -> Image:
    """``mask`` with its holes filled: what the crop's border cannot reach through the
    background (a face's pips, wholly inside it, are the face's)."""
    h, w = mask.shape
    outside = np.zeros((h + 2, w + 2), np.uint8)
    outside[1:-1, 1:-1] = mask
    cv2.floodFill(outside, None, (0, 0), (255,))  # the border ring and all it reaches
    return np.asarray(mask | cv2.bitwise_not(outside[1:-1, 1:-1]))


def _net_rescue(crop: CropFn, x: float, y: float, size: float, mask: Mask | None,
                cfg: DiceConfig, room: Callable[[float, float], float],
                in_clear: list[DieRead] | None) -> DieRead | None:
    """A die in the clear whose face the pip readers and the whole-face match gave up on
    (glare over a black die's face; a dark die's dim pips on a dark board), read by the
    network when it is sure: at (x, y) or, where it reads no die there, where near (x, y) it
    is surest of a face (:func:`_net_seek`: a candidate's spots can sit a third of an edge
    off the face, and the network reads a face surely only near its centre), the crop
    centred on the face there (:func:`_rescue_read`).
    A face whose outline is long (``rescue_aspect_max``) is taken only when the network is
    surer still (``net_rescue_open``) and the face is a one, two or three (under
    ``pips_enough``: a flat one seen from the side shows a side beside its face) or its colour
    runs on out of the crop (into a point of its colour): a die leaning shows a foreshortened
    face, and a foreshortened four can read as a six. A die ``open_room`` from everything has
    nothing to lean on: its outline is not asked."""
    if cfg.net_rescue >= 1.0 or mask is None or room(x, y) < cfg.clear_room * size:
        return None
    die = _rescue_at(crop, x, y, size, cfg, room)
    if die is None:
        die = _rescue_at(crop, *_net_seek(crop, x, y, size, cfg, room), size, cfg, room)
    if die is not None and in_clear is not None:
        in_clear.append(die)
    return die


def _rescue_at(crop: CropFn, x: float, y: float, size: float, cfg: DiceConfig,
               room: Callable[[float, float], float]) -> DieRead | None:
    """The flat die the network reads at (x, y) for a rescue (:func:`_net_rescue`), or None."""
    x, y, patch, p = _rescue_read(crop, x, y, size, cfg)
    best = int(np.argmax(p))
    if best == NO_DIE or p[best] < cfg.net_rescue or room(x, y) < cfg.clear_room * size:
        return None
    shape = _face_shape(patch, cfg)
    if shape is None:
        return None
    long, runs_on = shape
    if long and not _in_open(room, x, y, size, cfg) and not (
            (runs_on or best + 1 < cfg.pips_enough) and p[best] >= cfg.net_rescue_open):
        # no square face: it may lean. A flat one, two or three off the camera's axis shows
        # its side beside its face; four pips or more, foreshortened, read as another value
        # (a leaning four as a six) unless the face runs on into a point of its colour
        return None
    return DieRead(best + 1, x, y, True, float(p[best]))


def _net_seek(crop: CropFn, x: float, y: float, size: float, cfg: DiceConfig,
              room: Callable[[float, float], float]) -> tuple[float, float]:
    """Where near (x, y) the die-face network is surest of a face: on a square grid
    ``rescue_shift`` edges apart ``rescue_reach`` steps round (x, y), then on one
    ``rescue_fine`` edges apart round the best of those (a step of 0: that grid left out);
    places closer than ``clear_room`` edges to anything the mask leaves out are not read."""
    for step, reach in ((cfg.rescue_shift, cfg.rescue_reach), (cfg.rescue_fine, 1)):
        if step <= 0.0:
            continue
        spots = [(x + i * step * size, y + j * step * size)
                 for i in range(-reach, reach + 1) for j in range(-reach, reach + 1)]
        spots = [(sx, sy) for sx, sy in spots
                 if room(sx, sy) >= cfg.clear_room * size] or [(x, y)]
        x, y = _surest(crop, spots, size, cfg)
    return x, y


def face_near(crop: CropFn, x: float, y: float, size: float,
              config: DiceConfig = DEFAULT_CONFIG) -> tuple[int, float]:
    """The face the die-face network reads surest near (x, y) for a die of edge ``size``
    (:func:`_net_seek` on its coarse grid one step round, nothing left out: ten reads): its
    value and likelihood (value 0: no die)."""
    near = dataclasses.replace(config, rescue_reach=1, rescue_fine=0.0)
    sx, sy = _net_seek(crop, x, y, size, near, _no_room_asked)
    _, p = _net_read(crop, sx, sy, size, config)
    best = int(np.argmax(p[:NO_DIE]))
    return (best + 1, float(p[best])) if p[best] >= p[NO_DIE] else (0, float(p[NO_DIE]))


def _no_room_asked(x: float, y: float) -> float:
    """Room everywhere: no place left out (for :func:`_net_seek`)."""
    return math.inf


def _surest(crop: CropFn, spots: list[tuple[float, float]], size: float, cfg: DiceConfig
            ) -> tuple[float, float]:
    """Of ``spots``, the one where the die-face network is surest of a face (its likeliest
    value the likeliest; the first of equals)."""
    _, ps = _net_reads(crop, spots, size, cfg)
    return spots[int(np.argmax(ps[:, :NO_DIE].max(axis=1)))]


def _rescue_read(crop: CropFn, x: float, y: float, size: float, cfg: DiceConfig
                 ) -> tuple[float, float, Image, FloatArray]:
    """The network's read of a die near (x, y), for a rescue: the crop is first centred on
    the face there (the region of its centre's colour, when that is about a die's face in
    size: a candidate's spots, pulled by a dark side, can sit a fifth of an edge off it, and
    a washed-out face reads right only centred), then read at the 3 x 3 grid of
    ``rescue_jitter`` edges round it and the likelihoods averaged (a face with no clear pip
    can read otherwise a pixel away). The centre, the crop there and the likelihoods."""
    half = cfg.net_crop * size
    lo, hi = cfg.rescue_centre
    crop = _unbrightened(crop)
    centres = [(x, y)]
    for _ in range(2):  # the face's outline seen from its centre is the truer
        patch, k = crop(x, y, half)
        rect = _face_rect(patch, cfg.rescue_open)
        if rect is None:
            break
        (cx, cy), (long, short) = rect
        if not (lo * size * k <= short and long <= hi * size * k):
            break
        x, y = x - half + cx / k, y - half + cy / k
        centres.append((x, y))
    if cfg.rescue_jitter <= 0.0:
        patch, p = _net_read(crop, x, y, size, cfg)
        return x, y, patch, p
    # read round the face's centre, and round where the read was asked (a face's region can
    # take in its side, or its shadow: the outline's centre then lies off the top face, and
    # the network reads a face surely only within a few pixels of its centre)
    j = cfg.rescue_jitter * size
    grid = [(i * j, m * j) for m in (-1, 0, 1) for i in (-1, 0, 1)]
    tried = [centres[-1]] + ([centres[0]] if len(centres) > 1 else [])
    patches, ps = _net_reads(crop, [(cx + dx, cy + dy) for cx, cy in tried for dx, dy in grid],
                             size, cfg)
    means = ps.reshape(len(tried), len(grid), -1).mean(axis=1)
    best = int(np.argmax(means[:, :NO_DIE].max(axis=1)))
    (x, y), mid = tried[best], best * len(grid) + 4
    return x, y, patches[mid], np.asarray(means[best], np.float64)


def _in_open(room: Callable[[float, float], float], x: float, y: float, size: float,
             cfg: DiceConfig) -> bool:
    """Whether a die at (x, y) lies ``open_room`` edges or more from everything the mask
    leaves out: nothing there to lean on."""
    return cfg.open_room > 0.0 and room(x, y) >= cfg.open_room * size


def _room(mask: Mask | None) -> Callable[[float, float], float]:
    """``room(x, y)``: how far (pixels) a point lies inside ``mask`` (0 outside it, and
    everywhere without a mask); the distances are measured once, when first asked for."""
    if mask is None:
        return _no_room

    @functools.cache
    def dist() -> npt.NDArray[np.float32]:  # float32 as measured: half the memory
        return np.asarray(cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 5),
                          np.float32)

    def room(x: float, y: float) -> float:
        d = dist()
        xi, yi = round(x), round(y)
        return float(d[yi, xi]) if 0 <= yi < d.shape[0] and 0 <= xi < d.shape[1] else 0.0

    return room


def _patch_edge(crop: CropFn, x: float, y: float, half: float, size: float
                ) -> tuple[Image, float]:
    """The crop round (x, y) and a die's edge in its pixels."""
    patch, k = crop(x, y, half)
    return patch, size * k


def _keep(found: list[DieRead], die: DieRead | None, near: float) -> None:
    if die is not None and all(math.hypot(die.x - d.x, die.y - d.y) >= near for d in found):
        found.append(die)


def _keep_or_defer(found: list[DieRead], die: DieRead | None, near: float,
                   unread: list[tuple[float, float]] | None, cx: float, cy: float) -> None:
    if die is None and unread is not None:
        unread.append((cx, cy))
    _keep(found, die, near)


def _find_at(image: Image, size: float, surface_mask: Mask | None, cfg: DiceConfig,
             crop: CropFn, nadir: tuple[float, float] | None = None, rescue: bool = True,
             near: tuple[float, float, float] | None = None,
             spotted: Spotted | None = None) -> list[DieRead]:
    """The dice of edge ``size`` (view pixels), or only those centred within r of (x, y) for
    ``near`` = (x, y, r); ``spotted``: the dice-finding network's places (see
    :func:`find_dice`)."""

    def peaks(spots: FloatArray) -> list[tuple[float, float]]:
        at = _peaks(spots, size, surface_mask, cfg)
        return at if near is None else [(x, y) for x, y in at
                                        if math.hypot(x - near[0], y - near[1]) < near[2]]

    found: list[DieRead] = []
    room = _room(surface_mask)
    in_clear: list[DieRead] = []  # flat only while no other die lies beside it
    unread: list[tuple[float, float]] = []
    spots = _spot_map(image, size, surface_mask, cfg)
    first = peaks(spots)
    for cx, cy in first:
        _consider(cx, cy, found, in_clear, size, surface_mask, cfg, crop, room, nadir, unread)
    if len(found) == 1:
        # a die touching the other sums its spots into one window with it: the other's
        # window has no maximum of its own until the die found is taken away
        d = found[0]
        r = cfg.touching_radius * size
        yy, xx = np.ogrid[:spots.shape[0], :spots.shape[1]]
        rest = np.where((xx - d.x) ** 2 + (yy - d.y) ** 2 <= r * r, 0.0, spots)
        for cx, cy in peaks(np.asarray(rest, np.float32)):
            _consider(cx, cy, found, in_clear, size, surface_mask, cfg, crop, room, nadir)
        if len(found) == 2 and not (found[1].flat and math.hypot(
                found[1].x - d.x, found[1].y - d.y) >= cfg.touching_min * size):
            del found[1]  # no flat die of its own, clear of the first's face: the first's
            #               second face, or its side, read as a die
        if len(found) == 2:  # read the first again beside the second (its pips are no
            del found[0]     # second face of the first)
            _consider(d.x, d.y, found, in_clear, size, surface_mask, cfg, crop, room, nadir)
            if len(found) == 1:
                found.insert(0, d)
    if rescue and sum(d.flat for d in found) < 2:
        # a throw's die that nothing else read, far from every die found (beside one, the
        # network would read that die's face off-centre)
        for cx, cy in unread:
            if all(math.hypot(cx - d.x, cy - d.y) >= cfg.clear_room_die * size for d in found):
                _keep(found, _net_rescue(crop, cx, cy, size, surface_mask, cfg, room, in_clear),
                      cfg.merge_dist * size)
        # a die whose pips are too faint for the spot map (dark pips on a dark die on a dark
        # board): the faint spots' strongest places, read by the network alone, surer
        places = _faint_peaks(image, size, surface_mask, cfg)  # none while switched off
        faint = dataclasses.replace(cfg, net_rescue=cfg.faint_sure) if places else cfg
        for cx, cy in places:
            if sum(d.flat for d in found) >= 2:
                break
            if near is not None and math.hypot(cx - near[0], cy - near[1]) >= near[2]:
                continue
            if (all(math.hypot(cx - px, cy - py) >= cfg.merge_dist * size for px, py in first)
                    and all(math.hypot(cx - d.x, cy - d.y) >= cfg.clear_room_die * size
                            for d in found)):
                _keep(found, _net_rescue(crop, cx, cy, size, surface_mask, faint, room,
                                         in_clear), cfg.merge_dist * size)
        # a die by its shape and shadow: where the dice-finding network finds one
        for cx, cy, _ in (spotted() if spotted is not None else []):
            if sum(d.flat for d in found) >= 2:
                break
            if near is not None and math.hypot(cx - near[0], cy - near[1]) >= near[2]:
                continue
            if all(math.hypot(cx - d.x, cy - d.y) >= cfg.clear_room_die * size for d in found):
                # taken in the open only (by a checker it may lean on: the network calls
                # leaning dice flat), a one only when surer (it names round blotches too)
                die = _net_rescue(crop, cx, cy, size, surface_mask, cfg, room, None)
                if (die is not None and _in_open(room, die.x, die.y, size, cfg)
                        and (die.value > 1 or die.confidence >= cfg.spot_one)):
                    in_clear.append(die)
                    _keep(found, die, cfg.merge_dist * size)
    # the room measured leaves the other dice out: one may lean on the other
    leaning: dict[int, str] = {}
    for i, d in enumerate(found):
        for e in found:
            if e is not d and math.hypot(d.x - e.x, d.y - e.y) < cfg.clear_room_die * size:
                how = "face" if d in in_clear else _leans_on(d, e, size, crop, cfg, nadir)
                if how:
                    leaning[i] = how
                    break
    if "face" in leaning.values():
        # the side a die leaning on the other turns to it shows from that die too, as a
        # pip beside its face towards the leaning one: only a die's own face tells then
        leaning = {i: how for i, how in leaning.items() if how == "face"}
    looks = [_net_look(crop, d, size, cfg) for d in found]  # one read a die, for every ask
    found = [dataclasses.replace(d, flat=False)
             if i in leaning or _net_leaning(crop, d, size, room, cfg, look)
             else _more_pips(crop, d, size, cfg, look)
             for i, (d, look) in enumerate(zip(found, looks, strict=True))]
    # a die read flat where the die-face network is all but sure no die face lies is none:
    # a lavender field's grain read as a six's grid (render rpc3_03), which took the roll's
    # place from the dim five the rescue read at another size
    found = [d for d, look in zip(found, looks, strict=True)
             if not (d.flat and cfg.net_no_die < 1.0 and look()[NO_DIE] >= cfg.net_no_die)]
    found.sort(key=lambda d: -d.confidence)
    return found


def _net_leaning(crop: CropFn, d: DieRead, size: float, room: Callable[[float, float], float],
                 cfg: DiceConfig, look: Callable[[], FloatArray] | None = None) -> bool:
    """Whether the die ``d``, read flat within ``lean_reach`` of what it may lean on, is one
    the die-face network calls no flat die face at least ``net_lean_veto`` likely: a die
    leaning there, whose pips and outline passed for a flat face. ``look``: as for
    :func:`_more_pips`."""
    if not d.flat or cfg.net_lean_veto >= 1.0 or room(d.x, d.y) >= cfg.lean_reach * size:
        return False
    return bool((look or _net_look(crop, d, size, cfg))()[NO_DIE] >= cfg.net_lean_veto)


def _leans_on(d: DieRead, e: DieRead, size: float, crop: CropFn, cfg: DiceConfig,
              nadir: tuple[float, float] | None = None) -> str | None:
    """How the flat die ``d``, read again, shows it leans on the die ``e`` beside it: "face",
    one to three pips, its face shortened towards ``e`` (see ``_shortened_towards``);
    "side", a pip beside its face towards ``e``, clear of ``e``'s face and not on the side
    facing the point below the camera (``other_side_*``: the side it turns to ``e``); or
    None."""
    if not d.flat:
        return None
    value, _, best, fits, scale, origin = _read_crop(crop, d.x, d.y, cfg.crop_half * size, cfg)
    if best is None:
        return None
    ux, uy = e.x - d.x, e.y - d.y
    if (d.value < cfg.pips_enough and value < cfg.pips_enough
            and _shortened_along(fits, scale, size, (ux, uy), cfg)):
        return "face"
    for px, py, _ in best.extra_at:
        bx, by = origin[0] + px / scale - d.x, origin[1] + py / scale - d.y
        r = math.hypot(bx, by)
        if (0.0 < r <= cfg.other_side_reach * size
                and bx * ux + by * uy >= cfg.other_side_cos * r * math.hypot(ux, uy)
                and math.hypot(bx - ux, by - uy) >= cfg.other_side_clear * size
                and _second_face([(bx + d.x, by + d.y, 0.0)], d.x, d.y, nadir, cfg)):
            return "side"
    return None


def _consider(cx: float, cy: float, found: list[DieRead], in_clear: list[DieRead],
              size: float, surface_mask: Mask | None, cfg: DiceConfig, crop: CropFn,
              room: Callable[[float, float], float], nadir: tuple[float, float] | None,
              unread: list[tuple[float, float]] | None = None) -> None:
    """Read the candidate at (cx, cy); a die read there joins ``found`` (and ``in_clear``
    when it is flat for lying in the clear); a candidate nothing reads joins ``unread``."""
    half = cfg.crop_half * size
    near = cfg.merge_dist * size
    if any(math.hypot(cx - d.x, cy - d.y) < near for d in found):
        return
    x, y = cx, cy
    got = _read_crop(crop, x, y, half, cfg)
    for _ in range(2):  # re-centre on the pips and read again
        best = got[2]
        if best is None:
            break
        nx = got[5][0] + best.centre[0] / got[4]
        ny = got[5][1] + best.centre[1] / got[4]
        if math.hypot(nx - x, ny - y) < cfg.recentre * size:
            break
        x, y = nx, ny
        again = _read_crop(crop, x, y, half, cfg)
        if 0 < again[0] < got[0] and again[1] <= got[1] + cfg.recentre_conf:
            break  # centred on one pip of a face read whole before (a three's corner
            #        pip, alone, is a one): the whole face stands
        got = again
    value, conf, best, fits, scale, origin = got
    if best is None or value == 0 or conf < cfg.min_confidence:
        _keep_or_defer(found, _matched(crop, cx, cy, half, size, surface_mask, cfg, room,
                                       in_clear=in_clear, found=found, nadir=nadir), near,
                       unread, cx, cy)
        return
    x = origin[0] + best.centre[0] / scale
    y = origin[1] + best.centre[1] / scale
    if value == 1:
        # a lone pip may be a corner of a face whose other pips were missed: matched
        # whole, searching as far as that face's centre
        other = _matched(crop, x, y, half, size, surface_mask,
                         dataclasses.replace(cfg, match_search=cfg.one_search), room,
                         cfg.one_spot, in_clear, found, nadir)
        if other is not None and other.value != 1:
            _keep(found, other, near)
            return
    if not _inside(surface_mask, x, y) or any(math.hypot(x - d.x, y - d.y) < near
                                              for d in found):
        return
    face = functools.cache(functools.partial(_top_face, crop, origin[0] + half,
                                             origin[1] + half, half, best, cfg))
    if not _is_die(value, fits, scale, size, cfg, face, _crop_edge(crop, x, y, half, cfg)):
        _keep(found, _matched(crop, cx, cy, half, size, surface_mask, cfg, room,
                              in_clear=in_clear, found=found, nadir=nadir), near)
        return  # its pips were found, and judged no flat die's: not the network's to rescue
    beside = [(bx, by, rd) for bx, by, rd in ((origin[0] + px / scale, origin[1] + py / scale, rd)
                                              for px, py, rd in best.extra_at)
              if all(math.hypot(bx - d.x, by - d.y) > cfg.touching_radius * size
                     for d in found)]  # the other die's pips are no second face
    flat = ((_second_face(beside, x, y, nadir, cfg) < cfg.extra_pips_cocked
             or _square_pips(value, fits, cfg))
            and _is_flat(value, fits, scale, size, cfg, face))
    aspect = _pip_aspect(value, fits)
    clear = False
    # a pip beside the face towards what is near: a side the die turns to what props it up
    # ... or a face shortened towards it
    leans = surface_mask is not None and (
        _side_towards(beside, x, y, room, size, cfg)
        or _shortened_towards(value, fits, scale, size, x, y, room, cfg))
    flat = flat and not leans
    tight = surface_mask is not None and room(x, y) < cfg.clear_room * size
    way = _way_out(x, y, room)
    stretched = flat and _stretched(aspect, fits, scale, size, cfg, way)
    if tight and stretched and not (aspect is not None and _long_along(value, fits, way, cfg)):
        flat = False  # beside a checker it may lean on: its pips or face must be squarer
    if (not flat and not leans
            and (room(x, y) >= cfg.clear_room_few * size if aspect is None
                 else aspect <= cfg.clear_aspect_max and room(x, y) >= cfg.clear_room * size)):
        # nothing there to lean on: the pips' stretch or a merged outline misled, if the
        # face read whole agrees (four pips or more: their grid shows a lean, and a grid
        # stretched past ``clear_aspect_max`` is a lean whatever lies round the die)
        m = match_face(*_patch_edge(crop, x, y, half, size), cfg)
        flat = m.value == value and m.score >= cfg.clear_score
        clear = flat
    if not flat and _in_open(room, x, y, size, cfg):
        flat = clear = True  # nothing to lean on but the other die (see ``in_clear``)
    die = DieRead(_net_value(crop, x, y, size, value, cfg), x, y, flat, conf)
    if clear or (flat and stretched):
        # flat while no other die lies beside it: in the clear, or (no checker near, or it
        # would not be flat) stretched as a die leaning on the other would be
        in_clear.append(die)
    found.append(die)
