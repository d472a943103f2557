"""The one camera interface: :class:`FrameSource`, and what every backend shares.

A source is opened, read, and closed::

    with open_source(config.camera) as cam:     # pibg.camera.open_source
        frame = cam.read(timeout=2.0)           # H x W x 3 uint8, BGR (OpenCV order)
        grey = cam.read_lores()                 # small grey frame for change detection

``read`` raises :class:`~pibg.exc.CameraUnavailableError` when no frame arrives within the
timeout (a stalled or unplugged camera), and :class:`EndOfFrames` (a subclass) when a finite
source such as a video file or an image folder is exhausted. ``close()`` is safe twice.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol, Self, TypeAlias, cast, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from pibg.exc import CameraUnavailableError

#: An 8-bit image: H x W x 3 BGR for frames, H x W for grey ones.
Frame: TypeAlias = npt.NDArray[np.uint8]
#: Default low-resolution size (width, height) for change detection.
LORES_SIZE = (320, 240)


class EndOfFrames(CameraUnavailableError, EOFError):
    """A finite source (video file, image folder, scene list) has no more frames."""


@runtime_checkable
class FrameSource(Protocol):
    """What the main loop needs from a camera."""

    def open(self) -> None:
        """Start delivering frames. Opening an open source does nothing.

        :raises CameraUnavailableError: the camera cannot be opened.
        """
        ...

    def read(self, timeout: float = 2.0) -> Frame:
        """The next full-resolution BGR frame.

        :raises CameraUnavailableError: nothing arrived within ``timeout`` seconds.
        :raises EndOfFrames: a finite source is exhausted.
        """
        ...

    def read_lores(self) -> Frame | None:
        """A small greyscale frame for cheap change detection, or ``None`` if unsupported."""
        ...

    def close(self) -> None:
        """Release the camera; safe to call twice."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def to_lores(frame: Frame, size: tuple[int, int] = LORES_SIZE) -> Frame:
    """Shrink a BGR (or grey) frame to a grey ``size`` (width, height) image."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    return cast(Frame, cv2.resize(grey, size, interpolation=cv2.INTER_AREA))


def as_bgr(frame: Any, what: str) -> Frame:
    """Check that ``frame`` is an H x W x 3 uint8 image; grey frames are expanded.

    :raises CameraUnavailableError: anything else (named by ``what``).
    """
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
        raise CameraUnavailableError(f"{what}: not an 8-bit image ({type(frame).__name__})")
    if frame.ndim == 2:
        return cast(Frame, cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise CameraUnavailableError(f"{what}: unexpected frame shape {frame.shape}")
    if frame.shape[2] == 4:
        return np.ascontiguousarray(frame[:, :, :3])
    return cast(Frame, frame)


class BaseSource:
    """Lifetime plumbing for sources: context manager, idempotent open/close, lores default.

    Subclasses implement ``_open``, ``_read`` and ``_close``.
    """

    name = "camera"

    def __init__(self, lores_size: tuple[int, int] = LORES_SIZE) -> None:
        self.lores_size = lores_size
        self._opened = False
        self._last: Frame | None = None

    @property
    def is_open(self) -> bool:
        return self._opened

    def open(self) -> None:
        if not self._opened:
            self._open()
            self._opened = True

    def read(self, timeout: float = 2.0) -> Frame:
        if not self._opened:
            raise CameraUnavailableError(f"{self.name} is not open (call open() first)")
        frame = self._read(timeout)
        self._last = frame
        return frame

    def read_lores(self) -> Frame | None:
        """Default: a shrunken grey copy of the next frame."""
        return to_lores(self.read(), self.lores_size)

    def close(self) -> None:
        if self._opened:
            self._opened = False
            self._last = None
            self._close()

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _open(self) -> None:
        """Acquire the device."""

    def _read(self, timeout: float) -> Frame:
        raise NotImplementedError

    def _close(self) -> None:
        """Release the device."""

    def __repr__(self) -> str:
        state = "open" if self._opened else "closed"
        return f"<{type(self).__name__} {self.name} {state}>"
