"""The canonical top-down view of a backgammon board, and where every region lies in it.

Every frame is warped to one canonical view in which White's home board is at the bottom
right, White's tray at the right below the middle and Black's above it (whatever the camera
saw: the homography mirrors or turns the board as needed). Lengths are counted in *point
widths* ``u`` and drawn at :data:`PX_PER_POINT` pixels each, so a checker is about
``checker * PX_PER_POINT`` pixels across and a die about 0.75 of that
(:meth:`Layout.die_px`).

Board shapes differ (bar width, depth of the playing surface); a :class:`BoardProfile` holds
them in point widths. The built-in profiles are the ones in ``calibration/profiles/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import cv2
import numpy as np
import numpy.typing as npt

#: Any numpy array (frames are uint8 BGR, features float32 Lab).
Array: TypeAlias = npt.NDArray[Any]
WhiteHome: TypeAlias = Literal["bottom-right", "bottom-left", "top-right", "top-left"]
WHITE_HOMES: tuple[WhiteHome, ...] = ("bottom-right", "bottom-left", "top-right", "top-left")

#: Canonical pixels per point width. A checker is ~38 px across, a die ~28 px.
PX_PER_POINT = 40.0

#: The starting position, signed from White (+) / Black (-), index 0 = White's 1-point.
START_POINTS: tuple[int, ...] = (-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5,
                                 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2)


@dataclass(frozen=True, slots=True)
class BoardProfile:
    """The shape of a board in point widths (the width of one point's base)."""

    name: str
    bar: float = 1.25          #: width of the bar
    height: float = 10.55      #: depth of the playing surface (base to base)
    checker: float = 0.95      #: checker diameter
    pitch: float = 0.96        #: distance between neighbouring checkers on a point
    first: float = 0.05        #: gap between a point's base and its first checker
    tray_gap: float = 0.7      #: gap between the surface's right edge and the tray
    tray_width: float = 1.3    #: width of the tray
    tray_pitch: float = 0.226  #: spacing of borne-off checkers standing on edge

    @property
    def width(self) -> float:
        return 12.0 + self.bar

    @property
    def aspect(self) -> float:
        return self.height / self.width


PROFILES: dict[str, BoardProfile] = {
    # 53 cm x 42 cm playing surface, 4 cm points, 38 mm checkers (the rendered boards).
    "standard": BoardProfile("standard"),
    # 19-21" tournament cases: deep surface, narrow bar (the broadcast board).
    "tournament": BoardProfile("tournament", bar=1.0, height=12.2, checker=0.98, pitch=1.0,
                               first=0.02, tray_gap=0.5, tray_width=1.3, tray_pitch=0.24),
    # 15" travel boards: shallow surface, checkers as wide as the points.
    "travel": BoardProfile("travel", bar=1.0, height=10.0, checker=0.97, pitch=0.98,
                           first=0.02, tray_gap=0.4, tray_width=1.1, tray_pitch=0.24),
}


def profile_for_aspect(aspect: float) -> BoardProfile:
    """The built-in profile whose height/width ratio is nearest ``aspect``."""
    return min(PROFILES.values(), key=lambda p: abs(p.aspect - aspect))


@dataclass(frozen=True, slots=True)
class Layout:
    """Pixel geometry of the canonical view for one profile."""

    profile: BoardProfile
    u: float = PX_PER_POINT
    margin: float = 0.35  #: margin round the surface, in point widths

    # -- overall ---------------------------------------------------------------------------
    @property
    def origin(self) -> tuple[float, float]:
        m = self.margin * self.u
        return (m, m)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the canonical image."""
        p = self.profile
        w = (self.margin * 2 + p.width + p.tray_gap + p.tray_width) * self.u
        h = (self.margin * 2 + p.height) * self.u
        return (round(w), round(h))

    @property
    def checker_px(self) -> float:
        return self.profile.checker * self.u

    @property
    def die_px(self) -> float:
        """The largest die edge expected, in canonical pixels: 0.75 x a checker, as
        :mod:`pibg.sim` draws its dice. Real dice are smaller (about 16 mm on 38-40 mm
        checkers: 0.42 x a checker); the pipeline looks for both sizes."""
        return 0.75 * self.checker_px

    def surface_corners(self) -> Array:
        """The playing surface's corners TL, TR, BR, BL in canonical pixels, float32 (4, 2)."""
        x0, y0 = self.origin
        w, h = self.profile.width * self.u, self.profile.height * self.u
        return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)

    # -- points ----------------------------------------------------------------------------
    def point_x(self, point: int) -> float:
        """Centre x of point 1..24 (numbered from White)."""
        p = self.profile
        x0 = self.origin[0]
        if 1 <= point <= 6:
            col = p.width - (point - 0.5)
        elif 7 <= point <= 12:
            col = 6.0 - (point - 6.5)
        elif 13 <= point <= 18:
            col = point - 12.5
        elif 19 <= point <= 24:
            col = 6.0 + p.bar + (point - 18.5)
        else:
            raise ValueError(f"point must be 1..24, got {point}")
        return x0 + col * self.u

    @staticmethod
    def point_is_bottom(point: int) -> bool:
        return point <= 12

    def slots_per_point(self) -> int:
        """How many first-layer checkers fit between a base and the middle of the board."""
        p = self.profile
        return int((p.height / 2 - p.first - p.checker / 2) // p.pitch) + 1

    def slot_centre(self, point: int, k: int) -> tuple[float, float]:
        """Centre of the k-th checker (0 = at the base) on ``point``."""
        p = self.profile
        y0 = self.origin[1]
        d = (p.first + p.checker / 2 + k * p.pitch) * self.u
        y = y0 + p.height * self.u - d if self.point_is_bottom(point) else y0 + d
        return (self.point_x(point), y)

    def point_slots(self) -> Array:
        """Array (24, K, 2) of slot centres."""
        k = self.slots_per_point()
        return np.array([[self.slot_centre(pt, j) for j in range(k)] for pt in range(1, 25)],
                        np.float32)

    # -- bar -------------------------------------------------------------------------------
    @property
    def bar_x(self) -> float:
        return self.origin[0] + (6.0 + self.profile.bar / 2) * self.u

    @property
    def centre_y(self) -> float:
        return self.origin[1] + self.profile.height * self.u / 2

    def bar_slots(self, white: bool) -> Array:
        """Checker places on the bar: White's below the middle, Black's above, outward."""
        p = self.profile
        n = int((p.height / 2 - 0.85 - p.checker / 2) // p.pitch)
        sign = 1.0 if white else -1.0
        return np.array([(self.bar_x, self.centre_y + sign * (0.85 + k * p.pitch) * self.u)
                         for k in range(max(n, 1))], np.float32)

    def band_places(self) -> Array:
        """(12, 2) places along the middle of the playing surface, between the two rows of
        points, one over each column of points (left to right, the bar left out). No checker
        of the game stands there, only dice: an arm reaching across the board between the
        points' tips covers several of them and few checker places."""
        xs = [self.point_x(p) for p in range(13, 25)]
        return np.array([(x, self.centre_y) for x in xs], np.float32)

    def cube_places(self) -> dict[str, tuple[float, float]]:
        """Where the cube lies: centre of the bar, or its end on the owner's side."""
        p = self.profile
        end = (p.height / 2 - 0.45) * self.u
        return {"center": (self.bar_x, self.centre_y),
                "white": (self.bar_x, self.centre_y + end),
                "black": (self.bar_x, self.centre_y - end)}

    # -- trays -----------------------------------------------------------------------------
    def tray_rect(self, white: bool) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of a colour's half of the tray (White below the middle)."""
        p = self.profile
        x0 = self.origin[0] + (p.width + p.tray_gap) * self.u
        x1 = x0 + p.tray_width * self.u
        y0, y1 = self.origin[1], self.origin[1] + p.height * self.u
        mid = self.centre_y
        return (x0, mid, x1, y1) if white else (x0, y0, x1, mid)

    def rail_places(self) -> Array:
        """Sample places on the board's frame round the playing surface, in order round it.

        Nothing of the game lies there, so a change there is an arm reaching over the board.
        """
        p = self.profile
        x0, y0 = self.origin
        w, h = p.width * self.u, p.height * self.u
        off = self.margin * self.u * 0.5
        step = 0.5 * self.u
        pts: list[tuple[float, float]] = []
        xs = np.arange(x0 + step / 2, x0 + w, step)
        pts += [(float(x), y0 - off) for x in xs]                       # top rail
        gap = x0 + w + p.tray_gap * self.u / 2
        pts += [(gap, float(y)) for y in np.arange(y0 + step / 2, y0 + h, step)]  # right
        pts += [(float(x), y0 + h + off) for x in xs[::-1]]             # bottom rail
        pts += [(x0 - off, float(y)) for y in np.arange(y0 + h - step / 2, y0, -step)]  # left
        a = np.array(pts, np.float32)
        # Leave out the rail next to the bar's ends, where an owned cube may lie.
        keep = np.abs(a[:, 0] - self.bar_x) > self.u * (p.bar / 2 + 0.6)
        return np.asarray(a[keep], np.float32)

    def tray_capacity_px(self) -> float:
        return self.profile.tray_pitch * self.u


def canonical_corner_order(white_home: WhiteHome) -> tuple[int, int, int, int]:
    """For image corners TL, TR, BR, BL: which canonical corner each one becomes.

    The canonical view has White's home at the bottom right; a board seen with White's home
    elsewhere is mirrored or turned into it.
    """
    return {
        "bottom-right": (0, 1, 2, 3),
        "bottom-left": (1, 0, 3, 2),
        "top-right": (3, 2, 1, 0),
        "top-left": (2, 3, 0, 1),
    }[white_home]


def homography(corners: Array, layout: Layout, white_home: WhiteHome) -> Array:
    """Image -> canonical homography from the surface corners TL, TR, BR, BL (image order)."""
    src = np.asarray(corners, np.float32).reshape(4, 2)
    canon = layout.surface_corners()
    order = canonical_corner_order(white_home)
    dst = np.array([canon[i] for i in order], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def lens_scale(image_size: tuple[int, int]) -> tuple[Array, float]:
    """Centre and radius unit (half the diagonal) of the radial lens model for a frame size."""
    w, h = image_size
    return np.array([(w - 1) / 2.0, (h - 1) / 2.0]), float(np.hypot(w, h) / 2.0)


def distort(pts: Array, k: float, image_size: tuple[int, int]) -> Array:
    """Where points of an ideal (pinhole) image land in the camera's: one radial term,
    ``p_d = c + (p - c)(1 + k r^2)``, r in half-diagonals; a wide lens bulges (k < 0)."""
    c, d = lens_scale(image_size)
    p = np.asarray(pts, np.float64)
    q = p - c
    u = q / d
    # x^2 + y^2 as two products and a sum: the same numbers as squaring and summing over
    # the last axis, at half the cost (every die crop of a bent lens goes through here)
    r2 = u[..., 0:1] * u[..., 0:1] + u[..., 1:2] * u[..., 1:2]
    return np.asarray(c + q * (1.0 + k * r2), np.float64)


def undistort(pts: Array, k: float, image_size: tuple[int, int]) -> Array:
    """The inverse of :func:`distort` (fixed-point iteration; the distortion is mild). Beyond
    the fold of a strong barrel (far outside the board) the result is only bounded."""
    c, d = lens_scale(image_size)
    p = np.asarray(pts, np.float64)
    q = p.copy()
    fold = 1.0 / (3.0 * -k) if k < 0 else np.inf
    for _ in range(30):
        r2 = np.minimum((((q - c) / d) ** 2).sum(-1, keepdims=True), fold)
        q = c + (p - c) / (1.0 + k * r2)
    return np.asarray(q, np.float64)


def canonical_maps(h_ideal: Array, layout: Layout, k: float, image_size: tuple[int, int]
                   ) -> tuple[Array, Array]:
    """Maps for ``cv2.remap`` from a camera frame to the canonical view through the lens:
    canonical pixel -> ideal image (``inv(h_ideal)``) -> camera image (:func:`distort`)."""
    w, h = layout.size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xs, ys, np.ones_like(xs)], -1) @ np.linalg.inv(h_ideal).T
    img = distort(pts[..., :2] / pts[..., 2:], k, image_size)
    m1, m2 = cv2.convertMaps(img[..., 0].astype(np.float32), img[..., 1].astype(np.float32),
                             cv2.CV_16SC2)
    return m1, m2


def to_image(h_inv: Array, pts: Array) -> Array:
    """Map canonical points (N, 2) back to image pixels."""
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(p, h_inv), np.float64).reshape(-1, 2)


