"""A simple doubling-cube detector on the canonical view.

The cube lies on the bar: in the middle when nobody owns it, at the end on its owner's side
once doubled and taken. The calibration frame (starting position) shows it in the middle, so
its face colour there is learnt against the empty bar beside it. A frame is read by asking at
which of the three places something stands out from the bar round it the way the cube did
(a ratio, so the light may change), and is narrower than the bar (a checker is not).

A centred cube is reported as 1 (it shows its 64 face, and nobody has doubled yet); an owned
one as 2 with low confidence, and :func:`read_cube_face` reads its number where the pipeline
has the camera frame (``Vision._cube_value``).
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from pibg.observation import CubeRead, Owner
from pibg.vision.geometry import Array, Layout, VisionConfig

_OWNERS: tuple[Owner, Owner, Owner] = ("center", "white", "black")


def sample_box(img: Array, x: float, y: float, r: int) -> Array:
    """Mean colour of the (2r+1)-pixel box round (x, y), kept inside the image."""
    h, w = img.shape[:2]
    xi = int(min(max(round(x), r), w - r - 1))
    yi = int(min(max(round(y), r), h - r - 1))
    return np.asarray(img[yi - r:yi + r + 1, xi - r:xi + r + 1].reshape(-1, 3).mean(0),
                      np.float32)


def _face_boxes(layout: Layout, img: Array, x: float, ys: Array) -> Array:
    """The upper quartile of each channel over a box a little smaller than a cube's face,
    round (x, y) for each y: the face's colour, its printed number hardly counting.
    Returns (len(ys), 3) BGR."""
    r = max(2, round(0.18 * layout.u))
    h, w = img.shape[:2]
    xi = int(min(max(round(x), r), w - r - 1))
    yi = np.clip(np.round(np.asarray(ys, np.float64)).astype(int), r, h - r - 1)
    boxes = np.stack([img[y - r:y + r + 1, xi - r:xi + r + 1].reshape(-1, 3) for y in yi])
    q = int(0.75 * (boxes.shape[1] - 1))
    return np.asarray(np.partition(boxes, q, axis=1)[:, q], np.float32)


def face_colour(layout: Layout, img: Array, x: float, y: float) -> Array:
    """The colour (BGR) of a cube's face round (x, y) (see :func:`_face_boxes`)."""
    return np.asarray(_face_boxes(layout, img, x, np.array([y]))[0], np.float32)


def _box_means(ii: Array, xs: Array, ys: Array, r: int) -> Array:
    """Mean colour of (2r+1)-pixel boxes round (xs, ys) from an integral image (N, 3)."""
    h, w = ii.shape[0] - 1, ii.shape[1] - 1
    xi = np.clip(np.round(xs).astype(int), r, w - r - 1)
    yi = np.clip(np.round(ys).astype(int), r, h - r - 1)
    x0, x1, y0, y1 = xi - r, xi + r + 1, yi - r, yi + r + 1
    s = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
    return np.asarray(s / float((2 * r + 1) ** 2), np.float32)


def place_scores(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
                 bar_centre: Array | None = None, integral: Array | None = None
                 ) -> list[float]:
    """The log-odds of :func:`locate` for the three places."""
    return [s for s, _ in locate(cfg, layout, img, cube_bg, bar_centre, integral)]


