"""The one vision orchestrator: a frame in, a :class:`~pibg.observation.BoardObservation` out.

>>> from pibg.sim import SimScene, render, SIM_CORNERS
>>> from pibg.vision.geometry import START_POINTS
>>> vision = Vision.from_start_frame(render(SimScene(START_POINTS)), corners=SIM_CORNERS)
>>> vision.observe(render(SimScene(START_POINTS, seed=3))).signed_points() == START_POINTS
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from pibg.exc import VisionError
from pibg.observation import BoardObservation, CubeRead, DieRead, RegionRead
from pibg.vision import board as B
from pibg.vision import cube as C
from pibg.vision.calibrate import Calibration, learn, learn_from_any_frame
from pibg.vision.geometry import (
    Array,
    Layout,
    VisionConfig,
    WhiteHome,
    camera_centre,
    canonical_maps,
    distort,
    lift,
    to_image,
)

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
#: The owned cube's number is read from a square of the top-down view this many checkers
#: across round where the cube was found, sampled at CUBE_PATCH_PX pixels a side.
CUBE_PATCH = 1.6
CUBE_PATCH_PX = 128
#: The last cube read is kept while its patch, shrunk to CUBE_SAME_PX pixels a side, differs
#: from the new one by at most CUBE_SAME grey levels anywhere: the same face in the same light
#: (a turned cube, a moved one, a shadow or a die against it changes some pixel by far more).
CUBE_SAME_PX = 32
CUBE_SAME = 12.0

_find_dice: Callable[..., list[DieRead]] | None
try:  # The dice stage is written separately; without it no dice are reported.
    from pibg.vision.dice import find_dice as _find_dice
except ImportError:  # pragma: no cover - depends on the checkout
    _find_dice = None


@dataclass
class Vision:
    """Reads frames of one calibrated board.

    Build it with :meth:`from_calibration` (a TOML file or a :class:`Calibration`) or
    :meth:`from_start_frame` (a frame of the starting position and its corners).
    """

    calibration: Calibration
    config: VisionConfig = field(default_factory=VisionConfig)
    read_dice: bool = True

    def __post_init__(self) -> None:
        self._layout: Layout = self.calibration.layout
        cal = self.calibration
        # Frames are warped through the lens when it distorts (self._maps); positions are
        # reported in the frame through the lens too (_to_frame).
        self._h = cal.ideal_homography()
        self._h_inv = np.linalg.inv(cal.homography())
        self._maps: tuple[Array, Array] | None = None
        if cal.distortion:
            self._maps = canonical_maps(self._h, cal.layout, cal.distortion, cal.image_size)
        self._slots = self._layout.point_slots()
        # The camera over the board (from the homography): things standing on the board are
        # seen leaning away from the point below it.
        camera = camera_centre(self._h, cal.image_size)
        self._nadir = camera[:2] if camera is not None else None
        self._bar_slots = np.stack([self._layout.bar_slots(True), self._layout.bar_slots(False)])
        self._bg_lab = B.to_lab(cal.points_bg)
        # colours lie closer together on a darker board or under less light, about in
        # proportion to the lightness of White's checkers: so does "like neither" (down to a
        # floor: the camera's noise does not shrink with the light)
        dim = min(1.0, cal.white.mean[0] / self.config.unexplained_light)
        self._unexplained = self.config.unexplained * max(dim ** 2, self.config.unexplained_floor)
        # the lightest things the board always shows: White's checkers, its light points
        self._light_grey = max(_grey(cal.white.mean), float(np.percentile(
            np.asarray(cal.points_bg, np.float64).reshape(-1, 3) @ _GREY, 90)))
        self._bar_lab = B.to_lab(cal.bar_bg)
        self._rail_places = self._layout.rail_places()
        w, h = self._layout.size
        # Without a starting position (checker_radius_px 0) checkers' places are guesses.
        steps = self.config.ring_steps if cal.checker_radius_px else self.config.ring_steps_rough
        top = cal.rim_lift * self._layout.checker_px
        self._ring_idx = B.ring_index(self.config, self._layout,
                                      lift(self._slots, camera, top), (h, w), steps)
        self._bar_ring_idx = B.ring_index(self.config, self._layout,
                                          lift(self._bar_slots, camera, top), (h, w), steps)
        self._rails_lab = B.to_lab(cal.rails) if len(cal.rails) else cal.rails
        # The owned cube's last reading: (patch shrunk, value, confidence); see _cube_value.
        self._cube_seen: tuple[Array, int | None, float] | None = None
        # Light is compared per quadrant of the board (left/right half, near/far side).
        q = np.zeros(self._slots.shape[:2], np.int32)
        for p in range(24):
            q[p] = (0 if p < 12 else 2) + (1 if (p % 12) < 6 else 0)
        self._quadrants = q

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_calibration(cls, cal: Calibration | str | Path,
                         config: VisionConfig | None = None) -> Vision:
        """:raises CalibrationError: the file is missing or malformed."""
        c = cal if isinstance(cal, Calibration) else Calibration.load(cal)
        return cls(c, config or VisionConfig())

    @classmethod
    def from_start_frame(cls, frame: Array, corners: Any,
                         white_home: WhiteHome | None = None,
                         config: VisionConfig | None = None, *,
                         corners_on_rims: bool = False) -> Vision:
        """Calibrate from a frame of the starting position (``corners_on_rims``: the
        corners are the board finder's, see :func:`~pibg.vision.calibrate.learn`).

        :raises CalibrationError: not a starting position. :raises BoardNotFoundError:
        """
        cfg = config or VisionConfig()
        return cls(learn(cfg, frame, np.asarray(corners, np.float64), white_home,
                         corners_on_rims=corners_on_rims), cfg)

    @classmethod
    def from_corners(cls, frame: Array, corners: Any, white_home: WhiteHome,
                     profile: str | None = None, config: VisionConfig | None = None) -> Vision:
        """A rough Vision for one frame of any position: colours are found in the frame itself.

        :raises BoardNotFoundError: the corners make no board.
        """
        cfg = config or VisionConfig()
        return cls(learn_from_any_frame(cfg, frame, np.asarray(corners, np.float64), white_home,
                                        profile), cfg)

    # -- stages ----------------------------------------------------------------------------
    @property
    def layout(self) -> Layout:
        return self._layout

    def canonical(self, frame: Array) -> Array:
        """The top-down view (White's home at the bottom right)."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise VisionError(f"expected a BGR frame, got shape {frame.shape}")
        if self._maps is not None and frame.shape[:2] == self.calibration.image_size[::-1]:
            return np.asarray(cv2.remap(frame, *self._maps, cv2.INTER_LINEAR))
        return np.asarray(cv2.warpPerspective(frame, self._h, self._layout.size,
                                              flags=cv2.INTER_LINEAR))

    def observe(self, frame: Array) -> BoardObservation:
        """Read one frame. A hand or arm over the board gives an unreadable observation, and
        so does a frame of another size than the calibration's (its corners would not fit)."""
        w, h = self.calibration.image_size
        if frame.ndim >= 2 and frame.shape[:2] != (h, w):
            return BoardObservation.unreadable(
                f"the frame is {frame.shape[1]}x{frame.shape[0]} but the calibration is for "
                f"{w}x{h}: set the camera to {w}x{h}, or calibrate again at this size")
        canon = self.canonical(frame)
        return self.observe_canonical(canon, frame)

    def observe_canonical(self, canon: Array, frame: Array | None = None) -> BoardObservation:
        """Read a canonical view; ``frame`` (the camera frame) sharpens the cube's number."""
        cfg, cal, lay = self.config, self.calibration, self._layout
        img = canon
        ii = cv2.integral(canon)
        feat = B.sample_discs(cfg, lay, img, self._slots, integral=ii)
        gains = B.photometric_gains(feat, cal.points_bg, self._quadrants)
        gain = np.median(gains.reshape(-1, 3), 0)
        reading = B.read_places(cfg, feat, gains, cal.points_bg, self._bg_lab, cal.white,
                                cal.black)
        odd = self._odd(reading)
        if int(odd.sum()) >= min(need for _, need in cfg.hand_rules):
            # like neither board nor checker in this light, nor in the light's tone curve
            # changed (see ``board.photometric_tone``): light and dark colours shifted apart
            toned = B.read_places(cfg, feat, gains, cal.points_bg, self._bg_lab, cal.white,
                                  cal.black, B.toned(feat, *B.photometric_tone(
                                      cfg, feat, cal.points_bg, self._quadrants, gains)))
            odd &= self._odd(toned, cfg.tone_explains)
        unexplained = int(odd.sum())
        rails = self._rails_changed(img, gain, ii)
        # an arm is wider than a point: over the points it crosses points of both colours
        # (neighbouring points differ), while the light changing on points of one colour only
        # (a lamp's sheen on glossy points come or gone) leaves the other colour alone
        across = min(int(odd[0::2].sum()), int(odd[1::2].sum())) >= cfg.hand_both_colours
        for need_rails, need_places in cfg.hand_rules:
            if across and rails >= need_rails and unexplained >= need_places:
                if need_rails == 0 and unexplained - self._under_dice(
                        canon, odd, frame, self._dice_exposure(gain)) < need_places:
                    continue  # the dice, not a hand: an arm crosses the frame
                return BoardObservation.unreadable(self._over_the_board(rails, unexplained))
        edges, scale = B.edge_map(cfg, canon)
        ring = B.ring_scores(edges, self._ring_idx, self._slots.shape[:-1], cfg.ring_rank)
        found_cube = C.find_cube_at(cfg, lay, img, cal.cube_bg,
                                    (cal.bar_bg[0][0] + cal.bar_bg[1][0]) / 2.0, ii)
        logits = B.occupancy_logits(cfg, reading, ring, cal.ring, self._ring_clip(*found_cube))
        obs, run = self._from_logits(canon, frame, ii, gain, edges, scale, reading, ring, logits,
                                     found_cube)
        if obs.readable and self.read_dice and len(obs.dice) < 2:
            # a die lying where a run's next checker would stand passes for that checker (its
            # outline crosses the place's circle): a flat die found there, the rim faint, is
            # the die, and the place is empty (looked for while a die of the two is missing;
            # a cocked one too while the other lies flat)
            other = len(obs.dice) == 1 and obs.dice[0].flat
            freed = self._dice_in_places(canon, run, ring, frame, cocked=other)
            if freed:
                logits = logits.copy()
                logits[tuple(np.transpose(freed))] = -(cfg.colour_clip * cfg.colour_weight
                                                       + cfg.ring_clip)
                again, _ = self._from_logits(canon, frame, ii, gain, edges, scale, reading,
                                             ring, logits, found_cube)
                if again.readable:
                    obs = again
        return obs

    def _over_the_board(self, rails: int, unexplained: int) -> str:
        """Why a frame whose places look unlike the calibration's is unreadable: a hand, or
        (most of the board's frame changed: ``misfit_rails``) a calibration that does not fit."""
        total = len(self._rail_places)
        if rails >= self.config.misfit_rails * total:
            return (f"the calibration does not fit this frame: {rails} of {total} places on "
                    f"the board's frame look unlike it (the camera or the board moved, or the "
                    f"frame is from another set-up): calibrate again with this camera")
        return (f"something over the board (a hand or arm?): {rails} places on the frame "
                f"changed, {unexplained} checker places look like neither board nor checker")

    def _ring_clip(self, cube: CubeRead | None, at: tuple[float, float]) -> Array | None:
        """The clip of each place's rim evidence for a checker where its colour says empty
        (see :func:`board.occupancy_logits`): ``cube_ring_clip`` within ``cube_ring_reach``
        of an owned cube found on the bar, None (the usual clip everywhere) without one."""
        if cube is None or cube.owner == "center":
            return None
        cfg = self.config
        d = np.hypot(self._slots[..., 0] - at[0], self._slots[..., 1] - at[1])
        return np.asarray(np.where(d < cfg.cube_ring_reach * self._layout.checker_px,
                                   cfg.cube_ring_clip, cfg.ring_clip), np.float32)

    def _odd(self, reading: B.SlotReading, share: float = 1.0) -> Array:
        """The places like neither board nor checker: past ``share`` of the bound, and not
        plainly one class either (see ``hand_plain_ratio``)."""
        dist = np.sort(np.stack([reading.d_empty, reading.d_white, reading.d_black]), axis=0)
        return np.asarray((dist[0] > share * self._unexplained)
                          & (dist[1] < self.config.hand_plain_ratio * dist[0]))

    def _from_logits(self, canon: Array, frame: Array | None, ii: Array, gain: Array,
                     edges: Array, scale: float, reading: B.SlotReading, ring: Array,
                     logits: Array, found_cube: tuple[CubeRead | None, tuple[float, float]]
                     ) -> tuple[BoardObservation, Array]:
        """The board read from each place's log-odds of a checker (the points' runs, the
        bar, the trays, the cube and the dice), and the points' first-layer runs."""
        cfg, cal, lay = self.config, self.calibration, self._layout
        img = canon
        _run, _colour, cum = B.counts_from_logits(logits, reading)
        # Bar: like two short points, filled from the middle outwards.
        grads_bar = B.ring_scores(edges, self._bar_ring_idx, self._bar_slots.shape[:-1],
                                  cfg.ring_rank)
        bar_read = B.read_places(cfg, B.sample_discs(cfg, lay, img, self._bar_slots, integral=ii),
                                 gain, cal.bar_bg, self._bar_lab, cal.white, cal.black)
        bar_logits = B.occupancy_logits(cfg, bar_read, grads_bar, cal.bar_ring)
        _bar_run, _bar_colour, bar_cum = B.counts_from_logits(bar_logits, bar_read)
        # Trays.
        est_w, conf_w = B.tray_count(cfg, lay, canon, cal.tray_bg[0], True, scale)
        est_b, conf_b = B.tray_count(cfg, lay, canon, cal.tray_bg[1], False, scale)
        k = lay.slots_per_point()
        # The whole board at once: 24 points and the bar's two sides (as two short points).
        all_cum, all_read = B.with_bar(cum, reading, bar_cum, bar_read)
        jr = B.joint_counts(cfg, all_cum, all_read, {B.WHITE: 0, B.BLACK: 0},
                            {B.WHITE: (est_w, conf_w), B.BLACK: (est_b, conf_b)})
        run, bar_run = jr.run[:24], jr.run[24:]
        if jr.ties:
            # the rule of 15 leaves two readings as likely: a checker hidden or one too many
            # seen, and the frame does not tell where; better no reading than a guess
            pts = [str(p + 1) for p in jr.ties if p < 24]
            where = [f"point{'s' if len(pts) > 1 else ''} {', '.join(pts)}"] if pts else []
            where += ["the bar"] if any(p >= 24 for p in jr.ties) else []
            return BoardObservation.unreadable(
                f"the checkers add up to 15 in two ways as likely, differing on "
                f"{' and '.join(where)} (a 16th checker, something over the board, or a die "
                f"where a checker would stand?)"), run
        bar_counts = {c: int(bar_run[jr.colour[24:] == c].sum()) for c in (B.WHITE, B.BLACK)}
        off_w, off_b = jr.off[B.WHITE], jr.off[B.BLACK]
        # The rule of 15 could only be kept against a clear tray: something hides checkers or
        # shows false ones (an arm, a sleeve): better no reading than a wrong one.
        for c, est, conf, off in ((B.WHITE, est_w, conf_w, off_w), (B.BLACK, est_b, conf_b, off_b)):
            clear = cfg.tray_clear_over if est > off else cfg.tray_clear
            if abs(off - est) > cfg.tray_conflict and conf >= clear:
                name = "White" if c == B.WHITE else "Black"
                return BoardObservation.unreadable(
                    f"{name}'s checkers do not add up to 15: the tray shows {est:.0f}, the rest "
                    f"leaves {off} (something over the board?)"), run
        conf_w, conf_b = jr.tray_conf[B.WHITE], jr.tray_conf[B.BLACK]
        rims = np.concatenate([ring[:, :2].mean(1), np.ones(len(jr.run) - 24)])
        all_reads = B.joint_point_reads(jr, k, rims)
        reads, bar_conf = all_reads[:24], min(r.confidence for r in all_reads[24:])
        cube, cube_at = found_cube
        if cube is not None and cube.owner != "center" and frame is not None:
            cube = self._cube_value(frame, cube, cube_at)
        dice = (self._dice(canon, lay, self._dice_mask(run, bar_run), frame,
                           bar_mask=functools.partial(self._bar_mask, bar_run, cube_at),
                           exposure=self._dice_exposure(gain))
                if self.read_dice else ())
        return BoardObservation(
            points=reads,
            bar_white=B.count_read(bar_counts[B.WHITE], bar_conf),
            bar_black=B.count_read(bar_counts[B.BLACK], bar_conf),
            off_white=B.count_read(off_w, conf_w),
            off_black=B.count_read(off_b, conf_b),
            dice=dice,
            cube=cube,
        ), run

    def _cube_value(self, frame: Array, cube: CubeRead, at: tuple[float, float] | None = None
                    ) -> CubeRead:
        """Read the owned cube's number from the camera frame (sharper than the top view),
        round where it was seen (canonical ``at``; else its owner's place).

        The patch is a square of the top-down view cut from the camera frame
        (:meth:`_frame_crop`, through the lens model when it bends): the cube's top face lies
        parallel to the board, so it is a square there too, whatever the camera's slant, only
        shifted a little from where the cube stands. It spans CUBE_PATCH checkers, room for
        that shift and the step of the search along the bar. While the patch stays as it was
        (CUBE_SAME), the last reading stands: a still board is not read again frame by frame."""
        where = at if at is not None else self._layout.cube_places()[cube.owner]
        half = CUBE_PATCH / 2 * self._layout.checker_px
        patch, _k = self._frame_crop(frame, CUBE_PATCH_PX)(where[0], where[1], half)
        thumb = cv2.resize(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), (CUBE_SAME_PX, CUBE_SAME_PX),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        last = self._cube_seen
        if last is not None and float(np.abs(thumb - last[0]).max()) <= CUBE_SAME:
            value, conf = last[1], last[2]
        else:
            value, conf = C.read_cube_face(patch)
            self._cube_seen = (thumb, value, conf)
        if value is None:
            return cube
        return CubeRead(value, cube.owner, min(cube.confidence * 3.0, 1.0) * conf)

    def _rails_changed(self, img: Array, gain: Array, ii: Array) -> int:
        cal, lay = self.calibration, self._layout
        if len(cal.rails) == 0:
            return 0
        now = B.to_lab(B.sample_discs(self.config, lay, img, self._rail_places,
                                      self.config.rail_radius, ii) / gain)
        d = ((now[:, 1:] - self._rails_lab[:, 1:]) / 4.0) ** 2
        return int((d.sum(-1) > self.config.rail_chroma).sum())

    def _dice_mask(self, run: Array, bar_run: Array) -> Array:
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

    def _bar_mask(self, bar_run: Array, cube_at: tuple[float, float] | None) -> Array:
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

    def _dice_exposure(self, gain: Array) -> float:
        """How many times brighter the dice stage reads this frame: enough to bring the
        lighter of White's checkers and the light points, as light as the frame's light
        (``gain`` against the calibration's) makes them, to ``dice_exposure_ref`` on a dark
        board or in a dim room; 1 where less than ``dice_exposure_min`` would do (see
        :func:`~pibg.vision.dice_find.find_dice`)."""
        cfg = self.config
        now = self._light_grey * float(np.dot(_GREY, np.asarray(gain, np.float64).ravel()[:3]))
        e = min(cfg.dice_exposure_max, cfg.dice_exposure_ref / max(now, 1.0))
        return float(e) if e >= cfg.dice_exposure_min else 1.0

    def _under_dice(self, canon: Array, odd: Array, frame: Array | None,
                    exposure: float = 1.0) -> int:
        """How many of the ``odd`` checker places (like neither board nor checker) lie under
        the two strongest dice found on the playing surface (dice thrown on free points)."""
        if not self.read_dice:
            return 0
        lay = self._layout
        free = self._dice_mask(np.zeros(24, np.int64), np.zeros(2, np.int64))
        dice = self._dice(canon, lay, free, frame, canonical=True, learn=False,
                          exposure=exposure)
        if not dice:
            return 0
        centres = np.array([[d.x, d.y] for d in dice[:2]])
        reach = 0.5 * lay.checker_px + 0.75 * lay.die_px
        places = self._slots[odd]
        d = np.linalg.norm(places[:, None, :] - centres[None, :, :], axis=-1)
        return int((d.min(1) < reach).sum())

    def _dice(self, canon: Array, lay: Layout, mask: Array | None = None,
              frame: Array | None = None, canonical: bool = False, learn: bool = True,
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
        sizes = self._die_sizes()
        last, runs = getattr(self, "_die_size", (None, 0))
        if last in sizes and runs >= DIE_SIZE_SETTLED:
            sizes = [last]
        crop = self._frame_crop(frame) if frame is not None else None
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
                                 nadir=self._nadir, rescue=len(sizes) == 1, exposure=exposure)
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
            # the network's rescue reads a die of any size: asked only at the size chosen
            again = _find_dice(canon, die_px=chosen, surface_mask=mask, crop=crop,
                               nadir=self._nadir, exposure=exposure)
            if sum(d.flat for d in again) > sum(d.flat for d in found):
                found = again
        if best[0] > 0 and learn:
            self._die_size = (chosen, runs + 1 if chosen == last else 1)
        if bar_mask is not None and chosen is not None and len(found) == 1 and found[0].flat:
            found = found + self._bar_dice(canon, chosen, bar_mask(), crop, exposure)
        if not found:
            return ()
        xy = np.array([[d.x, d.y] for d in found])
        if not canonical:
            xy = self._to_frame(xy)
        return tuple(DieRead(d.value, float(x), float(y), d.flat, d.confidence)
                     for d, (x, y) in zip(found, xy, strict=True))

    def _die_sizes(self) -> list[float]:
        """The die edges looked for, in view pixels, smallest first."""
        lay = self._layout
        return [DIE_TINY * lay.checker_px, DIE_SMALL * lay.checker_px, lay.die_px]

    def _dice_in_places(self, canon: Array, run: Array, ring: Array, frame: Array | None,
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
        free = self._dice_mask(np.zeros(24, np.int64), np.zeros(2, np.int64))
        mask = self._dice_mask(run, np.zeros(2, np.int64))
        size = getattr(self, "_die_size", (None, 0))[0]
        sizes = [size] if size is not None else self._die_sizes()
        crop = self._frame_crop(frame) if frame is not None else None
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

    def _bar_dice(self, canon: Array, size: float, bar_mask: Array,
                  crop: Callable[..., tuple[Array, float]] | None, exposure: float = 1.0
                  ) -> list[DieRead]:
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

    def _to_frame(self, pts: Array) -> Array:
        """Top-down view coordinates -> camera frame pixels (through the lens, if it bends)."""
        cal = self.calibration
        if not cal.distortion:
            return to_image(self._h_inv, pts)
        ideal = to_image(np.linalg.inv(self._h), pts)
        return distort(ideal, cal.distortion, cal.image_size)

    def _frame_crop(self, frame: Array, n: int = 72) -> Callable[..., tuple[Array, float]]:
        """Squares of the top-down view cut from the camera frame: ``crop(x, y, half)`` warps
        only that square (n x n pixels) through the homography, or, with a wide lens's
        distortion, samples it through the lens model."""
        h = self._h
        bent = bool(self.calibration.distortion)

        def crop(x: float, y: float, half: float) -> tuple[Array, float]:
            k = n / (2.0 * half)
            if bent:
                g = (np.arange(n, dtype=np.float64) + 0.5) / k
                gx, gy = np.meshgrid(x - half + g, y - half + g)
                src = self._to_frame(np.stack([gx.ravel(), gy.ravel()], -1))
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


_GREY = np.array([0.114, 0.587, 0.299])  #: grey level of B, G, R (ITU-R BT.601)


def _grey(lab: tuple[float, float, float]) -> float:
    """The grey level (0-255) of a colour given in Lab on OpenCV's 8-bit scale."""
    bgr = np.clip(B.from_lab(np.asarray(lab, np.float32)), 0.0, 255.0).astype(np.float64)
    return float(bgr @ _GREY)


def _lies_at(d: DieRead, x: float, y: float, r: float, size: float, room: Array,
             cfg: VisionConfig, cocked: bool = False) -> bool:
    """Whether the die ``d`` (of edge ``size``), found round the checker's place centred at
    (x, y) with radius ``r``, is what stands there (see :meth:`Vision._dice_in_places`):
    flat, centred within the place and ``die_place_room`` die edges or more from every
    other checker (``room``: distance to them); cocked (where ``cocked`` allows it), its
    face within a quarter of an edge more."""
    off = math.hypot(d.x - x, d.y - y)
    if not d.flat:
        return cocked and off < r + size / 4
    return off < r and bool(room[int(d.y), int(d.x)] >= cfg.die_place_room * size)


def _shifted(crop: Callable[..., tuple[Array, float]], x0: float, y0: float, x: float,
             y: float, half: float) -> tuple[Array, float]:
    """``crop`` of a window whose top-left corner lies at (x0, y0) of the whole view."""
    return crop(x + x0, y + y0, half)


def region_summary(obs: BoardObservation) -> list[RegionRead]:
    """All 28 regions in a fixed order: 24 points, bar W/B, off W/B."""
    return [*obs.points, obs.bar_white, obs.bar_black, obs.off_white, obs.off_black]
