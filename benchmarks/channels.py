"""Frames read with their colour channels reordered (``--channels`` of the accuracy benchmarks).

Reordering a frame's B, G and R gives a board, checkers and dice of colours none of the data
has (``rgb``: red and blue swapped; ``gbr`` and ``brg``: turned round): a stand-in for the board
styles not in ``../shared``. A change of light (a gain per channel) stays a change of light
when the channels are reordered; turning hues would not keep that, so it is not offered.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

ORDERS = ("bgr", "brg", "gbr", "grb", "rbg", "rgb")


def add_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--channels", default="bgr", choices=ORDERS,
                    help="read every frame with its B, G, R taken from the file's channels "
                         "named (default bgr, as stored; rgb swaps red and blue)")


def imread(path: str, order: str = "bgr") -> np.ndarray | None:
    """The image at ``path`` (None where it cannot be read), its channels in ``order``."""
    img = cv2.imread(path)
    if img is None or order == "bgr":
        return img
    return np.ascontiguousarray(img[:, :, ["bgr".index(c) for c in order]])
