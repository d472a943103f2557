"""Frames read as if of another board or light (``--channels`` and ``--light`` of the accuracy
benchmarks): stand-ins for the board styles and lights not in ``../shared``.

- ``--channels``: each frame's colour channels reordered, a board, checkers and dice of colours
  none of the data has (``rgb``: red and blue swapped; ``gbr`` and ``brg``: turned round). A
  change of light (a gain per channel) stays a change of light when the channels are
  reordered; turning hues would not keep that, so it is not offered.
- ``--light``: each frame's values scaled (0.6: a darker board, or less light than the camera
  makes up for; over 1, light colours clip).
- ``--tone``: each frame's blue raised to this power and its red to the inverse (values
  0-1), the calibration frame left as it is: a light whose colour changed since calibration,
  seen through a tone curve (a camera's, a renderer's filmic view) that no gain per channel
  undoes. Light and dark colours shift by different amounts.

Start frames are read the same way under ``--channels`` and ``--light``, so calibration sees
the same board.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np
from numpy.typing import NDArray

ORDERS = ("bgr", "brg", "gbr", "grb", "rbg", "rgb")


def add_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--channels", default="bgr", choices=ORDERS,
                    help="read every frame with its B, G, R taken from the file's channels "
                         "named (default bgr, as stored; rgb swaps red and blue)")
    ap.add_argument("--light", type=float, default=1.0,
                    help="scale every frame's values by this (default 1, as stored)")
    ap.add_argument("--tone", type=float, default=1.0,
                    help="raise every frame's blue (0-1) to this power and its red to the "
                         "inverse, start frames left as they are (default 1: as stored)")


class Restyle:
    """How frames are read: channel order, light factor and tone."""

    def __init__(self, order: str = "bgr", light: float = 1.0, tone: float = 1.0) -> None:
        if sorted(order) != ["b", "g", "r"] or light <= 0.0 or tone <= 0.0:
            raise ValueError(f"no such restyle: channels {order!r}, light {light}, tone {tone}")
        self.order, self.light, self.tone = order, light, tone

    def imread(self, path: str, start: bool = False) -> NDArray[np.uint8] | None:
        """The image at ``path`` (None where it cannot be read), restyled (``start``: a
        calibration frame, which ``tone`` leaves alone)."""
        read = cv2.imread(path)
        if read is None:
            return None
        img: NDArray[np.uint8] = np.asarray(read, np.uint8)
        if self.order != "bgr":
            img = np.ascontiguousarray(img[:, :, ["bgr".index(c) for c in self.order]])
        if self.light != 1.0:
            img = np.clip(img * np.float32(self.light), 0, 255).astype(np.uint8)
        if self.tone != 1.0 and not start:
            f = img.astype(np.float32) / 255.0
            f[..., 0] **= self.tone
            f[..., 2] **= 1.0 / self.tone
            img = np.clip(f * 255.0 + 0.5, 0, 255).astype(np.uint8)
        return img
