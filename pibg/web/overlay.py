"""The camera frame with what vision read drawn on it, for trust and for rig debugging.

:func:`region_overlay` takes a board calibration (the vision module's ``Calibration``: its
``corners``, ``layout`` and ``homography()``) and returns the drawing function a
:class:`~pibg.web.view.LiveView` uses: the playing surface's outline, a ring at every checker
place the reading fills (light for White, dark red for Black, amber when unsure), the count on
each point, the dice found and a banner when the frame was unreadable. With no calibration
only the corners (if known) are drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pibg.observation import BoardObservation

Image = np.ndarray[Any, Any]
_WHITE = (235, 235, 235)
_BLACK = (30, 30, 200)
_UNSURE = (0, 170, 255)
_EDGE = (0, 255, 0)


def _poly(img: Image, pts: Image, colour: tuple[int, int, int], width: int) -> None:
    import cv2

    cv2.polylines(img, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], True, colour, width,
                  cv2.LINE_AA)


def draw_corners(img: Image, corners: Sequence[Sequence[float]],
                 colour: tuple[int, int, int] = _EDGE) -> Image:
    """The surface outline and its corners labelled TL, TR, BR, BL (draws on ``img``)."""
    import cv2

    c = np.asarray(corners, np.float64).reshape(4, 2)
    _poly(img, c, colour, 2)
    for (x, y), name in zip(c, ("TL", "TR", "BR", "BL"), strict=True):
        cv2.circle(img, (round(x), round(y)), 7, colour, 2, cv2.LINE_AA)
        cv2.putText(img, name, (round(x) + 9, round(y) - 9), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    colour, 2, cv2.LINE_AA)
    return img


def _banner(img: Image, text: str) -> None:
    import cv2

    cv2.rectangle(img, (0, 0), (img.shape[1], 44), (0, 0, 0), -1)
    cv2.putText(img, text[:70], (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2,
                cv2.LINE_AA)


def region_overlay(calibration: Any | None = None,
                   corners: Sequence[Sequence[float]] | None = None
                   ) -> Callable[[Image, BoardObservation | None], Image]:
    """The drawing function for a calibrated board (or only ``corners``)."""
    geometry: tuple[Image, Image, Image, float] | None = None
    if calibration is not None:
        from pibg.vision.geometry import to_image

        layout = calibration.layout
        inv = np.linalg.inv(calibration.homography())
        slots = layout.point_slots()  # (24, K, 2) canonical
        img_slots = to_image(inv, slots.reshape(-1, 2)).reshape(slots.shape)
        bars = np.stack([to_image(inv, layout.bar_slots(True)),
                         to_image(inv, layout.bar_slots(False))])
        radius = float(getattr(calibration, "checker_radius_px", 0.0)) or 12.0
        geometry = (img_slots, bars, np.asarray(calibration.corners, np.float64), radius)
        corners = calibration.corners

    def draw(frame: Image, obs: BoardObservation | None) -> Image:
        import cv2

        img = frame.copy()
        if corners is not None:
            draw_corners(img, corners)
        if obs is None:
            return img
        if not obs.readable:
            _banner(img, f"unreadable: {obs.reason or 'no reason given'}")
            return img
        if geometry is not None:
            img_slots, bars, _, r = geometry
            k = img_slots.shape[1]
            for p, read in enumerate(obs.points):
                n = read.count
                colour = _UNSURE if read.confidence < 0.8 else (_WHITE if n > 0 else _BLACK)
                for j in range(min(abs(n), k)):
                    x, y = img_slots[p, j]
                    cv2.circle(img, (round(x), round(y)), round(r), colour, 2, cv2.LINE_AA)
                x, y = img_slots[p, 0]
                cv2.putText(img, str(abs(n)) if n else ".", (round(x) - 6, round(y) + 6),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)
            for side, read in enumerate((obs.bar_white, obs.bar_black)):
                colour = _WHITE if side == 0 else _BLACK
                for j in range(min(read.count, bars.shape[1])):
                    x, y = bars[side, j]
                    cv2.circle(img, (round(x), round(y)), round(r), colour, 2, cv2.LINE_AA)
        for d in obs.dice:
            colour = (0, 255, 255) if d.flat else (0, 0, 255)
            cv2.rectangle(img, (round(d.x) - 16, round(d.y) - 16), (round(d.x) + 16,
                          round(d.y) + 16), colour, 2)
            cv2.putText(img, str(d.value), (round(d.x) + 18, round(d.y) + 6),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
        return img

    return draw