def locate(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
           bar_centre: Array | None = None, integral: Array | None = None,
           checkers: Array | None = None) -> list[tuple[float, tuple[float, float]]]:
    """Log-odds that the cube lies at each place (middle, White's end, Black's end) of the
    canonical image (BGR; ``integral`` its ``cv2.integral`` when the caller has it), and
    where along the bar it fits best there (canonical x, y).

    The cube is told by its contrast with the bar right beside it in the same frame (a square
    narrower than the bar, unlike a checker that fills the bar's width), as a log ratio per
    channel, so a change of light since calibration, which scales the bar and the cube alike
    even where it is not uniform, does not move it. The contrast expected is learnt at
    calibration: ``cube_bg[0]`` (the cube's face colour, BGR, :func:`face_colour`) against
    ``bar_centre`` (the empty bar next to the middle). Each of the three places is searched a
    little along the bar: the cube is pushed, not placed on a mark.

    ``checkers``, (N, 2) canonical centres of checkers known to stand on the bar, are not
    compared with: along the bar, only the sides clear of them count (a centred cube with a
    light checker against it is no checker, and the checker is known).
    """
    u = layout.u
    ii = cv2.integral(img) if integral is None else integral
    places = layout.cube_places()
    bar = np.asarray(bar_centre if bar_centre is not None else cube_bg[1], np.float32)
    want = np.log((np.asarray(cube_bg[0], np.float32) + 4.0) / (bar + 4.0))
    sigma = cfg.cube_contrast_sigma
    r_side = max(1, round(0.08 * u))
    side = 0.4 * u
    top = layout.origin[1] + 0.1 * u
    bottom = layout.origin[1] + (layout.profile.height - 0.1) * u
    dys = np.arange(-0.625, 0.626, 0.125) * u

    def llr(inner: Array, around: Array) -> Array:
        c = np.log((inner + 4.0) / (around + 4.0))
        return np.asarray(((c / sigma) ** 2).sum(-1) - (((c - want) / sigma) ** 2).sum(-1))

    # Beside the cube on the bar: left and right, and along the bar towards the middle (both
    # ways in the middle). A checker is as wide as the bar and round, so one of these lies on
    # it wherever the sample sits on it.
    along = {"center": (-1.0, 1.0), "white": (-1.0,), "black": (1.0,)}
    scores: list[tuple[float, tuple[float, float]]] = []
    for owner in _OWNERS:
        x, y = places[owner]
        ys = np.clip(y + dys, top, bottom)
        xs = np.full_like(ys, x)
        inner = _face_boxes(layout, img, x, ys)
        beside = (_box_means(ii, xs - side, ys, r_side) + _box_means(ii, xs + side, ys, r_side)) / 2
        worst = llr(inner, beside)
        for sgn in along[owner]:
            end = ys + sgn * 0.45 * u
            ok = llr(inner, _box_means(ii, xs, end, r_side))
            if checkers is not None and len(checkers):
                d = np.hypot(checkers[None, :, 0] - x, checkers[None, :, 1] - end[:, None])
                ok = np.where(d.min(1) < 0.5 * layout.checker_px, np.inf, ok)
            worst = np.minimum(worst, ok)
        j = int(np.argmax(worst))
        scores.append((float(worst[j]), (float(x), float(ys[j]))))
    return scores


def find_cube(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array, gain: Array,
              bar_centre: Array | None = None, integral: Array | None = None
              ) -> CubeRead | None:
    """Where the cube lies (see :func:`locate`): the place most like it (a game has its
    cube somewhere), or None when even that one looks far from it (covered, or off the bar)."""
    return find_cube_at(cfg, layout, img, cube_bg, bar_centre, integral)[0]


def find_cube_at(cfg: VisionConfig, layout: Layout, img: Array, cube_bg: Array,
                 bar_centre: Array | None = None, integral: Array | None = None,
                 checkers: Array | None = None
                 ) -> tuple[CubeRead | None, tuple[float, float]]:
    """:func:`find_cube`, and where the cube was seen (canonical x, y); ``checkers`` as for
    :func:`locate`."""
    found = locate(cfg, layout, img, cube_bg, bar_centre, integral, checkers)
    scores = [sc for sc, _ in found]
    i = int(np.argmax(scores))
    at = found[i][1]
    if scores[i] < -cfg.cube_absent:
        return None, at
    owner = _OWNERS[i]
    s = np.asarray(scores)
    others = np.delete(s, i)
    margin = float(s[i] - max(others.max(), 0.0))
    conf = float(1.0 - np.exp(-max(margin, 0.0) / 10.0))
    if owner == "center":
        return CubeRead(1, owner, conf), at
    return CubeRead(2, owner, conf * 0.3), at


