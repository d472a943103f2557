"""Frames of synthetic boards from :func:`pibg.sim.render`, for laptop runs and tests.

``SimSource([scene, scene2, frame, ...])`` renders each :class:`pibg.sim.SimScene` in turn
(arrays are passed through as they are). :mod:`pibg.sim` (and OpenCV drawing) is imported only
when the first scene is rendered. With no scenes it shows the starting position forever.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from pibg.camera.base import LORES_SIZE, BaseSource, EndOfFrames, Frame, as_bgr


class SimSource(BaseSource):
    """Rendered frames of scenes.

    :param render: ``render(scene, size) -> frame``; defaults to :func:`pibg.sim.render`.
    :param repeat: frames per scene (a real camera sees each position for a while).
    :param loop: start again after the last scene instead of raising ``EndOfFrames``.
    """

    name = "simulated camera"

    def __init__(
        self,
        scenes: Iterable[Any] | None = None,
        *,
        size: tuple[int, int] = (1280, 960),
        repeat: int = 1,
        loop: bool = False,
        render: Callable[..., Frame] | None = None,
        lores_size: tuple[int, int] = LORES_SIZE,
    ) -> None:
        super().__init__(lores_size)
        self.scenes: list[Any] | None = list(scenes) if scenes is not None else None
        self.size = size
        self.repeat = max(1, repeat)
        self.loop = loop or scenes is None
        self._render = render
        self.index = 0
        self._cache: dict[int, Frame] = {}

    def _renderer(self) -> Callable[..., Frame]:
        if self._render is None:
            self._render = importlib.import_module("pibg.sim").render
        return self._render

    def _open(self) -> None:
        if self.scenes is None:
            sim = importlib.import_module("pibg.sim")
            geometry = importlib.import_module("pibg.vision.geometry")
            self.scenes = [sim.SimScene(geometry.START_POINTS)]
        self.index = 0

    def _read(self, timeout: float) -> Frame:
        scenes = self.scenes or []
        n = len(scenes) * self.repeat
        if self.index >= n:
            if not self.loop or not n:
                raise EndOfFrames(f"{self.name}: all {len(scenes)} scenes shown")
            self.index = 0
        k = self.index // self.repeat
        self.index += 1
        if k not in self._cache:
            item = scenes[k]
            frame = item if isinstance(item, np.ndarray) else self._renderer()(item, self.size)
            self._cache = {k: as_bgr(frame, f"{self.name} scene {k}")}
        return self._cache[k].copy()
