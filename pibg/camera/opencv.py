"""USB webcams and recorded videos through ``cv2.VideoCapture``.

``OpenCVSource(0)`` opens ``/dev/video0``; ``OpenCVSource("session.avi")`` replays a recorded
session (regression runs, laptop demos). A file that ends raises
:class:`~pibg.camera.base.EndOfFrames`; a camera that stops answering raises
:class:`~pibg.exc.CameraUnavailableError`.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import cv2

from pibg.camera.base import LORES_SIZE, BaseSource, EndOfFrames, Frame, as_bgr
from pibg.exc import CameraUnavailableError


class OpenCVSource(BaseSource):
    """A ``cv2.VideoCapture`` on a camera index or a video file.

    :param size: requested (width, height) for a camera; a file keeps its own size.
    :param fps: requested frame rate for a camera.
    """

    def __init__(
        self,
        device: int | str | os.PathLike[str] = 0,
        *,
        size: tuple[int, int] | None = None,
        fps: float | None = None,
        lores_size: tuple[int, int] = LORES_SIZE,
    ) -> None:
        super().__init__(lores_size)
        self.device: int | str = device if isinstance(device, int) else os.fspath(device)
        self.is_file = not isinstance(device, int)
        self.size = size
        self.fps = fps
        self.name = f"video file {self.device}" if self.is_file else f"USB camera {self.device}"
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> None:
        if isinstance(self.device, str) and not Path(self.device).is_file():
            raise CameraUnavailableError(f"{self.name}: no such file")
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            hint = "" if self.is_file else " (is it plugged in? is the user in group video?)"
            raise CameraUnavailableError(f"cannot open {self.name}{hint}")
        if not self.is_file:
            if self.size is not None:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
            if self.fps is not None:
                cap.set(cv2.CAP_PROP_FPS, self.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap = cap

    def _read(self, timeout: float) -> Frame:
        cap = self._cap
        assert cap is not None
        if self.is_file:
            ok, frame = cap.read()
            if not ok:
                raise EndOfFrames(f"{self.name}: end of video")
            return as_bgr(frame, self.name)
        # VideoCapture.read() has no timeout of its own: run it on a helper thread, so a wedged
        # V4L2 driver turns into CameraUnavailableError instead of a hung referee.
        result: list[tuple[bool, Any]] = []
        done = threading.Event()

        def grab() -> None:
            result.append(cap.read())
            done.set()

        threading.Thread(target=grab, name="pibg-opencv-read", daemon=True).start()
        if not done.wait(timeout):
            raise CameraUnavailableError(f"{self.name}: no frame within {timeout:g} s")
        ok, frame = result[0]
        if not ok or frame is None:
            raise CameraUnavailableError(f"{self.name}: stopped delivering frames")
        return as_bgr(frame, self.name)

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
