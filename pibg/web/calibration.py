"""What the calibration page needs: the frame, the corners, save, and a check read.

:class:`CalibrationBackend` is the small protocol the server calls; :class:`VisionCalibration`
implements it with the vision module's public functions (imported lazily, so the page works
on a machine whose vision stack is being changed): ``locate_layout`` for detected corners,
``Vision.from_start_frame`` to learn the board (its ``calibration`` saved as the TOML) and read
it. Detected corners saved unmoved are the finder's, on the checkers' rims, and the learning
is told so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pibg.exc import CalibrationError
from pibg.observation import BoardObservation

if TYPE_CHECKING:  # imported lazily below (see the module's doc)
    from pibg.vision.pipeline import Vision

Corners = list[tuple[float, float]]
Image = np.ndarray[Any, Any]


class CalibrationBackend(Protocol):
    """The calibration page's access to the camera and the calibration file."""

    def frame(self) -> Image | None:
        """The current camera frame (BGR), or None when there is none."""
        ...

    def corners(self) -> tuple[Corners | None, str]:
        """The surface corners TL, TR, BR, BL in frame pixels and where they come from
        (``"saved"``, ``"detected"`` or ``"none"``)."""
        ...

    def save(self, corners: Corners) -> str:
        """Learn the board with these corners and write the calibration; returns a message.

        :raises PibgError: the frame is not the starting position, the corners make no board.
        """
        ...

    def check(self, corners: Corners | None) -> BoardObservation:
        """Read the current frame with the saved calibration, or with these corners (learnt
        from the frame as a starting position, else roughly from the frame's colours)."""
        ...


def as_corners(value: Any) -> Corners:
    """Four ``[x, y]`` pairs from JSON, or ``"x,y;x,y;x,y;x,y"``.

    :raises CalibrationError: anything else.
    """
    if isinstance(value, str):
        from pibg.vision.calibrate import parse_corners

        arr = parse_corners(value)
        return [(float(x), float(y)) for x, y in arr]
    try:
        pts = [(float(p[0]), float(p[1])) for p in value]
        if len(pts) != 4 or any(len(p) != 2 for p in value):
            raise ValueError
    except (TypeError, ValueError, IndexError, KeyError):
        raise CalibrationError("corners: expected four [x, y] pairs (TL, TR, BR, BL)") from None
    if not all(np.isfinite(pts).flat):
        raise CalibrationError("corners: coordinates must be finite numbers")
    return pts


class VisionCalibration:
    """Calibration through :mod:`pibg.vision` for the frames ``frame()`` returns.

    ``on_saved`` is called with the new ``Calibration`` after it is written (the main loop
    rebuilds its ``Vision`` from it). Called on a server thread.
    """

    def __init__(self, frame: Callable[[], Image | None], path: Path, *,
                 vision_config: Any | None = None,
                 on_saved: Callable[[Any], None] | None = None,
                 default_corners: Sequence[Sequence[float]] | None = None) -> None:
        self._frame = frame
        self.path = Path(path)
        self._config = vision_config
        self._on_saved = on_saved
        self._default = ([(float(x), float(y)) for x, y in default_corners]
                         if default_corners is not None else None)
        #: Corners the board finder fitted to the checkers' rims, last detected, and the board
        #: profile it fitted them with: saved as they are, the rims need no lift and the
        #: profile is the finder's (see ``pibg.vision.calibrate.learn``).
        self._on_rims: tuple[Corners, str | None] | None = None

    def _cfg(self) -> Any:
        if self._config is not None:
            return self._config
        from pibg.vision.geometry import VisionConfig

        return VisionConfig()

    def frame(self) -> Image | None:
        return self._frame()

    def saved(self) -> Any | None:
        """The saved ``Calibration``, or None when there is no file yet."""
        if not self.path.is_file():
            return None
        from pibg.vision.calibrate import Calibration

        return Calibration.load(self.path)

    def corners(self) -> tuple[Corners | None, str]:
        cal = self.saved()
        if cal is not None:
            return [(float(x), float(y)) for x, y in cal.corners], "saved"
        img = self.frame()
        if img is not None:
            from pibg.exc import PibgError
            from pibg.vision.calibrate import locate_layout

            try:
                found = locate_layout(self._cfg(), img)
                pts = [(float(x), float(y)) for x, y in found.corners]
                self._on_rims = (pts, found.profile) if found.on_rims else None
                return pts, "detected"
            except PibgError:
                pass
        if self._default is not None:
            return list(self._default), "default"
        return None, "none"

    def _learn(self, img: Image, corners: Corners) -> Vision:
        """``Vision.from_start_frame`` with these corners; where they are the ones the board
        finder fitted to the rims, unmoved, it is told so and given the finder's profile."""
        from pibg.vision.pipeline import Vision

        found = self._on_rims
        detected = found is not None and bool(
            np.abs(np.asarray(corners, np.float64) - np.asarray(found[0])).max() < 0.5)
        return Vision.from_start_frame(img, np.asarray(corners, np.float64),
                                       config=self._cfg(),
                                       profile=found[1] if found and detected else None,
                                       corners_on_rims=detected)

    def _need_frame(self) -> Image:
        img = self.frame()
        if img is None:
            raise CalibrationError("no camera frame yet: wait for the camera")
        return img

    def save(self, corners: Corners) -> str:
        cal = self._learn(self._need_frame(), corners).calibration
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        cal.save(tmp)
        os.replace(tmp, self.path)
        if self._on_saved is not None:
            self._on_saved(cal)
        note = cal.naming_note()
        return (f"saved {self.path} (profile {cal.profile}, White's home {cal.white_home}, "
                f"checker radius {cal.checker_radius_px:.1f} px)"
                + (f"; note: {note} (pibg calibrate on the rig)" if note else ""))

    def check(self, corners: Corners | None) -> BoardObservation:
        from pibg.vision.pipeline import Vision

        img = self._need_frame()
        cal = self.saved()
        if corners is None:
            if cal is None:
                raise CalibrationError("no calibration saved yet: place the corners and save, "
                                       "or check with corners")
            return Vision.from_calibration(cal, self._config).observe(img)
        from pibg.exc import PibgError

        try:  # the frame shows the start (as when calibrating): learn the board properly
            vision = self._learn(img, corners)
        except PibgError:  # any other position: colours from the frame itself, roughly
            home: Any = cal.white_home if cal is not None else "bottom-right"
            vision = Vision.from_corners(img, np.asarray(corners, np.float64), home,
                                         config=self._config)
        return vision.observe(img)