#: The numbers a cube shows, and the two digits of each two-digit one (left, right).
CUBE_FACES: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
_PAIRS: dict[int, tuple[int, int]] = {16: (1, 6), 32: (3, 2), 64: (6, 4)}
#: The fonts the digits are drawn in to compare with (others are read as well: the tests read
#: faces printed in fonts left out of this list).
TEMPLATE_FONTS: tuple[int, ...] = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                                   cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)
_WORK = 128      #: the patch is read at this size (pixels)
_FACE = 64       #: the face turned upright: its long side in pixels
_GLYPH = 20      #: a digit is compared in a box this size (pixels)
_ASPECT_W = 0.5  #: weight of a glyph's aspect (log width/height) against its shape
_CUTS = np.linspace(0.25, 0.75, 9)  #: where a two-digit number may be cut (its width)
_MIN_SCORE = 0.2  #: a best match below this is no reading
#: A region this square (short side / long) or more, less than a face's 0.75, is a top face
#: with a side face lit alike (seen from a slant, a side shows as a strip up to half a face
#: wide); it counts this much against a square face as bright.
_LONG = 0.55
_LONG_WEIGHT = 0.9


def read_cube_face(patch: Array) -> tuple[int | None, float]:
    """The number on the cube's top face in ``patch`` (square, BGR or grey, the cube near its
    middle, the face a fifth to three quarters of its width): 2, 4, 8, 16, 32 or 64 and a
    confidence in [0.5, 1] (how far the best reading leads the next), or (None, 0) if
    unreadable.

    A top-down patch (the pipeline cuts it from the camera frame through the board's
    homography) shows the face as a square whatever the camera's slant; it is found as the most
    square bright region that stands out from what lies round it (:func:`_face_rect`), turned
    upright, and its number read from the ink inside (:func:`_number_ink`): dark figures on a
    light face, in any colour (the patch's weakest channel is read, in which wood, felt and
    coloured ink are dark and a white or ivory face is light).

    The number is printed square to the face's edges, so four ways up remain; in each the ink
    is matched as one digit (2, 4, 8) or as two side by side (16, 32, 64), cut where the pair
    matches best, so figures run together (a 6 touching its 4) or a 2 broken in two by the blur
    are read whole. Digits are compared by shape (stretched to one box) and by aspect with the
    digits drawn in a few fonts (:data:`TEMPLATE_FONTS`), not by counting glyphs and holes, which
    blur and merging change.
    """
    grey = np.asarray(patch.min(axis=2) if patch.ndim == 3 else patch)
    if grey.shape[:2] != (_WORK, _WORK):
        up = grey.shape[0] < _WORK
        grey = cv2.resize(grey, (_WORK, _WORK),
                          interpolation=cv2.INTER_CUBIC if up else cv2.INTER_AREA)
    found = _face_rect(grey)
    if found is None:
        return None, 0.0
    rect, long = found
    read = [s for s in (_read_face(grey, r) for r in (_ends(rect) if long else [rect]))
            if s is not None]
    if not read:
        return None, 0.0
    scores = max(read, key=lambda s: max(s.values()))
    ranked = sorted(scores, key=lambda v: scores[v], reverse=True)
    best, second = ranked[0], ranked[1]
    if scores[best] < _MIN_SCORE:
        return None, 0.0
    margin = scores[best] - scores[second]
    return best, float(min(1.0, 0.5 + 2.5 * margin))


_Rect = tuple[tuple[float, float], tuple[float, float], float]  #: as ``cv2.minAreaRect``'s


def _read_face(grey: Array, rect: _Rect) -> dict[int, float] | None:
    """Each number's score for the face ``rect`` of ``grey``, or None without ink there."""
    ink = _number_ink(_upright(grey, rect))
    return None if ink is None else number_scores(ink)


