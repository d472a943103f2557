"""Loading the small ONNX networks pibg ships (the die faces, the checker places) into OpenCV's
``dnn`` module, once each, with a one-line error that says how to mend a missing or broken one."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2

from pibg.exc import VisionError


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