def lift(points: Array, camera: tuple[float, float, float] | None, height: float) -> Array:
    """Where points of the board, raised by ``height`` (canonical pixels), are seen in the
    top-down view from a camera at ``camera`` (x, y, height above the board): away from the
    point below it, by ``height / (H - height)`` of their distance. A checker's top face
    (its rim) lies there, not over its foot."""
    p = np.asarray(points, np.float64)
    if camera is None or camera[2] <= height:
        return p
    nadir = np.asarray(camera[:2], np.float64)
    return np.asarray(p + (p - nadir) * (height / (camera[2] - height)), np.float64)


def camera_centre(h_ideal: Array, image_size: tuple[int, int]
                  ) -> tuple[float, float, float] | None:
    """The camera's centre over the board: the point straight below it and its height, in
    canonical pixels, from the homography (ideal image -> canonical) alone, or None when it
    cannot be told.

    A pinhole with square pixels and its principal point at the image centre sees the plane
    through ``K [r1 r2 t]``; r1 and r2 being orthogonal and of equal length gives the focal
    length (Zhang's planar calibration with one unknown), and then the camera's centre
    ``-R^T t``. Things standing on the board lean away from the point below it in the
    top-down view: a flat die shows the side facing it, a checker's rim is seen off its foot.

    >>> g = np.array([[1.0, 0, 100], [0, 1, 50], [0, 0, 1]])  # straight down: ill-posed
    >>> camera_centre(np.linalg.inv(g), (200, 100)) is None
    True
    """
    w, h = image_size
    g = np.asarray(np.linalg.inv(np.asarray(h_ideal, np.float64)), np.float64)
    centre = np.array([[1.0, 0.0, -(w - 1) / 2], [0.0, 1.0, -(h - 1) / 2], [0.0, 0.0, 1.0]])
    a = centre @ g
    g1, g2 = a[:, 0], a[:, 1]
    cands = []
    for num, den in ((-(g1[0] * g2[0] + g1[1] * g2[1]), g1[2] * g2[2]),
                     (g2[0] ** 2 + g2[1] ** 2 - g1[0] ** 2 - g1[1] ** 2, g1[2] ** 2 - g2[2] ** 2)):
        if abs(den) > 1e-12 and num / den > 0:
            cands.append(num / den)
    if not cands:
        return None
    f = float(np.sqrt(np.median(cands)))
    m = np.diag([1.0 / f, 1.0 / f, 1.0]) @ a
    scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
    rot = np.stack([r1, r2, np.cross(r1, r2)], 1)
    c = -rot.T @ t
    if not np.all(np.isfinite(c)):
        return None
    return float(c[0]), float(c[1]), abs(float(c[2]))