def _ends(rect: _Rect) -> list[_Rect]:
    """The two squares at the ends of a long rectangle ``rect``: a cube's top face and the
    side face below it lit alike make one region, the top face at one end of it."""
    (cx, cy), _, angle = rect
    box = np.asarray(cv2.boxPoints(rect), np.float64)
    e1, e2 = box[1] - box[0], box[2] - box[1]
    long, short = (e1, e2) if np.linalg.norm(e1) >= np.linalg.norm(e2) else (e2, e1)
    side = float(np.linalg.norm(short))
    u = long / max(float(np.linalg.norm(long)), 1e-9)
    shift = (float(np.linalg.norm(long)) - side) / 2.0
    return [((float(cx + k * shift * u[0]), float(cy + k * shift * u[1])), (side, side), angle)
            for k in (-1.0, 1.0)]


def _face_rect(grey: Array) -> tuple[_Rect, bool] | None:
    """The cube's top face in ``grey`` (square, _WORK pixels) as a rotated rectangle
    (``cv2.minAreaRect``), and whether it is a long one (the top face and a side face lit
    alike, as one region: the face is at one of its ends, see :func:`_ends`); or None.

    The patch is cut at several levels between its dark and the light near its middle; at each,
    the regions lying wholly inside the patch near its middle, of a face's size, square (side
    ratio) and full (area / rectangle: a checker's disc is not), are scored by squareness x
    fullness x how much lighter they are than a ring round them. The best one over all levels
    wins: the face alone at the level where it parts from a side face lit as brightly, or from
    a light board or checker beside it.
    """
    h, w = grey.shape
    middle = grey[h // 4:3 * h // 4, w // 4:3 * w // 4]
    lo, hi = float(np.percentile(grey, 5)), float(np.percentile(middle, 98))
    if hi - lo < 20.0:
        return None
    best: tuple[float, _Rect, bool] | None = None
    opener = np.ones((5, 5), np.uint8)
    for f in np.linspace(0.3, 0.9, 9):
        mask = cv2.morphologyEx((grey >= lo + f * (hi - lo)).astype(np.uint8),
                                cv2.MORPH_OPEN, opener)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            hull = cv2.convexHull(c)  # figures reaching the face's edge leave no notch
            area = float(cv2.contourArea(hull))
            if not (0.18 * w) ** 2 <= area <= (0.75 * w) ** 2:
                continue
            bx, by, bw, bh = cv2.boundingRect(hull)
            if bx < 2 or by < 2 or bx + bw > w - 2 or by + bh > h - 2:
                continue
            rect = cv2.minAreaRect(hull)
            (cx, cy), (rw, rh), _ = rect
            if np.hypot(cx - w / 2, cy - h / 2) > 0.3 * w:
                continue
            square = min(rw, rh) / max(rw, rh, 1.0)
            full = area / max(rw * rh, 1.0)
            long = _LONG <= square < 0.75
            if square < _LONG or full < 0.85:
                continue
            inner = np.zeros_like(mask)
            cv2.drawContours(inner, [hull], -1, (1,), -1)
            d = max(3, round(0.1 * np.sqrt(area)))
            ring = cv2.dilate(inner, np.ones((2 * d + 1, 2 * d + 1), np.uint8)) - inner
            if ring.sum() < 10:
                continue
            lift = (float(np.median(grey[inner > 0])) - float(np.median(grey[ring > 0]))) / hi
            # a long region scores as the square it holds, a little less
            score = (_LONG_WEIGHT if long else square) * full * lift
            if best is None or score > best[0]:
                best = (score, ((float(cx), float(cy)), (float(rw), float(rh)), float(rect[2])),
                        long)
    return None if best is None else (best[1], best[2])


def _upright(grey: Array, rect: _Rect, inset: float = 0.05) -> Array:
    """The face ``rect`` turned square to the image axes, its sides kept in proportion (long
    side _FACE pixels), a rim of ``inset`` of its size cut off."""
    (cx, cy), _, _ = rect
    box = np.asarray(cv2.boxPoints(rect), np.float32)  # consecutive corners
    ctr = np.array([cx, cy], np.float32)
    box = ctr + (box - ctr) * (1.0 - 2.0 * inset)
    e1 = float(np.linalg.norm(box[1] - box[0]))
    e2 = float(np.linalg.norm(box[2] - box[1]))
    k = _FACE / max(e1, e2, 1.0)
    fw, fh = max(8, round(e2 * k)), max(8, round(e1 * k))
    dst = np.array([[0, fh - 1], [0, 0], [fw - 1, 0]], np.float32)
    m = cv2.getAffineTransform(box[:3], dst)
    return np.asarray(cv2.warpAffine(grey, m, (fw, fh), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE))


def _number_ink(face: Array) -> Array | None:
    """The number's ink on the upright ``face`` (uint8 0/1), or None when there is none.

    Ink is what lies well below the face's local light (a dilation, so light falling across
    the face does not count). Kept are the pieces that lie mostly off the rim (edges, bevels,
    a side face's figures lie on it; a face found with a sliver of its side face is longer one
    way, and the rim is wider there), are not hairlines (the edge of a face found a little
    large, render rnx2_11) and are not small specks away from the middle.
    """
    f = face.astype(np.float32)
    light = cv2.dilate(cv2.GaussianBlur(f, (0, 0), 1.0), np.ones((11, 11), np.uint8))
    paper, dark = float(np.percentile(f, 75)), float(np.percentile(f, 2))
    if paper - dark < 20.0 or dark > 0.8 * paper:
        return None
    ink = ((light - f) > 0.45 * (paper - dark)).astype(np.uint8)
    n, lab, stats, centres = cv2.connectedComponentsWithStats(ink)
    fh, fw = f.shape
    s = min(fh, fw)
    bx, by = 0.1 * s + (fw - s) / 2, 0.1 * s + (fh - s) / 2
    yy, xx = np.mgrid[0:fh, 0:fw]
    rim = (xx < bx) | (xx >= fw - bx) | (yy < by) | (yy >= fh - by)
    pieces: list[tuple[int, int, float, float]] = []
    for i in range(1, n):
        _x, _y, w, h, a = (int(v) for v in stats[i])
        if a < 0.004 * s * s or int((rim & (lab == i)).sum()) > 0.5 * a:
            continue
        # a hairline near the face's edge and along it: the edge of a face found a little
        # large (render rnx2_11), no figure's stroke (a 1 stands nearer the middle)
        off = abs(centres[i][0] - fw / 2) if h > w else abs(centres[i][1] - fh / 2)
        if min(w, h) < 0.05 * s or (max(w, h) >= 4 * min(w, h) and off > 0.3 * s):
            continue
        pieces.append((i, max(w, h), float(centres[i][0]), float(centres[i][1])))
    if not pieces:
        return None
    biggest = max(p[1] for p in pieces)
    keep = [i for i, ext, cx, cy in pieces if ext >= 0.3 * biggest
            or (abs(cx - fw / 2) <= 0.3 * fw and abs(cy - fh / 2) <= 0.3 * fh)]
    out = np.isin(lab, keep).astype(np.uint8)
    if out.sum() < 0.01 * s * s:
        return None
    return out


def _trim(ink: Array) -> Array | None:
    """``ink`` cut to the box round its pixels, or None if it has none."""
    rows, cols = np.flatnonzero(ink.any(1)), np.flatnonzero(ink.any(0))
    if len(rows) == 0:
        return None
    return ink[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def _glyph(ink: Array) -> tuple[Array, float] | None:
    """A glyph (trimmed ink) as a vector to compare: stretched to _GLYPH - 4 pixels square in a
    _GLYPH box, blurred a little, zero mean and unit length; with its log aspect (width /
    height)."""
    h, w = ink.shape
    if h < 3:
        return None
    box = np.zeros((_GLYPH, _GLYPH), np.float32)
    box[2:-2, 2:-2] = cv2.resize(ink.astype(np.float32), (_GLYPH - 4, _GLYPH - 4),
                                 interpolation=cv2.INTER_AREA)
    box = np.asarray(cv2.GaussianBlur(box, (0, 0), 0.8), np.float32)
    box -= box.mean()
    norm = float(np.linalg.norm(box))
    if norm == 0.0:
        return None
    return (box / norm).ravel(), float(np.log(w / h))


@cache
def _digit_templates() -> tuple[Array, Array, tuple[int, ...], Array]:
    """The digits of the cube's numbers drawn in :data:`TEMPLATE_FONTS` at three weights:
    vectors (n, _GLYPH**2) and log aspects (n,), grouped by digit; the digits in order, and
    where each one's group starts."""
    vecs: list[Array] = []
    aspects: list[float] = []
    digits = tuple(sorted({int(ch) for v in CUBE_FACES for ch in str(v)}))
    starts: list[int] = []
    for d in digits:
        starts.append(len(vecs))
        for font in TEMPLATE_FONTS:
            for thick in (2, 4, 6):
                img = np.zeros((120, 120), np.uint8)
                cv2.putText(img, str(d), (20, 95), font, 2.0, (255,), thick, cv2.LINE_AA)
                ink = _trim((img > 127).astype(np.uint8))
                g = None if ink is None else _glyph(ink)
                if g is not None:
                    vecs.append(g[0])
                    aspects.append(g[1])
    return np.stack(vecs), np.array(aspects, np.float32), digits, np.array(starts)


def number_scores(ink: Array) -> dict[int, float]:
    """How well the ink of a face's number (0/1, upright to within a quarter turn) reads as
    each of :data:`CUBE_FACES`: the best over the four quarter turns, of the one glyph as a
    single digit, or of a cut across the reading direction into two digits (the mean of
    both). A glyph matches a digit as well as its best template: their correlation less the
    difference of their aspects (weighted :data:`_ASPECT_W`)."""
    out = dict.fromkeys(CUBE_FACES, -1.0)
    whole = _trim(ink)
    if whole is None:
        return out
    # Every glyph to compare, as (turn, cut or -1 for the whole, side 0/1).
    keys: list[tuple[int, int, int]] = []
    glyphs: list[tuple[Array, float]] = []
    for turn in range(4):
        glyph = np.rot90(whole, turn)
        g = _glyph(glyph)
        if g is not None:
            keys.append((turn, -1, 0))
            glyphs.append(g)
        width = glyph.shape[1]
        for cut in sorted({round(c * width) for c in _CUTS}):
            if not 0 < cut < width:
                continue
            for side, part in enumerate((glyph[:, :cut], glyph[:, cut:])):
                t = _trim(part)
                g = None if t is None else _glyph(t)
                if g is not None:
                    keys.append((turn, cut, side))
                    glyphs.append(g)
    if not glyphs:
        return out
    vecs, aspects, digits, starts = _digit_templates()
    v = np.stack([g[0] for g in glyphs])
    a = np.array([g[1] for g in glyphs], np.float32)
    s = v @ vecs.T - _ASPECT_W * np.abs(a[:, None] - aspects[None, :])
    best = np.maximum.reduceat(s, starts, axis=1)  # (glyphs, digits)
    col = {d: i for i, d in enumerate(digits)}
    halves: dict[tuple[int, int, int], Array] = {}
    for k, row in zip(keys, best, strict=True):
        turn, cut, _side = k
        if cut < 0:
            for val in CUBE_FACES:
                if val < 10:
                    out[val] = max(out[val], float(row[col[val]]))
        else:
            halves[k] = row
    for (turn, cut, side), left in halves.items():
        right = halves.get((turn, cut, 1)) if side == 0 else None
        if right is None:
            continue
        for val, (da, db) in _PAIRS.items():
            out[val] = max(out[val], float(left[col[da]] + right[col[db]]) / 2.0)
    return out
