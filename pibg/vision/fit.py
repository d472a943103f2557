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

Measured on the render sets (``benchmarks/leave_one_out.py``'s boards, start frame against
each frame of its set-up): on every clean frame and every frame with an arm no small move
fits better (the best gains -0.09 to 0.00 in correlation); on every start frame shifted 10 or
20 px, turned 3 or 8 degrees, or 10 % nearer or farther, one does (+0.18 to +1.01).

>>> import numpy as np
>>> view = np.zeros((160, 240, 3), np.uint8)
>>> view[40:120, 60:180] = 200
>>> ref = edge_map(view)
>>> compare(ref, edge_map(view))[1] <= 0.0
True
>>> compare(ref, edge_map(np.roll(view, 16, axis=1)))[1] > 0.1
True
"""

from __future__ import annotations

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


def compare(reference: Array, edges: Array) -> tuple[float, float]:
    """How well the frame's ``edges`` fit the start frame's ``reference`` as they stand (their
    correlation), and how much better they fit it moved a little (shifted, turned or scaled:
    the best of the moves tried, less the fit as they stand): that is above 0 where the
    camera or the board moved, at most about 0 where it did not. (1, 0) where the maps differ
    in size or are too small to tell (a calibration for another view)."""
    if reference.shape != edges.shape or min(reference.shape) <= 2 * BORDER + 2:
        return 1.0, 0.0
    m = BORDER
    h, w = reference.shape
    ref = np.ascontiguousarray(reference[m:h - m, m:w - m])
    fits = cv2.matchTemplate(np.ascontiguousarray(edges), ref, cv2.TM_CCOEFF_NORMED)
    here = float(fits[m, m])
    fits[m, m] = -1.0
    best = float(fits.max())
    for turn, scale in MOVES:
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), turn, scale)
        moved = cv2.warpAffine(edges, rot, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
        best = max(best, float(cv2.matchTemplate(moved, ref, cv2.TM_CCOEFF_NORMED).max()))
    return here, best - here