@dataclass(frozen=True, slots=True)
class VisionConfig:
    """Every threshold of the vision stages in one place (distances are in Lab units)."""

    #: Inner disc sampled per checker place, as a fraction of the checker diameter.
    sample_radius: float = 0.3
    #: Box sampled on the board's frame (same unit).
    rail_radius: float = 0.12
    #: Spread assumed for the empty board at a place (L, a, b).
    background_sigma: tuple[float, float, float] = (12.0, 4.0, 4.0)
    #: Lower bound on the spread learnt for each checker colour (L, a, b).
    checker_sigma_floor: tuple[float, float, float] = (8.0, 3.0, 3.0)
    #: A sampled channel at least this high (0-255) may be clipped by the sensor: the colour
    #: is at least that light (see ``board.read_places``).
    clip_level: float = 250.0
    #: A place whose squared normalised distance to every class exceeds this is "unexplained".
    unexplained: float = 30.0
    #: ... on a board whose White checkers were learnt at least this light (L, 0-255); below
    #: it the bound shrinks with the square of their lightness against this (a dark board, a
    #: dim room: every colour distance shrinks with the light). The renders learn White at
    #: 203 to 231; at 185, light scaled to 0.9 left render dev3's arm (White at 184) under
    #: the bound (hands reported at --light 0.9 / 0.8 / 0.6: 12 / 11 / 11 of 13; at 200,
    #: 13 / 13 / 12).
    unexplained_light: float = 200.0
    #: ... but to no less than this share of it: the camera's own noise does not shrink with
    #: the light (real tournament photos in light scaled to 0.45 learn White at about 50, and
    #: a bound of 2 took every frame's noise for a hand: 78 of 181 points read, 169 with 0.15).
    unexplained_floor: float = 0.15
    #: The frame's tone against the calibration (``board.photometric_tone``): a power per
    #: channel within these bounds, fitted on empty places whose residual lies within these
    #: ratios (first pass, then the rest); at least ``tone_min_places`` of them, whose
    #: calibration colours span at least ``tone_min_span`` (variance of log values) within
    #: their groups, else a gain alone.
    tone_power_min: float = 0.6
    tone_power_max: float = 1.6
    tone_inlier_first: float = 1.5
    tone_inlier: float = 1.3
    tone_min_places: int = 24
    tone_min_span: float = 0.01
    #: A place the tone explains (within this share of the bound of "like neither") is no
    #: hand's, however far from every class in the frame's gains alone.
    tone_explains: float = 0.75
    #: Squared chroma distance (a, b / 4) above which a place on the board's frame changed.
    rail_chroma: float = 12.0
    #: Hand rules: (changed rail places, unexplained checker places) pairs, any one enough. Two
    #: dice cover at most four places; six places like neither board nor checker are
    #: something else over the board (seven before 39c9b34, when a changed light's
    #: checkers still counted among them: see ``hand_plain_ratio`` and ``tone_explains``; on
    #: the renders under every restyle no clean frame has six with no place of the frame
    #: changed). An arm reaching in crosses the frame: with four places
    #: of the frame changed, four such places are enough (a dim lamp shifts up to eight places
    #: of a dark frame, but then leaves the points alone).
    hand_rules: tuple[tuple[int, int], ...] = ((3, 6), (4, 4), (0, 6))
    #: ... and a hand needs at least this many of those places on points of each colour
    #: (odd and even points): an arm over the points crosses both, a change of the light on
    #: one colour of point does not (0: not asked).
    hand_both_colours: int = 1
    #: A hand changes a few places of the board's frame (an arm crosses it on one side); when
    #: this share of them all looks unlike the calibration, the calibration does not fit the
    #: frame (the camera or the board moved, or the frame is from another set-up): a hand is
    #: not said to be there. Renders: a hand 3 of 84; the frame shifted 60 px 33, turned 8
    #: degrees 41, the camera 15 % farther 65.
    misfit_rails: float = 1 / 3
    #: The calibration does not fit a frame whose edges fit the start frame's better moved
    #: a little than as they stand, by this much correlation (:func:`pibg.vision.fit.compare`):
    #: renders, every clean frame and arm -0.09 to 0.00, the start frames shifted 10 to 60 px,
    #: turned 3 or 8 degrees, 8 to 15 % nearer or farther +0.09 to +1.01. Then the colours
    #: changed on the frame are the light's, not a moved camera's.
    moved_gain: float = 0.05
    #: ... and it is followed (the board's corners moved with it) while it takes no corner of
    #: the playing surface farther than this many point widths; farther, it is refused: a
    #: point over, the points' edges fit the start frame's again (render rny3, its small
    #: board shifted 35 to 60 px, followed a point off and read wrong).
    follow_reach: float = 0.5
    #: ... and a place counts as "like neither" for a hand only while no class is this many
    #: times nearer than the next (squared distances): a checker seen in light that changed
    #: since calibration lies past the bound but plainly nearer its own colour than the
    #: others (5 to 13 times on the renders' restyles), skin and sleeves lie between (1 to 4).
    hand_plain_ratio: float = 5.0
    #: The dice stage reads a dim frame brighter (a dark board, a dim room: the pips' contrast
    #: falls under its thresholds): by as much as brings the lighter of White's checkers and
    #: the light points, under the frame's light, to this grey level (0-255; the renders'
    #: sessions learn them at 181 to 228, pibg.sim's at 204 to 222), at most
    #: ``dice_exposure_max`` times, and not at all where less than ``dice_exposure_min``
    #: would do.
    dice_exposure_ref: float = 180.0
    dice_exposure_min: float = 1.2
    dice_exposure_max: float = 2.5
    #: Lens distortion searched at calibration (half-diagonal units), and how much sharper the
    #: checkers' edges must line up to accept one rather than none.
    lens_k_min: float = -0.3
    lens_k_max: float = 0.1
    lens_k_step: float = 0.025
    lens_gain: float = 0.01
    #: Finding the board: Hough passes (Canny's upper threshold, accumulator votes), strict
    #: first, each tried for checkers of every size band (radius, in 28ths of the frame's
    #: width: a board filling the frame, one half as wide, one between); checkers of the
    #: starting position (of 30) that circles must match; how much sharper the rims at the
    #: start's checker places must be than elsewhere.
    start_circles: tuple[tuple[int, int], ...] = ((100, 25), (60, 30))
    start_radius_bands: tuple[tuple[float, float], ...] = ((0.3, 0.55), (0.45, 0.75),
                                                           (0.65, 0.95))
    start_fit_min: int = 10
    start_rims_min: float = 0.5
    #: ... and where the place network is shipped, it must see the starting position there
    #: at this share of the points' places or more (every place but one of a board's 120):
    #: sharp rims on corners a checker's height off still pass ``start_rims_min`` (renders
    #: rnr1, rns2: corners 31 and 42 px off, every frame read a place off; the network saw
    #: the start at 0.97 and 0.90 of the places there, at 0.99 or more on the 64 right ones).
    start_seen_min: float = 0.99
    #: ... or, where no layout's rims are that sharp, a layout matching this many of the
    #: starting position's 30 checkers with circles found.
    start_whole: int = 30
    #: ... or, failing that, a layout matching this many where the place network sees the
    #: starting position (:func:`~pibg.vision.calibrate.locate_board`; layouts of another
    #: profile, 37 px off, matched 24 with the network seeing the start in render dev0's
    #: start frame: ``benchmarks/board_finder.py --layouts``).
    start_most: int = 26
    #: Share of checker places that must read as the starting position at calibration.
    min_start_agreement: float = 0.9
    #: How far (log of the ratio) a board profile's shape, depth over width, may lie from the
    #: corners' for calibration to try it: a camera tilted a few degrees changes the shape
    #: by a few per cent, the built-in profiles differ by 3 to 18 % (render rpc1: a standard
    #: board, 0.794 in the frame, read as a tournament one, 0.938, whose colours agreed as
    #: well with the starting position, its points' places a sixth too close together).
    profile_shape_tolerance: float = 0.1
    #: Minimal distance (CIE Lab, OpenCV's 8-bit scale) between the two checker colours
    #: learnt at calibration: lightness or hue (White is the lighter, by any amount). Turned
    #: or mirrored, each colour model mixes both colours and they lie 0.5 to 5 apart; teal
    #: and grey-green checkers (random:7323) lie 20 apart.
    min_colour_contrast: float = 12.0
    #: The tray's pile (log ratio of edge strength to the empty tray's): its mean must exceed
    #: the rest of the tray's by this much and the empty tray's by ``tray_level``.
    tray_contrast: float = 0.3
    tray_level: float = 0.5
    #: The pile's length beyond its checkers (the last one's rim and its height seen aslant),
    #: in checker pitches.
    tray_end_allowance: float = 1.5
    #: The board's frame at a tray's outer end: rows of the empty tray this much stronger in
    #: edges than its inside (see ``board._tray_start``).
    tray_frame_ratio: float = 2.0
    #: Spread (checkers) of a sure tray count, and the log-cost of each checker assumed hidden
    #: in a second layer, when the whole board is read at once.
    tray_sigma: float = 0.6
    #: A frame is unreadable when the rule of 15 leaves this many more or fewer checkers in a
    #: tray than a clear tray reading shows: one of at least ``tray_clear`` when the rest
    #: leaves more (checkers hidden: an arm), of at least ``tray_clear_over`` when it leaves
    #: fewer. A pile is measured by its length, and its far end is its least sure part (the
    #: last checker's face and, under a low lamp, its shadow lengthen it), so a tray showing
    #: too many must end plainly before it outweighs 24 points read clearly.
    tray_conflict: float = 1.5
    tray_clear: float = 0.6
    tray_clear_over: float = 0.8
    #: The tray's rims counted one by one (``board.tray_slabs``): a run of peaks whose
    #: brightness rises and falls at the pitch at least this regularly (0-1), each at least
    #: ``tray_slab_height`` of the typical one, starting within ``tray_slab_start`` pitches of
    #: the outer end, of at least ``tray_slab_min`` rims and ``tray_slab_contrast`` times the
    #: frame's gradient scale high (the renders' empty trays reach 0.6, piles 0.7 to 3.3).
    #: Where that count and the pile's length differ by ``tray_slab_disagree`` or more (a
    #: pile of ``tray_slab_min`` or more by length with no rims counted too), the tray's count
    #: is taken as no surer than ``tray_unsure``.
    tray_slab_coherence: float = 0.45
    tray_slab_height: float = 0.3
    tray_slab_start: float = 1.5
    tray_slab_min: int = 3
    tray_slab_contrast: float = 0.9
    tray_slab_disagree: float = 1.5
    tray_unsure: float = 0.25
    #: Options of a point this much less likely (log) than its best are not weighed at all.
    joint_prune: float = 25.0
    hidden_cost: float = 0.0
    #: The log-cost of a reading in which a colour has borne off checkers while others are
    #: outside its home board, which only a hit during the bear-off makes (docs/rules.md
    #: rule 4): a tray read as 1 at its surest (0.9) still outweighs it, one read as 2 or more
    #: always does.
    home_cost: float = 3.0
    #: Per-place clip of a run's colour evidence (see ``board._option_scores``).
    colour_place_clip: float | None = 6.0
    #: Ring search: shift (point widths) and relative radius slack; the circle is tried at
    #: -steps..steps shifts each way. A calibration made without a starting position guesses
    #: the board's proportions from a profile, so its checkers' places are less sure and the
    #: search goes wider (``ring_steps_rough``).
    ring_shift: float = 0.075
    ring_steps: int = 1
    ring_steps_rough: int = 2
    ring_radius_slack: float = 0.1
    #: A circle sample counts as an edge above this many times the median gradient.
    ring_edge: float = 1.5
    #: Which of a circle's four arcs (0 = the weakest) stands for its edge evidence; -1: the
    #: whole circle's share.
    ring_rank: int = 0
    #: Heights (share of a checker's diameter) tried for the checkers' rims at calibration
    #: (``calibrate.learn_rim_lift``); a checker stands about 0.23 high.
    rim_lifts: tuple[float, ...] = (0.0, 0.23)
    #: Lower bound on the spread of the learnt ring evidence. A circle's weakest arc has 8
    #: samples, so its score moves in steps of 0.125: under 0.1, one edge sample more or less
    #: (a frame a little darker, read again) swings a place's odds by more than the colour can
    #: (renders at --light 0.6: 124 frames right at 0.08, 127 at 0.1; as stored 129 either way).
    ring_sigma_floor: float = 0.1
    #: Weights and clips of the per-place log-odds. A place plainly a checker's colour
    #: (nearly) outweighs a rim half seen (a circle's weakest arc at 4 of its 8 samples on an
    #: edge, which the learnt rim model puts at 6 to 8 against a checker), so the rule of 15
    #: can tip it (dev1_04's third Black checker on point 6, with the corners found
    #: automatically), but not a rim missing altogether (the ring's clip stays above it).
    #: Renders' first-layer places with wrong-signed odds: 32 at a clip of 6, 31 at 7, 29 at
    #: 8, 58 at 10 (42, 40, 34 with automatic corners); 8 lost 5 points of the real boards
    #: read at --light 0.6, 7 none.
    colour_weight: float = 1.0
    colour_clip: float = 7.0
    #: A place with no rim at all where a checker's would be is no checker, whatever its
    #: colour (an empty bar as dark as Black's checkers): the rim may outweigh the colour.
    ring_clip: float = 9.0
    #: The checker-place network (:mod:`pibg.vision.place_net`) that tells a checker from an
    #: empty place by its shape, whatever the board's colours: "" the one pibg ships, a path
    #: another (``scripts/board_net/train.py``), None none (colour and rim alone decide, and
    #: a hand is told by places unlike board and checker, as before the network).
    place_model: str | None = ""
    #: Its log-odds of a checker are clipped to this (a die found where a run's next checker
    #: would stand still outweighs it).
    place_clip: float = 12.0
    #: A place whose rim is missing where a checker's would be (the rim's evidence,
    #: :class:`~pibg.vision.board.RingModel`, as learnt on the board's starting position)
    #: has that evidence against a checker taken from the network's log-odds, down to this
    #: much (0: not; nor where the calibration learnt no rim, a rough one). The network is
    #: sure (beyond +-3) only where it is right on the renders; where it is unsure, no rim
    #: tells an empty place (render rpd2_12: an empty point beside a stack, the network +0.6).
    #: A rim seen is no evidence of a checker here: a die's outline crosses the circle too
    #: (dev2_08: a cocked four's foot on point 6's first place).
    place_rim_clip: float = 2.0
    #: A checker the network sees with log-odds of at least this is plainly there: the rule
    #: of 15 giving it up means more checkers on the board than a colour has, and the frame
    #: is refused rather than read one short. (Trained with smoothed labels, the network
    #: gives a checker it is sure of about 4.5 to 6.5, an empty place about -4.5 to -5.5.)
    place_plain: float = 4.0
    #: A hand or arm is over the board when the network sees something over at least this
    #: many point places (its "arm" class above one half) that did not look like an arm on
    #: the empty board at calibration. On the renders' boards it was trained on, clean
    #: frames show 0 such places and frames with an arm 6 to 20.
    hand_places: int = 3
    #: ... and the arm must show itself otherwise too: it reaches the board from outside, so
    #: it changes the board's frame (a rail place at least), or, where it passes the frame
    #: unseen, its skin or cloth over some of those places is unlike every colour learnt at
    #: calibration (the empty point's, either checker's: a squared normalised colour distance
    #: of at least this, as far from the empty board as a checker is). On a board whose plain
    #: points look like a sleeve to the network, the places it flags keep their colour and
    #: the frame is untouched.
    hand_far: float = 9.0
    #: ... and, where it passes the frame unseen, it still covers the places nearest the
    #: frame it came over: one of a point's ``hand_edge_slots`` places from its base, or a
    #: place of an end point (1, 12, 13, 24, beside the side frame). A glossy field's sheen
    #: moving from frame to frame lies at the points' tips, in the middle of the board
    #: (render rnu0: 3 to 6 tips flagged in 5 of 11 clean frames, none at a base).
    hand_edge_slots: int = 2
    #: ... or, where it passes the frame unseen and covers no place by it (a bare arm laid
    #: across the points' tips, its grey sleeve over a black frame and tray: render rni2_11,
    #: the frame's colour unchanged), this many of its places are unlike every colour learnt.
    #: ``benchmarks/arm_evidence.py``: of 862 clean frames (``renders/dev``, ``unseen``, the
    #: game, the random sets to the thirteenth, at c7210c8) 3 show three such places and none
    #: five; of 263 (``dev``, ``unseen``, the fifteenth and sixteenth sets) none more than
    #: two; rnu0's glossy field (``hand_edge_slots``, rendered again) 3, 4 and 4 in three of
    #: 11. rni2_11's arm shows 10; of all arms, 57 of 87 and 17 of 28 five or more.
    hand_far_many: int = 7
    #: ... and where the frame changed (a rail place at least), the places it covers lie
    #: together: ``hand_places`` of them (with the middle band's) within ``hand_reach`` point
    #: widths of the next (a place between them may be missed: an arm's light and dark
    #: stripes, render rnd2_08, are flagged every other point), or two of them unlike every
    #: colour learnt (``hand_far``). A lamp's or the daylight's change moves the frame's
    #: colour too, and the network then flags a few places scattered over the board (renders
    #: rnw1, rnv1: three places on points 9, 11 and 17, each like a colour learnt).
    hand_reach: float = 2.3
    #: An owned cube lies on the bar's end, beside the first place of the point either side:
    #: its edges and shadow cross that place's circle (render dev1_14: point 18's empty first
    #: place, plainly the point's colour, scored 0.75 on its rim and was read as a checker).
    #: Within ``cube_ring_reach`` checker widths of the cube found, a place whose colour says
    #: empty has its rim's evidence for a checker clipped to ``cube_ring_clip``, under the
    #: colour's clip, so a plain colour decides; a checker's colour keeps the full clip, and a
    #: missing rim counts in full. Renders, as stored and under the 12 restyles: dev1_14 read
    #: right under 9 more, no frame lost, at clips 3 to 6 and reaches 1.3 to 1.6 alike.
    cube_ring_reach: float = 1.5
    cube_ring_clip: float = 5.0
    #: A run's last place whose rim scores under this (the share of a circle on strong
    #: edges; a checker's scores 0.75 or more 96 % of the time on the renders) is looked at
    #: for a flat die standing there instead of a checker.
    die_place_ring: float = 0.75
    #: ... a die there at least this many die edges from every other checker (1.68 for the
    #: renders' one; pibg.sim's die leaning on the checker before it: 0.79).
    die_place_room: float = 1.0
    #: Spread of the cube's contrast with the bar beside it (log ratio per channel).
    cube_contrast_sigma: float = 0.25
    #: The cube is missing when even its likeliest place scores below minus this (log-odds).
    cube_absent: float = 60.0
    #: A centred cube found with less confidence than this while checkers stand on the bar
    #: is looked for again with the bar's checkers known (``cube.locate``'s ``checkers``).
    cube_sure: float = 0.5
    #: Temperature turning class distances into probabilities.
    softness: float = 1.0
