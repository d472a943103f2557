"""Does the calibration still fit the frame? The board's edges against the start frame's.

A camera knocked or a board pushed after calibration moves everything under the calibration's
corners; a light that changes (a lamp switched on, the camera's white balance drifting under a
warm evening light) changes every colour but moves no edge. So the test is by edges, not by
colour: the start frame's top-down view, shrunk to a coarse map of edge strength
(:func:`edge_map`, one cell per ``CELL`` x ``CELL`` view pixels), is kept in the calibration;
each frame's map is compared with it as it stands and shifted, turned or scaled a little
(:func:`compare`). Where some small move of the frame fits the start frame's edges better than
none, the camera or the board moved; checkers moved, dice thrown or an arm over the board
add and hide edges but fit no move better.

The move found (to a cell, then to a pixel or two by :func:`refine`) lets the camera be
followed rather than the game stopped: :class:`~pibg.vision.pipeline.Vision` moves the
board's corners with it. The points repeat a point's width apart, so a view one point over
fits the points' edges as well; the bar does not repeat, and :func:`bar_offset` tells a view
a point off by it.

Measured on the render sets (``benchmarks/leave_one_out.py``'s boards, start frame against
each frame of its set-up): on every clean frame and every frame with an arm no small move
fits better (the best gains -0.09 to 0.00 in correlation); on every start frame shifted 10 to
60 px, turned 3 or 8 degrees, or 8 to 15 % nearer or farther, one does (+0.09 to +1.01).

>>> import numpy as np
>>> view = np.zeros((160, 240, 3), np.uint8)
>>> view[40:120, 60:180] = 200
>>> ref = edge_map(view)
>>> compare(ref, edge_map(view)).gain <= 0.0
True
>>> moved = compare(ref, edge_map(np.roll(view, 16, axis=1)))
>>> moved.gain > 0.1, round(float(moved.move[0, 2]))
(True, 16)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from pibg.vision.geometry import Array

#: View pixels per cell of the edge map (a side).
CELL = 8
#: Edge strength per hex digit of a stored map (:func:`encode`).
LEVEL = 0.2
#: The moves tried: shifts of up to ``SHIFTS`` cells each way, alone and after each of these
#: turns (degrees) and scales about the view's centre.
SHIFTS = 4
MOVES = ((-4.0, 1.0), (-2.0, 1.0), (2.0, 1.0), (4.0, 1.0), (0.0, 0.95), (0.0, 1.05))
#: Cells left out round the map's edge (what a shift brings in from beyond it).
BORDER = SHIFTS


def edge_map(view: Array) -> Array:
    """The top-down ``view``'s edge strength, one cell per ``CELL`` pixels: the colour
    gradient's magnitude (the strongest channel's, at half the cell's size) over the view's
    median, log-scaled, so the light's level drops out; float32, (height // CELL,
    width // CELL)."""
    h, w = (d // CELL for d in view.shape[:2])
    # shrunk by a whole factor, which OpenCV does fastest (the last few pixels left out)
    small = cv2.resize(view[:h * CELL, :w * CELL], (2 * w, 2 * h),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    if small.ndim == 2:
        small = small[..., None]
    shape = small.shape
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0).reshape(shape)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1).reshape(shape)
    sq = gx * gx + gy * gy
    g = np.sqrt(np.maximum.reduce([sq[..., c] for c in range(sq.shape[-1])]))
    g = np.log1p(g / (float(np.median(g)) + 1.0))
    return np.asarray(cv2.resize(g, (w, h), interpolation=cv2.INTER_AREA), np.float32)


def encode(edges: Array) -> tuple[str, ...]:
    """A map as text, a row a string, a hex digit a cell (``LEVEL`` a step): for the
    calibration file."""
    q = np.clip(np.round(np.asarray(edges) / LEVEL), 0, 15).astype(int)
    return tuple("".join(f"{v:x}" for v in row) for row in q)


def decode(rows: tuple[str, ...] | list[str]) -> Array:
    """The map that :func:`encode` wrote.

    :raises ValueError: rows of different lengths, or a character that is no hex digit.
    """
    if not rows:
        return np.zeros((0, 0), np.float32)
    if len({len(r) for r in rows}) != 1:
        raise ValueError("the edge map's rows differ in length")
    bad = next((c for r in rows for c in r if c not in "0123456789abcdefABCDEF"), None)
    if bad is not None:
        raise ValueError(f"{bad!r} is no hex digit")
    return np.asarray([[int(c, 16) for c in r] for r in rows], np.float32) * LEVEL


@dataclass(frozen=True, slots=True)
class Fit:
    """How a frame's edges fit the start frame's (:func:`compare`)."""

    here: float   #: their correlation as they stand
    gain: float   #: how much better the best small move fits (above 0: the view moved)
    #: That move, in the top-down view's pixels: the affine (2 x 3) taking a place of the
    #: start frame's view to where it lies in this frame's (identity where nothing fits
    #: better).
    move: Array


