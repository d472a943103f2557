"""Optional printed ArUco markers at the surface's corners, as an aid to finding the board.

Print ``calibration/markers.pdf``-style sheets with :func:`marker_sheet` (ids 0-3 from the
4x4_50 dictionary: 0 at the top-left corner of the playing surface, then clockwise). Each
marker's inner corner (the one touching the surface corner) gives that corner.
"""

from __future__ import annotations

import cv2
import numpy as np

from pibg.vision.geometry import Array

DICTIONARY = cv2.aruco.DICT_4X4_50
#: Which marker corner touches the surface corner, per marker id (TL, TR, BR, BL of the marker).
_INNER = {0: 2, 1: 3, 2: 0, 3: 1}


def _detector() -> cv2.aruco.ArucoDetector:
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())


def find_marker_corners(image: Array) -> Array | None:
    """Surface corners TL, TR, BR, BL from markers 0-3, or None if not all four are seen."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _ = _detector().detectMarkers(grey)
    if ids is None:
        return None
    found: dict[int, Array] = {}
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in _INNER:
            found[int(i)] = np.asarray(c, np.float64).reshape(4, 2)[_INNER[int(i)]]
    if len(found) != 4:
        return None
    return np.array([found[i] for i in range(4)], np.float64)


def marker_sheet(size_px: int = 400, margin_px: int = 40) -> Array:
    """A printable image of markers 0-3 side by side, labelled by the corner they go to."""
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    names = ["0: top-left", "1: top-right", "2: bottom-right", "3: bottom-left"]
    tiles = []
    for i in range(4):
        m = cv2.aruco.generateImageMarker(d, i, size_px)
        tile = np.full((size_px + 2 * margin_px + 40, size_px + 2 * margin_px), 255, np.uint8)
        tile[margin_px:margin_px + size_px, margin_px:margin_px + size_px] = m
        cv2.putText(tile, names[i], (margin_px, size_px + margin_px + 30),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0,), 2, cv2.LINE_AA)
        tiles.append(tile)
    top = np.hstack(tiles[:2])
    bottom = np.hstack([tiles[3], tiles[2]])
    return np.vstack([top, bottom])


def main(argv: list[str] | None = None) -> int:
    """``python -m pibg.vision.markers OUT.png``: write the printable marker sheet."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    out = args[0] if args else "calibration/markers.png"
    cv2.imwrite(out, marker_sheet())
    print(f"wrote {out}: print at 100 %, cut out, and lay marker 0 at the surface's top-left")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
