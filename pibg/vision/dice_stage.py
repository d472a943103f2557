"""The vision stage's dice: where on a calibrated board's top-down view dice may lie, at which
size they are looked for, and the dice found there (by :func:`pibg.vision.dice.find_dice`)
read from the camera frame.

:class:`DiceStage` is built by :class:`~pibg.vision.pipeline.Vision` from its calibration and
is handed each frame's inputs explicitly: the top-down view, the camera frame, the checkers
just counted (which keep dice from being looked for where they stand), the light's gain.
It remembers one thing from frame to frame: the die size that found the dice last
(``DIE_SIZE_SETTLED``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from pibg.observation import DieRead
from pibg.vision import board as B
from pibg.vision.calibrate import Calibration
from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_spot import spots as _spots
from pibg.vision.geometry import Array, Layout, VisionConfig, distort, to_image

#: Dice lie between this (real dice: ~16 mm on 38 mm checkers) and ``Layout.die_px``
#: (checker diameters).
DIE_SMALL = 0.42
#: Real dice come smaller still: 0.34 checker diameters on the tournament photos of
#: ``photos/boards`` (read at 0.42, a two's pips lie too close for a two, a three's corner
#: pips for a three). Looked for at this size too, last, while the others leave a die unread.
DIE_TINY = 0.34
#: After this many frames running with dice found at one size, the others are not tried.
DIE_SIZE_SETTLED = 3
#: A checker counted keeps dice from being looked for within this many checker diameters of
#: its place (a little past its edge: a die there lies on it or against it).
CHECKER_MASK = 0.65

#: ``crop(x, y, half)``: a square of the top-down view cut from the camera frame, and its
#: pixels per view pixel (see :meth:`DiceStage.frame_crop`).
Crop = Callable[..., tuple[Array, float]]

_find_dice: Callable[..., list[DieRead]] | None
try:  # The dice stage is written separately; without it no dice are reported.
    from pibg.vision.dice import find_dice as _find_dice
    from pibg.vision.dice_find import face_near as _face_near
except ImportError:  # pragma: no cover - depends on the checkout
    _find_dice = None

_GREY = np.array([0.114, 0.587, 0.299])  #: grey level of B, G, R (ITU-R BT.601)


class DiceStage:
    """The dice of one calibrated board.

    ``homography`` is the calibration's ideal (undistorted) camera frame -> top-down view
    homography, ``slots`` the points' checker places in the view (``Layout.point_slots``),
    ``nadir`` the point of the view below the camera (None when it is not known): the
    :class:`~pibg.vision.pipeline.Vision` that owns the stage has them already.
    """

    def __init__(self, calibration: Calibration, config: VisionConfig, homography: Array,
                 slots: Array, nadir: tuple[float, float] | None) -> None:
        cal = calibration
        self.calibration = calibration
        self.config = config
        self._layout: Layout = cal.layout
        self._h = homography
        self._h_inv = np.linalg.inv(cal.homography())
        self._slots = slots
        self._nadir = nadir
        # the lightest things the board always shows: the lighter checkers (White's, unless
        # the players named them the other way round), its light points
        self._light_grey = max(_grey(cal.white.mean), _grey(cal.black.mean), float(np.percentile(
            np.asarray(cal.points_bg, np.float64).reshape(-1, 3) @ _GREY, 90)))
        # the die size that found dice last, and in how many frames running
        self._die_size: tuple[float | None, int] = (None, 0)

    def read(self, canon: Array, frame: Array | None, run: Array, bar_run: Array,
             cube_at: tuple[float, float] | None, gain: Array) -> tuple[DieRead, ...]:
        """The dice of a frame whose checkers are counted: ``run`` on the points and
        ``bar_run`` on the bar (White's, Black's), the cube seen at ``cube_at`` (canonical;
        None where it was not seen), the frame's light ``gain`` against the calibration's.
        Positions are in the camera frame."""
        return self.dice(canon, self.mask(run), frame,
                         bar_mask=functools.partial(self.bar_mask, bar_run, cube_at),
                         exposure=self.exposure(gain))

    def mask(self, run: Array) -> Array:
        """Where dice may lie: the playing surface without the checkers just counted and
        without the bar (a checker's round top is no die face, and a die on a checker or on
        the bar is no roll anyway: docs/rules.md rule 14)."""
        lay = self._layout
        w, h = lay.size
        mask = np.zeros((h, w), np.uint8)
        # a die's centre lies half an edge inside the surface: the frame's edge and the
        # points' bases along it are no pips
        inset = round(DIE_SMALL / 2 * lay.checker_px)
        corners = lay.surface_corners() + np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * inset
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), (255,))
        half_bar = lay.profile.bar * lay.u / 2
        cv2.rectangle(mask, (int(lay.bar_x - half_bar), 0), (int(lay.bar_x + half_bar), h), (0,),
                      -1)
        r = round(CHECKER_MASK * lay.checker_px)
        for slots, counts in ((self._slots, run),):
            for p in range(len(counts)):
                for j in range(min(int(counts[p]), slots.shape[1])):
                    x, y = slots[p, j]
                    cv2.circle(mask, (round(float(x)), round(float(y))), r, (0,), -1)
        return mask

    def bar_mask(self, bar_run: Array, cube_at: tuple[float, float] | None) -> Array:
        """Where a die on the bar may lie: the bar without the checkers on it and without
        the cube (where it was seen, or at any of its places when it was not)."""
        lay = self._layout
        w, h = lay.size
        mask = np.zeros((h, w), np.uint8)
        half_bar = lay.profile.bar * lay.u / 2
        top, bottom = lay.surface_corners()[:, 1].min(), lay.surface_corners()[:, 1].max()
        cv2.rectangle(mask, (round(lay.bar_x - half_bar), round(top)),
                      (round(lay.bar_x + half_bar), round(bottom)), (255,), -1)
        cubes = [cube_at] if cube_at is not None else list(lay.cube_places().values())
        for x, y in cubes:
            cv2.circle(mask, (round(x), round(y)), round(0.75 * lay.u), (0,), -1)
        r = round(CHECKER_MASK * lay.checker_px)
        for white, n in ((True, int(bar_run[0])), (False, int(bar_run[1]))):
            for x, y in lay.bar_slots(white)[:n]:
                cv2.circle(mask, (round(float(x)), round(float(y))), r, (0,), -1)
        return mask

    def exposure(self, gain: Array) -> float:
        """How many times brighter the dice stage reads this frame: enough to bring the
        lighter of White's checkers and the light points, as light as the frame's light
        (``gain`` against the calibration's) makes them, to ``dice_exposure_ref`` on a dark
        board or in a dim room; 1 where less than ``dice_exposure_min`` would do (see
        :func:`~pibg.vision.dice_find.find_dice`)."""
        cfg = self.config
        now = self._light_grey * float(np.dot(_GREY, np.asarray(gain, np.float64).ravel()[:3]))
        e = min(cfg.dice_exposure_max, cfg.dice_exposure_ref / max(now, 1.0))
        return float(e) if e >= cfg.dice_exposure_min else 1.0

    def under_dice(self, canon: Array, odd: Array, frame: Array | None,
                   exposure: float = 1.0) -> int:
        """How many of the ``odd`` checker places (like neither board nor checker) lie under
        the two strongest dice found on the playing surface (dice thrown on free points)."""
        lay = self._layout
        free = self.mask(np.zeros(24, np.int64))
        dice = self.dice(canon, free, frame, canonical=True, learn=False, exposure=exposure)
        if not dice:
            return 0
        centres = np.array([[d.x, d.y] for d in dice[:2]])
        reach = 0.5 * lay.checker_px + 0.75 * lay.die_px
        places = self._slots[odd]
        d = np.linalg.norm(places[:, None, :] - centres[None, :, :], axis=-1)
        return int((d.min(1) < reach).sum())

    def dice(self, canon: Array, mask: Array | None = None, frame: Array | None = None,
             canonical: bool = False, learn: bool = True,
             bar_mask: Callable[[], Array] | None = None, exposure: float = 1.0
             ) -> tuple[DieRead, ...]:
        """Dice found on the top-down view, read from the camera frame when it is given (a
        die's pips are a few pixels across in the top-down view, sharper in the frame); their
        places in the camera frame, or in the top-down view if ``canonical``; ``learn``: let
        the dice found settle which of the two die sizes to look for. With ``bar_mask`` (made
        when needed), a throw's one flat die found on the surface sends its other die looked
        for on the bar, where it is no roll (reported not flat)."""
        if _find_dice is None:
            return ()
        # Dice come in three sizes (small real ones, larger real ones, and the large ones of
        # pibg.sim). Until one size has found the most flat dice in DIE_SIZE_SETTLED frames
        # running, all are tried and the one finding more flat dice (then surer ones) wins: a
        # die seen at another size looks cocked, or a few of its pips pass for a small die (a
        # big 5-2 read as 1-1 at a small size, as surely). Between sizes finding as many, the
        # one found last wins.
        sizes = self.die_sizes()
        last, runs = self._die_size
        if last in sizes and runs >= DIE_SIZE_SETTLED:
            sizes = [last]
        crop = self.frame_crop(frame) if frame is not None else None
        # the dice-finding network reads the view once, and only if a rescue asks
        spotted = functools.cache(functools.partial(_spots, canon, DEFAULT_CONFIG.spot_sure))
        best: tuple[int, bool, float, int] = (-1, False, 0.0, 0)
        found: list[Any] = []
        chosen = None
        tried: list[tuple[float, list[Any]]] = []
        # the smallest size last, and only while the others leave a die of the two unread: it
        # finds the most candidates, and costs the most
        order = sizes[1:] + sizes[:1]
        try:
            for size in order:
                if size == sizes[0] and len(sizes) > 1 and best[0] >= 2:
                    continue
                got = _find_dice(canon, die_px=size, surface_mask=mask, crop=crop,
                                 nadir=self._nadir, rescue=len(sizes) == 1, exposure=exposure,
                                 spotted=spotted)
                tried.append((size, got))
                # a game has two dice: more found at one size are pips of larger dice
                flat = sum(d.flat for d in got)
                key = (min(flat, 2) - max(0, len(got) - 2), size == last,
                       sum(d.confidence for d in got if d.flat), len(got))
                if key > best:
                    best, found, chosen = key, got, size
        except NotImplementedError:
            return ()
        for large, big in tried:
            if chosen is None or large <= chosen or last == chosen:
                continue
            if any(d.flat for d in big) and all(
                    any(math.hypot(d.x - e.x, d.y - e.y) < 0.75 * large for e in big)
                    for d in found):
                # every die of the smaller size lies on a larger die's face: they are its
                # pips (a six's columns read as a one and a three), unless dice of the
                # smaller size were seen last
                found, chosen = big, large
                best = (min(sum(d.flat for d in big), 2), False, 0.0, len(big))
        if len(sizes) > 1 and chosen is not None and sum(d.flat for d in found) < 2:
            # the network's rescue reads a die of any size, but its face's outline is judged
            # against the size asked: asked at the size chosen, then at the others while a
            # die is left unread (renders rnh3_02, rnh3_05, rnh3_10, rnh4_04: the tiny size
            # chosen, one die or none read there, both read by the rescue at their own 0.42).
            # At another size, only off every die found not flat at any size: a cocked
            # die's pips read at another size pass for flat dice (pibg.sim m010: a cocked
            # 4-2 as 1-1). A die read from a cocked die lies on its face: within three
            # quarters of an edge of its centre, the larger edge of the two sizes (render
            # rpd1_02: a phantom found not flat at the tiny size, between two white dice
            # 15 and 20 px off it, kept both out while a die edge of the largest size
            # reached them)
            cocked = [(d.x, d.y, s) for s, got in tried for d in got if not d.flat]
            for size in [chosen] + [s for s in sizes if s != chosen]:
                again = _find_dice(canon, die_px=size, surface_mask=mask, crop=crop,
                                   nadir=self._nadir, exposure=exposure, spotted=spotted)
                if size != chosen:
                    again = [d for d in again if not any(
                        math.hypot(d.x - x, d.y - y) < 0.75 * max(s, size)
                        for x, y, s in cocked)]
                if sum(d.flat for d in again) > sum(d.flat for d in found):
                    found = again
                if sum(d.flat for d in found) >= 2:
                    break
        if chosen is not None and crop is not None and chosen < self.die_sizes()[1]:
            found, chosen = self._read_larger(found, chosen, crop)
        if best[0] > 0 and learn:
            self._die_size = (chosen, runs + 1 if chosen == last else 1)
        if bar_mask is not None and chosen is not None and len(found) == 1 and found[0].flat:
            found = found + self.bar_dice(canon, chosen, bar_mask(), crop, exposure)
        if not found:
            return ()
        xy = np.array([[d.x, d.y] for d in found])
        if not canonical:
            xy = self.to_frame(xy)
        return tuple(DieRead(d.value, float(x), float(y), d.flat, d.confidence)
                     for d, (x, y) in zip(found, xy, strict=True))

    def _read_larger(self, found: list[Any], tiny: float, crop: Crop
                     ) -> tuple[list[Any], float]:
        """The dice ``found`` at the ``tiny`` size, read again at the small one
        (:func:`~pibg.vision.dice_find.face_near`) where the die-face network is surer of
        their faces there (over the flat ones, on average), and the size to keep.

        The tiny size finds the most candidates, a die's pips among them, and a crop cut for
        a tiny die cuts a larger die's corner pips off: render rpa4's dark dice (0.42 of a
        checker, as every render's) were found at the tiny size alone and read there a four
        as a two, a six as a one; at the small size the network reads eleven of twelve right,
        surer. Over ``renders/dev``, the game and the real photos (tournament dice, tiny
        indeed) it was asked 7 times and moved to the small size 3 times, every value the
        same."""
        flat = [i for i, d in enumerate(found) if d.flat]
        if not flat:
            return found, tiny
        small = self.die_sizes()[1]
        at_tiny = [_face_near(crop, found[i].x, found[i].y, tiny) for i in flat]
        at_small = [_face_near(crop, found[i].x, found[i].y, small) for i in flat]
        if (any(v == 0 for v, _ in at_small)
                or sum(p for _, p in at_small) <= sum(p for _, p in at_tiny)):
            return found, tiny
        out = list(found)
        for i, (v, p) in zip(flat, at_small, strict=True):
            out[i] = dataclasses.replace(found[i], value=v, confidence=p)
        return out, small

    def die_sizes(self) -> list[float]:
        """The die edges looked for, in view pixels, smallest first."""
        lay = self._layout
        return [DIE_TINY * lay.checker_px, DIE_SMALL * lay.checker_px, lay.die_px]

    def in_places(self, canon: Array, run: Array, ring: Array, frame: Array | None,
                  cocked: bool = False) -> list[tuple[int, int]]:
        """The (point, place) of each run's last first-layer checker that is a die: the rim
        faint (under ``die_place_ring``) and a flat die found centred within the place when
        it is searched as free surface (only the place's surroundings are searched),
        ``die_place_room`` die edges or more from every other checker (nearer, it may lean
        on one, its side turned up, and pass for flat: it stays a checker, no roll), or
        with ``cocked`` (the throw's other die found flat) a die found cocked there, its
        face within a quarter of a die edge more of the place's centre (tipped against the
        checker beside it, the face it shows lies off its footprint; render dev2_08's four
        leaning on point 5 was read as a White checker on point 6): the place is empty and
        the die is reported, not flat. With no die of a throw on the board a checker's
        relief passes for a cocked die (pibg.sim replays: a Black checker taken off point
        17 in m012). The view is read as it is, even when dim: brightened, a black
        checker's relief passed for a two (game frame 082 in light scaled to 0.6)."""
        if _find_dice is None:
            return []
        lay, cfg = self._layout, self.config
        k = self._slots.shape[1]
        last = [(p, int(run[p]) - 1) for p in range(24)
                if 0 < run[p] <= k and ring[p, int(run[p]) - 1] < cfg.die_place_ring]
        if not last:
            return []
        free = self.mask(np.zeros(24, np.int64))
        mask = self.mask(run)
        size = self._die_size[0]
        sizes = [size] if size is not None else self.die_sizes()
        crop = self.frame_crop(frame) if frame is not None else None
        r = round(CHECKER_MASK * lay.checker_px)
        half = round(1.5 * lay.checker_px)
        h, w = mask.shape
        out = []
        for p, j in last:
            sx, sy = (float(c) for c in self._slots[p, j])
            x0, y0 = max(0, round(sx) - half), max(0, round(sy) - half)
            x1, y1 = min(w, round(sx) + half + 1), min(h, round(sy) + half + 1)
            here = mask[y0:y1, x0:x1].copy()
            cv2.circle(here, (round(sx) - x0, round(sy) - y0), r, (255,), -1)
            here &= free[y0:y1, x0:x1]
            win_crop = (None if crop is None else
                        functools.partial(_shifted, crop, float(x0), float(y0)))
            nadir = None if self._nadir is None else (self._nadir[0] - x0, self._nadir[1] - y0)
            room = cv2.distanceTransform(here, cv2.DIST_L2, 5)
            for s in sizes:
                got = _find_dice(np.ascontiguousarray(canon[y0:y1, x0:x1]), die_px=s,
                                 surface_mask=here, crop=win_crop, nadir=nadir, rescue=False,
                                 near=(sx - x0, sy - y0, r))
                if any(_lies_at(d, sx - x0, sy - y0, r, s, room, cfg, cocked) for d in got):
                    out.append((p, j))
                    break
        return out

    def bar_dice(self, canon: Array, size: float, bar_mask: Array, crop: Crop | None,
                 exposure: float = 1.0) -> list[DieRead]:
        """Dice lying on the bar (``bar_mask``), as not flat: only the bar's strip of the
        top-down view is searched."""
        assert _find_dice is not None
        cols = np.nonzero(bar_mask.any(axis=0))[0]
        if len(cols) == 0:
            return []
        pad = round(size)
        x0, x1 = max(0, int(cols[0]) - pad), min(canon.shape[1], int(cols[-1]) + pad + 1)
        strip_crop = (None if crop is None else
                      functools.partial(_shifted, crop, float(x0), 0.0))
        nadir = None if self._nadir is None else (self._nadir[0] - x0, self._nadir[1])
        got = _find_dice(np.ascontiguousarray(canon[:, x0:x1]), die_px=size,
                         surface_mask=np.ascontiguousarray(bar_mask[:, x0:x1]),
                         crop=strip_crop, nadir=nadir, rescue=False, exposure=exposure)
        return [DieRead(d.value, d.x + x0, d.y, False, d.confidence) for d in got]

    def to_frame(self, pts: Array) -> Array:
        """Top-down view coordinates -> camera frame pixels (through the lens, if it bends)."""
        cal = self.calibration
        if not cal.distortion:
            return to_image(self._h_inv, pts)
        ideal = to_image(np.linalg.inv(self._h), pts)
        return distort(ideal, cal.distortion, cal.image_size)

    def frame_crop(self, frame: Array, n: int = 72) -> Crop:
        """Squares of the top-down view cut from the camera frame: ``crop(x, y, half)`` warps
        only that square (n x n pixels) through the homography, or, with a wide lens's
        distortion, samples it through the lens model (the owned cube's number is read
        through it too)."""
        h = self._h
        bent = bool(self.calibration.distortion)

        def crop(x: float, y: float, half: float) -> tuple[Array, float]:
            k = n / (2.0 * half)
            if bent:
                g = (np.arange(n, dtype=np.float64) + 0.5) / k
                gx, gy = np.meshgrid(x - half + g, y - half + g)
                src = self.to_frame(np.stack([gx.ravel(), gy.ravel()], -1))
                mx = src[:, 0].reshape(n, n).astype(np.float32)
                my = src[:, 1].reshape(n, n).astype(np.float32)
                out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
                return np.asarray(out), k
            a = np.array([[k, 0.0, -k * (x - half)], [0.0, k, -k * (y - half)], [0.0, 0.0, 1.0]])
            m = np.asarray(a @ h, np.float64)
            out = cv2.warpPerspective(frame, m, (n, n), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE)
            return np.asarray(out), k

        return crop


def _grey(lab: tuple[float, float, float]) -> float:
    """The grey level (0-255) of a colour given in Lab on OpenCV's 8-bit scale."""
    bgr = np.clip(B.from_lab(np.asarray(lab, np.float32)), 0.0, 255.0).astype(np.float64)
    return float(bgr @ _GREY)


def _lies_at(d: DieRead, x: float, y: float, r: float, size: float, room: Array,
             cfg: VisionConfig, cocked: bool = False) -> bool:
    """Whether the die ``d`` (of edge ``size``), found round the checker's place centred at
    (x, y) with radius ``r``, is what stands there (see :meth:`DiceStage.in_places`):
    flat, centred within the place and ``die_place_room`` die edges or more from every
    other checker (``room``: distance to them); cocked (where ``cocked`` allows it), its
    face within a quarter of an edge more."""
    off = math.hypot(d.x - x, d.y - y)
    if not d.flat:
        return cocked and off < r + size / 4
    return off < r and bool(room[int(d.y), int(d.x)] >= cfg.die_place_room * size)


def _shifted(crop: Crop, x0: float, y0: float, x: float, y: float, half: float
             ) -> tuple[Array, float]:
    """``crop`` of a window whose top-left corner lies at (x0, y0) of the whole view."""
    return crop(x + x0, y + y0, half)
