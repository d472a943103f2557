"""Replay sources: an image folder in name order, or frames already in memory.

``FolderSource("frames/")`` reads ``*.png``/``*.jpg``/... sorted by name (zero-pad the numbers:
``0001.png``); ``FrameListSource([frame, ...])`` serves arrays, e.g. synthetic frames in tests.
Both raise :class:`~pibg.camera.base.EndOfFrames` when done, unless ``loop=True``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import cv2

from pibg.camera.base import LORES_SIZE, BaseSource, EndOfFrames, Frame, as_bgr
from pibg.exc import CameraUnavailableError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FolderSource(BaseSource):
    """Images from a folder, in name order."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        loop: bool = False,
        lores_size: tuple[int, int] = LORES_SIZE,
    ) -> None:
        super().__init__(lores_size)
        self.folder = Path(folder)
        self.loop = loop
        self.name = f"image folder {self.folder}"
        self.files: list[Path] = []
        self.index = 0

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise CameraUnavailableError(f"{self.name}: no such folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraUnavailableError(f"{self.name}: no images ({', '.join(IMAGE_SUFFIXES)})")
        self.index = 0

    def _read(self, timeout: float) -> Frame:
        if self.index >= len(self.files):
            if not self.loop:
                raise EndOfFrames(f"{self.name}: all {len(self.files)} images read")
            self.index = 0
        path = self.files[self.index]
        self.index += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraUnavailableError(f"{path}: not a readable image")
        return as_bgr(frame, str(path))


class FrameListSource(BaseSource):
    """Frames given as arrays (BGR or grey uint8)."""

    name = "frame list"

    def __init__(
        self,
        frames: Iterable[Frame],
        *,
        loop: bool = False,
        lores_size: tuple[int, int] = LORES_SIZE,
    ) -> None:
        super().__init__(lores_size)
        self.frames = list(frames)
        self.loop = loop
        self.index = 0

    def _open(self) -> None:
        self.index = 0

    def _read(self, timeout: float) -> Frame:
        if self.index >= len(self.frames):
            if not self.loop or not self.frames:
                raise EndOfFrames(f"{self.name}: all {len(self.frames)} frames read")
            self.index = 0
        frame = self.frames[self.index]
        self.index += 1
        return as_bgr(frame, f"{self.name}[{self.index - 1}]")
