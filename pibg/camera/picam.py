"""The Raspberry Pi camera through picamera2 (imported lazily: only the Pi has it).

picamera2 comes from apt (``python3-picamera2``), never pip; the venv sees it through
``--system-site-packages`` (hardware research §1). Two streams run at once: ``main`` in
``RGB888`` (which *is* OpenCV's BGR byte order) for reading the board, and a small ``lores``
YUV420 stream whose Y plane is a free greyscale frame for change detection.

After start the camera runs with auto exposure / white balance (and continuous autofocus on a
Camera Module 3) until they report converged (at most ``settle_seconds``), then all of them are
locked at the values they settled on, so a checker's colour does not drift while hands move
over the board.

A camera that stops delivering (a loose ribbon cable) makes ``capture_array(..., wait=t)`` raise
``TimeoutError``; :meth:`PiCamera2Source.read` turns that into
:class:`~pibg.exc.CameraUnavailableError` instead of hanging.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pibg.camera.base import LORES_SIZE, BaseSource, Frame, as_bgr
from pibg.exc import CameraUnavailableError

log = logging.getLogger(__name__)

#: Seconds between convergence checks, and the least time AE/AWB get before locking.
SETTLE_STEP = 0.25
MIN_SETTLE = 0.5


def _default_factory(camera_num: int) -> Any:
    try:
        from picamera2 import Picamera2  # lazy: only importable on a Pi
    except ImportError as exc:
        raise CameraUnavailableError(
            f"picamera2 is not importable ({exc}): on the Pi, `sudo apt install python3-picamera2`"
            " and create the venv with --system-site-packages; elsewhere set [camera] source"
        ) from exc
    try:
        return Picamera2(camera_num)
    except (IndexError, RuntimeError) as exc:
        raise CameraUnavailableError(
            f"no Raspberry Pi camera {camera_num} ({exc}): check the ribbon cable, "
            "`rpicam-hello --list-cameras`"
        ) from exc


class PiCamera2Source(BaseSource):
    """A Raspberry Pi camera (Camera Module 2/3, HQ) via picamera2.

    :param size: main stream (width, height).
    :param lores_size: lores stream (width, height); both must be even.
    :param fps: frame rate (a referee needs few; 5 leaves CPU for vision on a Pi 4).
    :param settle_seconds: the longest AE/AWB/AF may run before being locked (they are
        locked earlier once libcamera reports them converged).
    :param camera_factory: ``factory(camera_num) -> Picamera2``; tests inject a fake.
    """

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1280, 960),
        lores_size: tuple[int, int] = LORES_SIZE,
        fps: float = 5.0,
        camera_num: int = 0,
        settle_seconds: float = 2.0,
        camera_factory: Callable[[int], Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(lores_size)
        self.size = size
        self.fps = fps
        self.camera_num = camera_num
        self.settle_seconds = settle_seconds
        self.name = f"Pi camera {camera_num}"
        self._factory = camera_factory or _default_factory
        self._sleep = sleep
        self._cam: Any = None
        #: The controls locked after settling (for logs and ``pibg doctor``).
        self.locked: dict[str, Any] = {}
        #: Seconds the camera took to settle at the last open.
        self.settled_after = 0.0

    def _open(self) -> None:
        cam = self._factory(self.camera_num)
        try:
            frame_us = int(1_000_000 / self.fps)
            config = cam.create_video_configuration(
                main={"size": tuple(self.size), "format": "RGB888"},
                lores={"size": tuple(self.lores_size), "format": "YUV420"},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
                buffer_count=4,
            )
            cam.configure(config)
            has_af = "AfMode" in getattr(cam, "camera_controls", {})
            if has_af:
                cam.set_controls({"AfMode": _af_mode("Continuous")})
            cam.start()
            self.locked = self._lock_controls(cam, has_af, self._settle(cam, has_af))
        except CameraUnavailableError:
            cam.close()
            raise
        except Exception as exc:  # picamera2 raises RuntimeError and friends freely
            cam.close()
            raise CameraUnavailableError(f"{self.name}: could not start: {exc}") from exc
        self._cam = cam
        log.info(
            "%s started %sx%s @ %g fps, locked %s", self.name, *self.size, self.fps, self.locked
        )

    def _settle(self, cam: Any, has_af: bool) -> dict[str, Any]:
        """Wait until AE (and AF) report converged, at most ``settle_seconds``; the metadata.

        libcamera reports ``AeState`` (2 = converged; older: ``AeLocked``) and ``AfState``
        (2 = focused). At least ``MIN_SETTLE`` passes, so AWB gets a few frames too.
        """
        waited = 0.0
        md: dict[str, Any] = {}
        while waited < self.settle_seconds:
            self._sleep(SETTLE_STEP)
            waited += SETTLE_STEP
            md = cam.capture_metadata()
            ae_ok = md.get("AeLocked") is True or md.get("AeState") == 2
            af_ok = not has_af or md.get("AfState") == 2
            if ae_ok and af_ok and waited >= MIN_SETTLE:
                break
        self.settled_after = waited
        return md or cam.capture_metadata()

    def _lock_controls(self, cam: Any, has_af: bool, md: dict[str, Any]) -> dict[str, Any]:
        locked: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in md:
                locked[key] = md[key]
        if has_af and "LensPosition" in md:
            locked["AfMode"] = _af_mode("Manual")
            locked["LensPosition"] = md["LensPosition"]
        cam.set_controls(locked)
        return locked

    def _read(self, timeout: float) -> Frame:
        return as_bgr(self._capture("main", timeout), self.name)

    def read_lores(self) -> Frame | None:
        if not self.is_open:
            raise CameraUnavailableError(f"{self.name} is not open (call open() first)")
        yuv = self._capture("lores", 2.0)
        w, h = self.lores_size
        return np.ascontiguousarray(yuv[:h, :w])  # the Y plane of YUV420 is the grey image

    def _capture(self, stream: str, timeout: float) -> Frame:
        try:
            frame: Frame = self._cam.capture_array(stream, wait=timeout)
        except TimeoutError as exc:
            raise CameraUnavailableError(
                f"{self.name}: no frame within {timeout:g} s (ribbon cable loose?)"
            ) from exc
        except Exception as exc:
            raise CameraUnavailableError(f"{self.name}: capture failed: {exc}") from exc
        return frame

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()


def _af_mode(name: str) -> Any:
    """``libcamera.controls.AfModeEnum.<name>``, or its integer value off-Pi."""
    try:
        from libcamera import controls
    except ImportError:
        return {"Manual": 0, "Auto": 1, "Continuous": 2}[name]
    return getattr(controls.AfModeEnum, name)
