"""Loading the small ONNX networks pibg ships (the die faces, the checker places) into OpenCV's
``dnn`` module, once each, with a one-line error that says how to mend a missing or broken one."""

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
