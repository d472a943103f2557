"""Camera sources behind one protocol, chosen in the configuration.

==============  =============================================  ============================
``source``      backend                                        spec string
==============  =============================================  ============================
``picamera2``   :class:`~pibg.camera.picam.PiCamera2Source`    ``picamera2`` (``picamera2:1``)
``opencv``      :class:`~pibg.camera.opencv.OpenCVSource`      ``opencv:0``, ``opencv:file.avi``
``folder``      :class:`~pibg.camera.replay.FolderSource`      ``folder:frames/``
``sim``         :class:`~pibg.camera.sim.SimSource`            ``sim``
==============  =============================================  ============================

>>> import numpy as np
>>> with open_source("sim", render=lambda scene, size: np.zeros((size[1], size[0], 3), np.uint8),
...                  scenes=["any"]) as cam:
...     cam.read().shape
(960, 1280, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pibg.camera.base import BaseSource, EndOfFrames, Frame, FrameSource, to_lores
from pibg.camera.retry import RetryingSource
from pibg.config import CAMERA_SOURCES, CameraConfig
from pibg.exc import ConfigError

__all__ = [
    "BaseSource",
    "EndOfFrames",
    "Frame",
    "FrameSource",
    "RetryingSource",
    "make_source",
    "open_source",
    "parse_spec",
    "to_lores",
]


def parse_spec(spec: str) -> CameraConfig:
    """A :class:`CameraConfig` from ``"kind[:device-or-path]"``.

    :raises ConfigError: an unknown kind.
    """
    kind, _, arg = spec.partition(":")
    if kind not in CAMERA_SOURCES:
        raise ConfigError(
            f"camera spec {spec!r}: expected one of {', '.join(CAMERA_SOURCES)}[:device-or-path]"
        )
    if kind in ("opencv", "picamera2") and arg.isdigit():
        return CameraConfig(source=kind, device=int(arg))
    return CameraConfig(source=kind, path=Path(arg) if arg else None)


def make_source(
    config: CameraConfig | str,
    *,
    scenes: Iterable[Any] | None = None,
    render: Callable[..., Frame] | None = None,
    camera_factory: Callable[[int], Any] | None = None,
) -> FrameSource:
    """Build (not open) the source the configuration asks for.

    :param scenes: for ``sim``: the scenes or frames to show.
    :param render: for ``sim``: replaces :func:`pibg.sim.render` (tests).
    :param camera_factory: for ``picamera2``: replaces ``Picamera2`` (tests).
    :raises ConfigError: a source that needs a path has none.
    """
    cfg = parse_spec(config) if isinstance(config, str) else config
    if cfg.source == "picamera2":
        from pibg.camera.picam import PiCamera2Source

        return PiCamera2Source(
            size=cfg.size,
            lores_size=cfg.lores_size,
            fps=cfg.fps,
            camera_num=cfg.device,
            camera_factory=camera_factory,
        )
    if cfg.source == "opencv":
        from pibg.camera.opencv import OpenCVSource

        device: int | Path = cfg.path if cfg.path is not None else cfg.device
        return OpenCVSource(device, size=cfg.size, fps=cfg.fps, lores_size=cfg.lores_size)
    if cfg.source == "folder":
        from pibg.camera.replay import FolderSource

        if cfg.path is None:
            raise ConfigError("[camera] source = 'folder' needs path = <image folder>")
        return FolderSource(cfg.path, lores_size=cfg.lores_size)
    from pibg.camera.sim import SimSource

    return SimSource(scenes, size=cfg.size, render=render, lores_size=cfg.lores_size)


def open_source(
    config: CameraConfig | str,
    *,
    retry: bool = False,
    on_status: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> FrameSource:
    """Build and open a source; with ``retry=True`` wrap it in a :class:`RetryingSource`.

    Use it as a context manager: ``with open_source(cfg.camera, retry=True) as cam: ...``.

    :raises CameraUnavailableError: the camera cannot be opened (not with ``retry=True``).
    :raises ConfigError: the configuration names an impossible source.
    """
    if retry:
        make_source(config, **kwargs)  # configuration errors surface now, not in a retry loop
        source: FrameSource = RetryingSource(
            lambda: make_source(config, **kwargs), on_status=on_status
        )
    else:
        source = make_source(config, **kwargs)
    source.open()
    return source
