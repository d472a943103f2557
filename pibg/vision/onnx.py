"""Loading the small ONNX networks pibg ships (the die faces, the checker places, the cube's
face) into OpenCV's ``dnn`` module, once each, with a one-line error that says how to mend a
missing or broken one; the input the crop networks share, and their scores as
probabilities."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from pibg.exc import VisionError
from pibg.vision.geometry import Array


@functools.cache
def load_onnx(path: str, what: str, script: str) -> cv2.dnn.Net:
    """The network at ``path``; ``what`` names it in errors, ``script`` makes it again.

    :raises VisionError: the file is missing, not ONNX, or holds no network.
    """
    if not Path(path).is_file():
        raise VisionError(f"{what} {path} is missing: reinstall pibg (pip install -e .) or "
                          f"make it with {script}")
    try:
        net = cv2.dnn.readNetFromONNX(path)
    except cv2.error:
        raise VisionError(f"{what} {path} is not a readable ONNX network: reinstall pibg or "
                          f"make it again with {script}") from None
    if net.empty():
        raise VisionError(f"{what} {path} holds no network: reinstall pibg")
    return net


def forward(net: cv2.dnn.Net, batch: Array, classes: int | tuple[int, ...], what: str,
            path: str) -> Array:
    """The network's scores (N, K) for ``batch`` (N, C, H, W), K one of ``classes``.

    :raises VisionError: the network takes other inputs or gives other outputs (another
        network in the model's place).
    """
    widths = (classes,) if isinstance(classes, int) else classes
    try:
        net.setInput(np.ascontiguousarray(batch))
        out = np.asarray(net.forward(), np.float64)
    except cv2.error:
        raise VisionError(f"{what} {path} does not take {batch.shape[1:]} crops: it is another "
                          "network; reinstall pibg") from None
    width = out.size // max(len(batch), 1)
    if width not in widths or out.size != len(batch) * width:
        raise VisionError(f"{what} {path} gives {width} scores a crop, not "
                          f"{' or '.join(map(str, widths))}: it is another network; "
                          "reinstall pibg")
    return out.reshape(len(batch), width)


def standardised(batch: Array, side: int) -> Array:
    """Crops (N, s, s, 3) uint8 -> a network's input (N, 3, side, side) float32: each crop
    shrunk to ``side`` pixels, its channels centred on the crop's mean and scaled by its
    spread (the light's level and contrast drop out)."""
    batch = np.asarray(batch)
    n, s = batch.shape[0], batch.shape[1]
    if s != side:
        batch = np.stack([cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA)
                          for c in batch]) if n else np.zeros((0, side, side, 3), np.uint8)
    x = batch.astype(np.float32) / 255.0
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) / (std + 0.02)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2), dtype=np.float32)


def probabilities(scores: Array) -> Array:
    """A network's scores (N, K) as probabilities over the K classes (a softmax per row)."""
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))
