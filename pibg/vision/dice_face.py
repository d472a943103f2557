"""A die's top face outline, measured around its read pips (see :mod:`pibg.vision.dice`).

A die lying flat shows its top face as a square of about the die's edge in the top-down
view, whatever the camera shows of its sides: the sides (and a shadow) only ever widen the
die's outline on one end of each axis (the sides face the camera, the shadow falls away
from the light), never on both. So along each of the face's two axes the nearer of the two
edges found outward from the pips' centre is the top face's own edge, and for a flat die
both axes give about half the edge. A leaning die shows its read face foreshortened along
the lean: one axis is short. This tells a cocked die by its face's shape, not by whatever
other pips show beside it (a flat die's sides show pips too, seen from an angle).

An edge is where the colour changes most along a ray outward from the centre (the top face
against its bevel, or the die against the board); rays run between the pips' columns and
start past the outermost pip's rim on their side (a pip's rim is an edge too).

>>> from pibg.vision.dice_read import draw_die
>>> img = draw_die(4, size=36, angle=0.0, margin=0.5)
>>> shape = top_face(img, (35.5, 35.5), 0.0, 36.0)
>>> 0.9 < shape.aspect < 1.1 and 15 < shape.half_u < 21
True
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from pibg.vision.dice_config import FloatArray, Image


@dataclass(frozen=True, slots=True)
class FaceShape:
    """The top face's half extents along its two axes (crop pixels), its angle (degrees),
    and the mean edge strength found (Lab units per pixel)."""

    half_u: float
    half_v: float
    angle: float
    strength: float

    @property
    def aspect(self) -> float:
        """The longer half extent over the shorter (1 for a square)."""
        return max(self.half_u, self.half_v) / max(min(self.half_u, self.half_v), 1e-6)


@functools.lru_cache(maxsize=16)
def _ray_grid(edge: float, n_t: int, n_s: int) -> tuple[FloatArray, FloatArray]:
    """Distances along a ray (``n_t``, from 0.28 to 0.8 edges) and offsets across the face
    (``n_s``, within 0.17 edges of the axis: between the pips' columns)."""
    t = np.linspace(0.28, 0.8, n_t) * edge
    s = np.linspace(-0.17, 0.17, n_s) * edge
    return t, s


def _profiles(grad: FloatArray, centre: tuple[float, float], angle: float, edge: float,
              pips: tuple[tuple[float, float], ...], pip_r: float) -> tuple[FloatArray, FloatArray]:
    """Edge strength along the four rays (+u, +v, -u, -v) of a face at ``angle``: ``(4, T)``,
    and the distances ``(T,)``."""
    n_t, n_s = 27, 7
    t, s = _ray_grid(round(edge, 1), n_t, n_s)
    out = []
    a = math.radians(angle)
    for k in range(4):
        th = a + k * math.pi / 2.0
        nx, ny = math.cos(th), math.sin(th)
        px, py = -ny, nx
        x = centre[0] + t[:, None] * nx + s[None, :] * px
        y = centre[1] + t[:, None] * ny + s[None, :] * py
        vals = cv2.remap(grad, x.astype(np.float32), y.astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        # the ray starts past the pips' rims on its side (their rims are edges too)
        reach = max([(qx - centre[0]) * nx + (qy - centre[1]) * ny for qx, qy in pips],
                    default=0.0) + 1.8 * pip_r
        prof = vals.mean(axis=1)
        out.append(np.where(t >= reach, prof, 0.0))
    return np.asarray(out, np.float64), t


def _gradient(patch: Image) -> FloatArray:
    """Colour gradient magnitude (Lab, summed over channels) of a lightly blurred patch."""
    lab = np.asarray(cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32),
                                      (0, 0), 1.0), np.float32)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy).sum(axis=2) / 8.0
    return np.asarray(mag, np.float32)


def _peak(prof: FloatArray, t: FloatArray) -> tuple[float, float]:
    """Where a profile peaks (sub-sample) and its height."""
    i = int(np.argmax(prof))
    x = float(t[i])
    if 0 < i < len(prof) - 1:
        a, b, c = prof[i - 1], prof[i], prof[i + 1]
        den = a - 2.0 * b + c
        if den < 0:
            x += float(0.5 * (a - c) / den) * float(t[1] - t[0])
    return x, float(prof[i])


def top_face(patch: Image, centre: tuple[float, float], angle: float, edge: float,
             pips: tuple[tuple[float, float], ...] = (), pip_r: float = 0.0,
             angles: tuple[float, ...] | None = None, grad: FloatArray | None = None
             ) -> FaceShape:
    """The top face around ``centre`` (crop pixels) of a die of about ``edge`` pixels.

    ``angle`` (degrees) is the face's orientation as the pips give it; ``angles`` are
    orientations to try instead (a lone pip gives none): the one with the strongest edges
    wins. Each ray starts past the rims of the pips (``pips``, radius ``pip_r``) on its side.
    """
    if grad is None:
        grad = _gradient(patch)
    best: tuple[float, FaceShape] | None = None
    for ang in angles if angles is not None else (angle,):
        prof, t = _profiles(grad, centre, ang, edge, pips, pip_r)
        peaks = [_peak(prof[k], t) for k in range(4)]
        # the nearer edge of each axis is the top face's own (sides and shadow widen the
        # outline on one end only)
        u = min(peaks[0][0], peaks[2][0])
        v = min(peaks[1][0], peaks[3][0])
        strength = float(np.mean([p[1] for p in peaks]))
        shape = FaceShape(u, v, ang, strength)
        if best is None or strength > best[0]:
            best = (strength, shape)
    assert best is not None
    return best[1]