def _peak(fits: Array) -> tuple[float, float, float]:
    """The highest of a match map and where it lies, to a fraction of a cell (a parabola
    through it and its neighbours each way)."""
    y, x = np.unravel_index(int(np.argmax(fits)), fits.shape)
    best = float(fits[y, x])

    def vertex(a: float, b: float, c: float) -> float:
        den = a - 2 * b + c
        return 0.0 if den >= 0 else float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))

    fx = vertex(fits[y, x - 1], best, fits[y, x + 1]) if 0 < x < fits.shape[1] - 1 else 0.0
    fy = vertex(fits[y - 1, x], best, fits[y + 1, x]) if 0 < y < fits.shape[0] - 1 else 0.0
    return best, float(x) + fx, float(y) + fy


def compare(reference: Array, edges: Array) -> Fit:
    """How well the frame's ``edges`` fit the start frame's ``reference`` as they stand (their
    correlation), and how much better they fit moved a little (shifted, turned or scaled:
    the best of the moves tried, less the fit as they stand), with that move: the gain is
    above 0 where the camera or the board moved, at most about 0 where it did not. A fit
    of 1 gaining nothing where the maps differ in size or are too small to tell (a
    calibration for another view)."""
    same = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if reference.shape != edges.shape or min(reference.shape) <= 2 * BORDER + 2:
        return Fit(1.0, 0.0, same)
    m = BORDER
    h, w = reference.shape
    ref = np.ascontiguousarray(reference[m:h - m, m:w - m])
    fits = cv2.matchTemplate(np.ascontiguousarray(edges), ref, cv2.TM_CCOEFF_NORMED)
    here = float(fits[m, m])
    fits[m, m] = -1.0
    best, sx, sy = _peak(fits)
    warp: Array = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for turn, scale in MOVES:
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), turn, scale)
        moved = cv2.warpAffine(edges, rot, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
        b, x, y = _peak(cv2.matchTemplate(moved, ref, cv2.TM_CCOEFF_NORMED))
        if b > best:
            best, sx, sy, warp = b, x, y, rot
    if best <= here:
        return Fit(here, best - here, same)
    # in cells: a place p of the start frame's map lies at warp^-1 (p + shift) in this one's
    inv = cv2.invertAffineTransform(warp)
    shift = np.array([[1.0, 0.0, sx - m], [0.0, 1.0, sy - m], [0.0, 0.0, 1.0]])
    cells = (np.vstack([np.asarray(inv), [0.0, 0.0, 1.0]]) @ shift)[:2]
    # ... and in the view's pixels (a cell's centre at CELL * (c + 0.5) - 0.5)
    c = CELL / 2 - 0.5
    to_px = np.array([[CELL, 0.0, c], [0.0, CELL, c], [0.0, 0.0, 1.0]])
    px = to_px @ np.vstack([cells, [0.0, 0.0, 1.0]]) @ np.linalg.inv(to_px)
    return Fit(here, best - here, px[:2])


#: :func:`refine` tries the move found shifted by these many view pixels each way.
REFINE = (-4.0, -2.0, 0.0, 2.0, 4.0)


def refine(reference: Array, view: Array, move: Array) -> Array:
    """``move`` (as :func:`compare` found it, to a fraction of a cell at best) made good to a
    pixel or two: the top-down ``view`` taken back by it, and by it shifted ``REFINE``
    pixels each way, and the shift whose edges fit ``reference`` best as they stand kept
    (the cells are drawn anew from the view each time, so the fit is not the cells' own)."""
    m = BORDER
    h, w = reference.shape
    ref = np.ascontiguousarray(reference[m:h - m, m:w - m])
    size = (view.shape[1], view.shape[0])
    best: tuple[float, Array] = (-2.0, np.asarray(move, np.float64))
    for dy in REFINE:
        for dx in REFINE:
            t = np.asarray(move, np.float64) + np.array([[0.0, 0.0, dx], [0.0, 0.0, dy]])
            back = cv2.warpAffine(view, t, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
            edges = np.ascontiguousarray(edge_map(back)[m:h - m, m:w - m])
            score = float(cv2.matchTemplate(edges, ref, cv2.TM_CCOEFF_NORMED)[0, 0])
            if score > best[0]:
                best = (score, t)
    return best[1]


def bar_offset(reference: Array, edges: Array, bar_x: float, reach: float) -> float:
    """How far (view pixels, to a cell) the bar's edges in ``edges`` lie from the start
    frame's, along the board: the columns' summed edge strength within ``reach`` view
    pixels of the bar's middle ``bar_x``, matched with the start frame's (shifts up to the
    same reach). The points repeat a point's width apart and match as well one point over;
    the bar does not: a view followed a point off shows it here."""
    lo = max(0, int((bar_x - reach) // CELL))
    hi = min(reference.shape[1], int(np.ceil((bar_x + reach) / CELL)))
    ref = reference.sum(axis=0, dtype=np.float32)[None, lo:hi]
    now = edges.sum(axis=0, dtype=np.float32)[None]
    half = (hi - lo) // 2
    first = max(0, lo - half - (hi - lo) % 2)
    fits = cv2.matchTemplate(now[:, first:min(now.shape[1], hi + half)], ref,
                             cv2.TM_CCOEFF_NORMED)[0]
    return float((first + int(np.argmax(fits)) - lo) * CELL)
