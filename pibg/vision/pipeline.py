"""The one vision orchestrator: a frame in, a :class:`~pibg.observation.BoardObservation` out.

>>> from pibg.sim import SimScene, render, SIM_CORNERS
>>> from pibg.vision.geometry import START_POINTS
>>> vision = Vision.from_start_frame(render(SimScene(START_POINTS)), corners=SIM_CORNERS)
>>> vision.observe(render(SimScene(START_POINTS, seed=3))).signed_points() == START_POINTS
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from pibg.exc import VisionError
from pibg.observation import BoardObservation, CubeRead, Owner, RegionRead
from pibg.vision import board as B
from pibg.vision import cube as C
from pibg.vision import fit as F
from pibg.vision import place_net as PN
from pibg.vision.calibrate import (
    Calibration,
    learn,
    learn_from_any_frame,
    locate_layout,
)
from pibg.vision.dice_stage import DiceStage
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
    undistort,
)

#: Why a frame is not read when the board's edges lie where a move of the camera or the
#: board too large to follow would put them.
MOVED = ("the calibration does not fit this frame: the board's edges lie where a moved camera "
         "or board would put them: calibrate again with the camera as it is now")

#: The owned cube's number is read from a square of the top-down view this many checkers
#: across round where the cube was found, sampled at CUBE_PATCH_PX pixels a side.
CUBE_PATCH = 1.6
CUBE_PATCH_PX = 128
#: The last cube read is kept while its patch, shrunk to CUBE_SAME_PX pixels a side, differs
#: from the new one by at most CUBE_SAME grey levels anywhere: the same face in the same light
#: (a turned cube, a moved one, a shadow or a die against it changes some pixel by far more).
CUBE_SAME_PX = 32
CUBE_SAME = 12.0
#: Where no face is found in that square, the squares this many checkers up and down the
#: bar from it are read too: a cube found off its place along the bar's end leaves its face
#: cut by the square's edge (render rni3_10: found 0.54 of a checker short of its face).
CUBE_SLIDE = 0.55
#: A place whose middle is this share or more clipped white (every channel at GLARE_LEVEL or
#: more) is a lamp's glare, not an arm (:meth:`Vision._glare`).
GLARE_LEVEL = 245
GLARE_SHARE = 0.9
#: A place whose colour is the empty board's with this much light (linear, 0-1) added to
#: every channel, the light added of one colour (its channels within LAMP_TINT of its
#: largest), is lit by a lamp, not covered (:meth:`Vision._lamp_lit`).
LAMP_ADDED = 0.25
LAMP_TINT = 0.25


@dataclass
class Vision:
    """Reads frames of one calibrated board.

    Build it with :meth:`from_calibration` (a TOML file or a :class:`Calibration`) or
    :meth:`from_start_frame` (a frame of the starting position, and its corners or the board
    finder's).
    """

    calibration: Calibration
    config: VisionConfig = field(default_factory=VisionConfig)
    read_dice: bool = True

    def __post_init__(self) -> None:
        self._layout: Layout = self.calibration.layout
        cal = self.calibration
        # Frames are warped through the lens when it distorts (self._maps); positions are
        # reported in the frame through the lens too (the dice stage's to_frame).
        self._h = cal.ideal_homography()
        self._maps: tuple[Array, Array] | None = None
        if cal.distortion:
            self._maps = canonical_maps(self._h, cal.layout, cal.distortion, cal.image_size)
        self._slots = self._layout.point_slots()
        # the point places nearest the board's frame, flat: an arm that passes the frame
        # unseen still covers one (``VisionConfig.hand_edge_slots``)
        edge = np.zeros(self._slots.shape[:-1], bool)
        edge[:, :self.config.hand_edge_slots] = True
        edge[[0, 11, 12, 23]] = True
        self._edge_places = edge.reshape(-1)
        # which point places lie within an arm's reach of each other (``hand_reach``)
        flat = self._slots.reshape(-1, 2)
        apart = np.hypot(*(flat[:, None, :] - flat[None, :, :]).transpose(2, 0, 1))
        self._near_places = apart <= self.config.hand_reach * self._layout.u
        # The camera over the board (from the homography): things standing on the board are
        # seen leaning away from the point below it.
        camera = camera_centre(self._h, cal.image_size)
        self._nadir = camera[:2] if camera is not None else None
        self._bar_slots = np.stack([self._layout.bar_slots(True), self._layout.bar_slots(False)])
        # the empty bar next to the middle, as the cube is compared with it
        self._bar_centre = (cal.bar_bg[0][0] + cal.bar_bg[1][0]) / 2.0
        self._bg_lab = B.to_lab(cal.points_bg)
        # colours lie closer together on a darker board or under less light, about in
        # proportion to the lightness of White's checkers: so does "like neither" (down to a
        # floor: the camera's noise does not shrink with the light)
        dim = min(1.0, max(cal.white.mean[0], cal.black.mean[0]) / self.config.unexplained_light)
        self._unexplained = self.config.unexplained * max(dim ** 2, self.config.unexplained_floor)
        self._bar_lab = B.to_lab(cal.bar_bg)
        self._tray_bg = B.tray_floor(cal.tray_bg)
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
        # the start frame's edges, which tell a moved camera from a changed light (None in
        # calibrations written before they were kept, or for another view's size)
        ref = F.decode(cal.edges)
        self._edges = ref if ref.shape == (h // F.CELL, w // F.CELL) else None
        # The cube's last reading at each of its places: (patch shrunk, value, confidence);
        # see _number_at.
        self._cube_seen: dict[Owner, tuple[Array, int | None, float]] = {}
        # the board as the camera sees it since it moved a little (see observe), if it did
        self._followed: Vision | None = None
        # Light is compared per quadrant of the board (left/right half, near/far side).
        q = np.zeros(self._slots.shape[:2], np.int32)
        for p in range(24):
            q[p] = (0 if p < 12 else 2) + (1 if (p % 12) < 6 else 0)
        self._quadrants = q
        self._dice_stage = DiceStage(cal, self.config, self._h, self._slots, self._nadir)
        self._place_model = PN.model_path(self.config.place_model)
        # the network reads the points' places, the bar's, then the middle band's (arms),
        # where the band tells anything on this board
        band = (self._layout.band_places() if not cal.band_arm_like
                else np.zeros((0, 2), np.float32))
        self._net_places = np.concatenate([self._slots.reshape(-1, 2),
                                           self._bar_slots.reshape(-1, 2), band])
        self._n_bar = self._bar_slots.shape[0] * self._bar_slots.shape[1]

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def from_calibration(cls, cal: Calibration | str | Path,
                         config: VisionConfig | None = None) -> Vision:
        """:raises CalibrationError: the file is missing or malformed."""
        c = cal if isinstance(cal, Calibration) else Calibration.load(cal)
        return cls(c, config or VisionConfig())

    @classmethod
    def from_start_frame(cls, frame: Array, corners: Any | None = None,
                         white_home: WhiteHome | None = None,
                         config: VisionConfig | None = None, *,
                         profile: str | None = None,
                         corners_on_rims: bool = False) -> Vision:
        """Calibrate from a frame of the starting position and the playing surface's
        ``corners`` in it (TL, TR, BR, BL); without them the board finder
        (:func:`~pibg.vision.calibrate.locate_layout`) finds them in the frame, as
        ``pibg calibrate`` does without ``--corners``, and the board profile the checkers fit.
        ``corners_on_rims``: the corners given are the board finder's (see
        :func:`~pibg.vision.calibrate.learn`); the ones it finds here are taken as it says.
        ``white_home`` and ``profile`` where they are known, else found as
        :func:`~pibg.vision.calibrate.learn` finds them.

        :raises CalibrationError: not a starting position.
        :raises BoardNotFoundError: no corners given and the board finder found no board, or
            the corners make no board.
        """
        cfg = config or VisionConfig()
        if corners is None:
            corners, corners_on_rims, found = locate_layout(cfg, frame)
            profile = profile or found
        return cls(learn(cfg, frame, np.asarray(corners, np.float64), white_home, profile,
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
        here = self._followed or self
        canon = here.canonical(frame)
        moved, fit = here._state(canon)
        if moved and fit is not None and here._edges is not None:
            # the camera or the board moved a little: followed (the board's corners moved
            # with it) where the move found makes the board's edges fit the start frame's
            # again, bar and all, and takes no corner farther than ``follow_reach`` points
            # (one point over, the points' edges fit again: the board would be read a point
            # off)
            move = F.refine(here._edges, canon, fit.move)
            if self._reach(move) > self.config.follow_reach * self._layout.u:
                return BoardObservation.unreadable(MOVED)
            followed = here.follow(move)
            again = followed.canonical(frame)
            if followed._state(again)[0] is not False:
                return BoardObservation.unreadable(MOVED)
            self._followed = here = followed
            canon, moved = again, False
        return here._read(canon, frame, moved)

    def _state(self, canon: Array) -> tuple[bool | None, F.Fit | None]:
        """Whether the board in the top-down view ``canon`` moved since calibration, told by
        its edges against the start frame's (see :mod:`pibg.vision.fit`), and how they fit:
        True, a small move of the view fits them better; False, none does and the bar's
        edges lie where they did; None where that cannot be told (no edges kept,
        in files written before they were; the bar's edges not found where they were: a view
        one point over, or a bar with no clear edge, as on renders dev2 and rnv3, whose bar
        profiles match at random places in clean frames)."""
        if self._edges is None:
            return None, None
        edges = F.edge_map(canon)
        fit = F.compare(self._edges, edges)
        if fit.gain >= self.config.moved_gain:
            return True, fit
        lay = self._layout
        bar = F.bar_offset(self._edges, edges, lay.bar_x, 2 * lay.u)
        return (False if abs(bar) < F.CELL / 2 else None), fit

    @property
    def calibration_now(self) -> Calibration:
        """The calibration frames are read through: its corners moved with the camera since
        a small move of it was followed (see :meth:`observe`), the calibration's own before."""
        return (self._followed or self).calibration

    def _reach(self, move: Array) -> float:
        """How far (view pixels) ``move`` takes the farthest of the playing surface's
        corners."""
        corners = self._layout.surface_corners().astype(np.float64).reshape(-1, 1, 2)
        moved = cv2.transform(corners, np.asarray(move, np.float64))
        return float(np.hypot(*(moved - corners).reshape(-1, 2).T).max())

    def moved(self, canon: Array) -> bool | None:
        """Whether the board's edges in the top-down view ``canon`` lie where a small move of
        the camera or the board would put the start frame's (see :meth:`_state`): True, the
        calibration no longer fits; False, it does, whatever the colours say; None where
        the edges cannot tell (then the colours do)."""
        return self._state(canon)[0]

    def follow(self, move: Array) -> Vision:
        """This vision with the board's corners moved by ``move`` (an affine of the top-down
        view, 2 x 3: where a place of the start frame's view now lies in this one's, as
        :func:`pibg.vision.fit.compare` gives it): the board as the camera now sees it."""
        cal = self.calibration
        h = cal.ideal_homography()
        ideal = np.asarray(cal.corners, np.float64)
        if cal.distortion:
            ideal = undistort(ideal, cal.distortion, cal.image_size)
        canon = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), h)
        now = to_image(np.linalg.inv(h), cv2.transform(canon, np.asarray(move, np.float64)))
        if cal.distortion:
            now = distort(now, cal.distortion, cal.image_size)
        corners = tuple((float(x), float(y)) for x, y in now)
        return Vision(replace(cal, corners=corners), self.config, self.read_dice)

    def observe_canonical(self, canon: Array, frame: Array | None = None) -> BoardObservation:
        """Read a canonical view; ``frame`` (the camera frame) sharpens the cube's number. A
        view whose board moved since calibration is refused (:meth:`observe` follows it)."""
        moved = self.moved(canon)
        if moved:
            return BoardObservation.unreadable(MOVED)
        return self._read(canon, frame, moved)

    def _read(self, canon: Array, frame: Array | None, moved: bool | None) -> BoardObservation:
        """The view read, ``moved`` as :meth:`moved` said of it."""
        cfg, cal, lay = self.config, self.calibration, self._layout
        img = canon
        ii = cv2.integral(canon)
        feat = B.sample_discs(cfg, lay, img, self._slots, integral=ii)
        gains = B.photometric_gains(feat, cal.points_bg, self._quadrants)
        gain = np.median(gains.reshape(-1, 3), 0)
        reading = B.read_places(cfg, feat, gains, cal.points_bg, self._bg_lab, cal.white,
                                cal.black)
        net = None
        if self._place_model is not None:
            net = PN.read(canon, self._net_places, lay.checker_px, self._place_model)
        if net is None:
            over = self._over(canon, frame, ii, feat, gains, gain, reading, moved)
        else:
            over = self._arm_over(canon, frame, ii, feat, gains, gain, reading, net, moved)
        if over is not None:
            return over
        if net is not None:
            return self._observe_shapes(canon, frame, ii, gain,
                                        self._whose(canon, feat, gains, reading, net), net)
        edges, scale = B.edge_map(cfg, canon)
        ring = B.ring_scores(edges, self._ring_idx, self._slots.shape[:-1], cfg.ring_rank)
        found_cube = C.find_cube_at(cfg, lay, img, cal.cube_bg, self._bar_centre, ii)
        logits = B.occupancy_logits(cfg, reading, ring, cal.ring, self._ring_clip(*found_cube))
        obs, _, _ = self._dice_off_places(
            canon, frame, ring, logits, cfg.colour_clip * cfg.colour_weight + cfg.ring_clip,
            lambda lg: self._from_logits(canon, frame, ii, gain, edges, scale, reading, ring,
                                         lg, found_cube))
        return obs

    def _whose(self, canon: Array, feat: Array, gains: Array, reading: B.SlotReading,
               net: PN.PlaceReading) -> B.SlotReading:
        """The places' colours for telling whose each checker is: ``reading`` (the places'
        colours ``feat`` in the frame's light, measured on the empty board), or, where
        the checkers the network ``net`` sees look more like the two learnt without it (the
        median over them of the nearer checker colour's distance), the colours as they stand.
        A lamp moved or changed lights the board unevenly, and the checkers standing on it not
        as the board round them (render rns1: the quadrants' gains 0.73 to 1.33, the checkers'
        colours as in the start frame, and White's read Black in the frame's light). Only
        whose each checker is: an arm is still told in the frame's light."""
        n = self._slots.shape[0] * self._slots.shape[1]
        seen = net.checker[:n].reshape(self._slots.shape[:-1]) > 0
        cal = self.calibration
        if cal.dark:
            # the checkers' lightness that of their darker pixels (see ``board.sample_dark``)
            white, black = B.dark_models(cal.white, cal.black, cal.dark)
            side = 1 if white.mean[0] >= black.mean[0] else -1
            dark = B.sample_dark(self.config, self._layout, canon, self._slots)

            def whose(at: Array | slice, g: Array | float) -> tuple[Array, Array]:
                lab = B.dark_lab(feat[at], dark[at], g)
                return white.dist2(lab, side), black.dist2(lab, -side)
        else:
            bg, bg_lab = np.asarray(cal.points_bg), np.asarray(self._bg_lab)

            def whose(at: Array | slice, g: Array | float) -> tuple[Array, Array]:
                r = B.read_places(self.config, feat[at], g, bg[at], bg_lab[at], cal.white,
                                  cal.black)
                return r.d_white, r.d_black
        d_white, d_black = whose(slice(None), gains)
        lit = B.SlotReading(reading.d_empty, d_white, d_black)
        if not seen.any():
            return lit
        as_is = float(np.median(np.minimum(*whose(seen, 1.0))))
        in_light = float(np.median(np.minimum(d_white, d_black)[seen]))
        if as_is >= in_light:
            return lit
        return B.SlotReading(reading.d_empty, *whose(slice(None), 1.0))

    def _dice_off_places(self, canon: Array, frame: Array | None, ring: Array, logits: Array,
                         empty: float,
                         read: Callable[[Array], tuple[BoardObservation, Array]]
                         ) -> tuple[BoardObservation, Array, Array]:
        """The board ``read`` from ``logits`` (the observation, the points' first-layer runs),
        with the dice stage's word on dice lying in checker places, and the logits with the
        places of the dice found there cleared.

        A die lying where a run's next checker would stand passes for that checker (its
        outline crosses the place's circle): a flat die found there, the rim faint, is the
        die, and the place is empty (log-odds ``-empty``; looked for while a die of the two
        is missing, a cocked one too while the other lies flat)."""
        obs, run = read(logits)
        if obs.readable and self.read_dice and len(obs.dice) < 2:
            other = len(obs.dice) == 1 and obs.dice[0].flat
            freed = self._dice_stage.in_places(canon, run, ring, frame, cocked=other)
            if freed:
                cleared = logits.copy()
                cleared[tuple(np.transpose(freed))] = -empty
                again, again_run = read(cleared)
                if again.readable:
                    obs, run = again, again_run
                return obs, run, cleared
        return obs, run, logits

    def _over(self, canon: Array, frame: Array | None, ii: Array, feat: Array, gains: Array,
              gain: Array, reading: B.SlotReading, moved: bool | None = None
              ) -> BoardObservation | None:
        """An unreadable observation when a hand or arm is over the board (or the calibration
        does not fit the frame, where ``moved`` is None: the board's edges not known), else
        None, told by colour: places like neither board nor checker, on points of both
        colours, with the board's frame changed."""
        cfg, cal = self.config, self.calibration
        img = canon
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
                        canon, odd, frame, gain) < need_places:
                    continue  # the dice, not a hand: an arm crosses the frame
                return BoardObservation.unreadable(
                    self._over_the_board(rails, unexplained, moved))
        return None

    def _arm_over(self, canon: Array, frame: Array | None, ii: Array, feat: Array,
                  gains: Array, gain: Array, reading: B.SlotReading, net: PN.PlaceReading,
                  moved: bool | None = None) -> BoardObservation | None:
        """An unreadable observation when a hand or arm is over the board, told by the
        checker-place network: something over at least ``hand_places`` places of the points,
        leaving out those that looked like an arm on the empty board at calibration
        (``Calibration.arm_like``), and of the middle band between them (an arm reaching
        across between the points' tips covers few checker places; not on a board whose band
        looked like an arm at calibration, ``Calibration.band_arm_like``) and of the bar (an
        arm reaching across often lies along it; not where the empty bar looked like an arm,
        ``Calibration.bar_arm_like``), with the board's
        frame changed and those places together (``hand_reach``) or two of them unlike every
        colour learnt (``hand_far``), or, where the arm passed the frame unseen, one of them
        unlike every colour learnt and one by the frame (``hand_edge_slots``), that one and
        ``hand_places`` in all together, or many of them unlike every colour learnt
        (``hand_far_many``).
        A frame the calibration does not fit is told by colour (:meth:`_over`), as without
        the network, where the board's edges are not known (``moved`` None); where they
        are, and fit, most of the frame changed is the light (render rny3: a red frame under
        a warm light whose colour moves from frame to frame), and the network tells an arm.
        """
        cfg = self.config
        rails = self._rails_changed(canon, gain, ii)
        if rails >= cfg.misfit_rails * len(self._rail_places) and moved is None:
            over = self._over(canon, frame, ii, feat, gains, gain, reading)
            if over is not None:
                return over
        arm, band, far = self._arm_places(canon, reading, net, feat, gain)
        covered = int(arm.sum()) + band
        if covered < cfg.hand_places:
            return None
        groups = self._groups(np.flatnonzero(arm))
        if rails >= 1:
            together = max(map(len, groups), default=0) + band >= cfg.hand_places
            arm_over = together or int(far.sum()) >= 2
        else:
            edge = set(np.flatnonzero(arm & self._edge_places).tolist())
            reached = any(len(g) + band >= cfg.hand_places for g in groups if g & edge)
            arm_over = ((reached and bool(np.any(far)))
                        or int(far.sum()) >= cfg.hand_far_many)
        if arm_over:
            return BoardObservation.unreadable(
                f"something over the board (a hand or arm?): {covered} places covered")
        return None

    def _arm_places(self, canon: Array, reading: B.SlotReading, net: PN.PlaceReading,
                    feat: Array, gain: Array) -> tuple[Array, int, Array]:
        """What the checker-place network sees an arm over (:meth:`_arm_over` weighs it): the
        points' places (flat, past those arm-like at calibration, those a lamp's glare
        whites out, :meth:`_glare`, and those a lamp's light shows brighter, :meth:`_lamp_lit`
        on the places' colours ``feat`` in the frame's light ``gain``), how many of the middle
        band's and the bar's (each where it tells anything on this board), and which of
        those places are unlike every colour learnt (``hand_far``)."""
        n = self._slots.shape[0] * self._slots.shape[1]
        arm = net.arm[:n] > 0.5
        arm[list(self.calibration.arm_like)] = False
        arm[np.flatnonzero(arm)[self._glare(canon, self._slots.reshape(-1, 2)[arm])]] = False
        arm &= ~self._lamp_lit(feat.reshape(-1, 3), gain)
        band = int((net.arm[n + self._n_bar:] > 0.5).sum())  # the middle band's, if read
        if not self.calibration.bar_arm_like:
            # and the bar's: an arm reaching across the board lies along it as often as not
            # (renders rns0_08, rns4_08: a bare arm over six of its eight places and two of
            # the points', read as a board)
            band += int((net.arm[n:n + self._n_bar] > 0.5).sum())
        known = np.minimum(np.minimum(reading.d_empty, reading.d_white), reading.d_black)
        return arm, band, arm & (known.reshape(-1) >= self.config.hand_far)

    def _lamp_lit(self, feat: Array, gain: Array) -> Array:
        """Which point places (flat) show the empty board with a lamp's light added: every
        channel brighter than the empty place in this frame's light by LAMP_ADDED or more,
        in linear light, and the light added of one colour (its channels within LAMP_TINT of
        its largest): a desk lamp's hot spot on a glossy field, not an arm (an arm replaces
        the board's colour with its own; skin and sleeves over a coloured board do not add
        one colour to every channel)."""
        bg = np.asarray(self.calibration.points_bg, np.float64).reshape(-1, 3)
        now = (np.asarray(feat, np.float64) / 255.0) ** 2.2
        empty = (np.clip(bg * np.asarray(gain, np.float64)[:3], 0, 255) / 255.0) ** 2.2
        added = now - empty
        top = np.maximum(added.max(axis=1), 1e-6)
        return np.asarray((added.min(axis=1) >= LAMP_ADDED)
                          & (added.max(axis=1) - added.min(axis=1) <= LAMP_TINT * top), bool)

    def _glare(self, canon: Array, places: Array) -> Array:
        """Which of ``places`` (N, 2) of the top-down view a lamp's glare whites out: most of
        the place's middle (GLARE_SHARE of a square half a checker across) clipped white in
        every channel (GLARE_LEVEL). A glare is the lamp's own white; skin and cloth keep
        some colour where the light clips them (render rnh2: a desk lamp's hot spot over two
        places of a clean frame, every channel at 245 or more; a bare arm under the same
        lamp, clipped in lightness over its places, keeps a saturation of 50 to 80 of 255)."""
        out = np.zeros(len(places), bool)
        r = max(1, round(self._layout.checker_px / 4))
        h, w = canon.shape[:2]
        for i, (x, y) in enumerate(np.rint(places).astype(int)):
            patch = canon[max(0, y - r):min(h, y + r + 1), max(0, x - r):min(w, x + r + 1)]
            if patch.size:
                out[i] = float((patch.min(axis=2) >= GLARE_LEVEL).mean()) >= GLARE_SHARE
        return out

    def _groups(self, places: Array) -> list[set[int]]:
        """``places`` (flat point-place indices) in groups, each linked place to place within
        ``hand_reach`` of each other."""
        left, out = set(places.tolist()), []
        while left:
            todo, group = [left.pop()], set()
            while todo:
                here = todo.pop()
                group.add(here)
                near = [q for q in left if self._near_places[here, q]]
                left.difference_update(near)
                todo.extend(near)
            out.append(group)
        return out

    def _observe_shapes(self, canon: Array, frame: Array | None, ii: Array, gain: Array,
                        reading: B.SlotReading, net: PN.PlaceReading) -> BoardObservation:
        """The board read with the checker-place network's reading ``net``: it finds the
        checkers by their shape; ``reading`` (the places' colours against the start frame's)
        says whose each checker is."""
        cfg, cal, lay = self.config, self.calibration, self._layout
        n = self._slots.shape[0] * self._slots.shape[1]
        logits = np.clip(net.checker[:n].reshape(self._slots.shape[:-1]), -cfg.place_clip,
                         cfg.place_clip)
        bar_logits = np.clip(net.checker[n:n + self._n_bar].reshape(self._bar_slots.shape[:-1]),
                             -cfg.place_clip, cfg.place_clip)
        stacked = (net.stacked[:n].reshape(self._slots.shape[:-1]) if net.stacked.any()
                   else None)
        edges, scale = B.edge_map(cfg, canon)
        ring = B.ring_scores(edges, self._ring_idx, self._slots.shape[:-1], cfg.ring_rank)
        rim = np.zeros_like(logits)
        if cfg.place_rim_clip > 0.0 and cal.ring_learnt:
            # no rim where a checker's would be, as learnt on this board's starting position:
            # the network, which may not know the board, is unsure there
            rim = np.clip(cal.ring.llr(ring), -cfg.place_rim_clip, 0.0)
            logits = logits + rim
        found_cube = C.find_cube_at(cfg, lay, canon, cal.cube_bg, self._bar_centre, ii)
        obs, run, logits = self._dice_off_places(
            canon, frame, ring, logits, cfg.place_clip + 1.0,
            lambda lg: self._from_logits(canon, frame, ii, gain, edges, scale, reading, ring,
                                         lg, found_cube, bar_logits, stacked))
        if obs.readable:
            # the rule of 15 gave up a checker the network sees plainly: there are more
            # checkers on the board than a colour has (a spare one), or something there
            # looks like one; no reading is right, and dropping one would make a wrong board
            free = B.counts_from_logits(logits, reading)[0]
            own = logits - rim  # plainly: by the network's own log-odds
            plain = [p + 1 for p in range(len(run)) if free[p] > run[p]
                     and float(own[p, run[p]:free[p]].min()) >= cfg.place_plain]
            if plain:
                return BoardObservation.unreadable(
                    f"more checkers than a colour's 15 seen plainly ({_points(plain)} would "
                    f"give one up): a spare checker on the board, or something over it")
            # ... or it put checkers where the network plainly sees none: a colour's
            # checkers are missing from the points and the trays read (a tray the camera
            # does not make out, render rnx1_08: 14 dark checkers in a dark tray read as
            # none, and 14 put on an empty point)
            bare = [p + 1 for p in range(len(run)) if run[p] > free[p]
                    and float(own[p, free[p]:run[p]].min()) <= -cfg.place_plain]
            if bare:
                return BoardObservation.unreadable(
                    f"fewer checkers than a colour's 15 seen ({_points(bare)} plainly empty "
                    f"would need some): checkers in a tray the camera does not make out, or "
                    f"something over the board")
        return obs

    def _over_the_board(self, rails: int, unexplained: int, moved: bool | None = None) -> str:
        """Why a frame whose places look unlike the calibration's is unreadable: a hand, or
        (most of the board's frame changed: ``misfit_rails``, and the board's edges not known
        to fit: ``moved`` None) a calibration that does not fit."""
        total = len(self._rail_places)
        if rails >= self.config.misfit_rails * total and moved is None:
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

    def _under_dice(self, canon: Array, odd: Array, frame: Array | None, gain: Array) -> int:
        """How many of the ``odd`` checker places lie under dice thrown on free points (see
        :meth:`~pibg.vision.dice_stage.DiceStage.under_dice`); none while dice are not read."""
        if not self.read_dice:
            return 0
        return self._dice_stage.under_dice(canon, odd, frame, self._dice_stage.exposure(gain))

    def _odd(self, reading: B.SlotReading, share: float = 1.0) -> Array:
        """The places like neither board nor checker: past ``share`` of the bound, and not
        plainly one class either (see ``hand_plain_ratio``)."""
        dist = np.sort(np.stack([reading.d_empty, reading.d_white, reading.d_black]), axis=0)
        return np.asarray((dist[0] > share * self._unexplained)
                          & (dist[1] < self.config.hand_plain_ratio * dist[0]))

    def _from_logits(self, canon: Array, frame: Array | None, ii: Array, gain: Array,
                     edges: Array, scale: float, reading: B.SlotReading, ring: Array,
                     logits: Array, found_cube: tuple[CubeRead | None, tuple[float, float]],
                     bar_logits: Array | None = None, stacked: Array | None = None
                     ) -> tuple[BoardObservation, Array]:
        """The board read from each place's log-odds of a checker (the points' runs, the
        bar, the trays, the cube and the dice), and the points' first-layer runs; the bar's
        places' log-odds from colour and rim unless ``bar_logits`` are given; ``stacked``
        (24, K), where the network gives it, says which full points hold checkers on top."""
        cfg, cal, lay = self.config, self.calibration, self._layout
        img = canon
        _run, _colour, cum = B.counts_from_logits(logits, reading)
        # Bar: like two short points, filled from the middle outwards.
        grads_bar = B.ring_scores(edges, self._bar_ring_idx, self._bar_slots.shape[:-1],
                                  cfg.ring_rank)
        bar_read = B.read_places(cfg, B.sample_discs(cfg, lay, img, self._bar_slots, integral=ii),
                                 gain, cal.bar_bg, self._bar_lab, cal.white, cal.black)
        if bar_logits is None:
            bar_logits = B.occupancy_logits(cfg, bar_read, grads_bar, cal.bar_ring)
        _bar_run, _bar_colour, bar_cum = B.counts_from_logits(bar_logits, bar_read)
        # Trays.
        trays = {B.WHITE: B.tray_count(cfg, lay, canon, self._tray_bg[0], True, scale),
                 B.BLACK: B.tray_count(cfg, lay, canon, self._tray_bg[1], False, scale)}
        k = lay.slots_per_point()
        # The whole board at once: 24 points and the bar's two sides (as two short points).
        all_cum, all_read = B.with_bar(cum, reading, bar_cum, bar_read)
        jr = B.joint_counts(cfg, all_cum, all_read, {B.WHITE: 0, B.BLACK: 0}, trays)
        run, bar_run = jr.run[:24], jr.run[24:]
        if jr.ties:
            # the rule of 15 leaves two readings as likely: a checker hidden or one too many
            # seen, and the frame does not tell where; better no reading than a guess
            pts = [p + 1 for p in jr.ties if p < 24]
            where = [_points(pts)] if pts else []
            where += ["the bar"] if any(p >= 24 for p in jr.ties) else []
            return BoardObservation.unreadable(
                f"the checkers add up to 15 in two ways as likely, differing on "
                f"{' and '.join(where)} (a 16th checker, something over the board, or a die "
                f"where a checker would stand?)"), run
        off_w, off_b = jr.off[B.WHITE], jr.off[B.BLACK]
        # The rule of 15 could only be kept against a clear tray: something hides checkers or
        # shows false ones (an arm, a sleeve): better no reading than a wrong one.
        for c, off in ((B.WHITE, off_w), (B.BLACK, off_b)):
            est, conf = trays[c].est, trays[c].conf
            clear = cfg.tray_clear_over if est > off else cfg.tray_clear
            if abs(off - est) > cfg.tray_conflict and conf >= clear:
                return BoardObservation.unreadable(
                    f"{_colour_name(c)}'s checkers do not add up to 15: the tray shows "
                    f"{est:.0f}, the rest leaves {off} (something over the board?)"), run
        conf_w, conf_b = jr.tray_conf[B.WHITE], jr.tray_conf[B.BLACK]
        rims = np.concatenate([ring[:, :2].mean(1), np.ones(len(jr.run) - 24)])
        if stacked is not None:
            stacked = np.concatenate([stacked, np.zeros((len(jr.run) - 24, k))])
        all_reads = B.joint_point_reads(jr, k, rims, stacked)
        off_reads = (B.tray_read(off_w, conf_w), B.tray_read(off_b, conf_b))
        alt = B.tray_alternative(jr, trays)
        if alt is not None:
            # checkers hidden on a full point that the tray shows borne off: that board kept
            # possible, for the referee, who knows how many are off (render sim m006: Black's
            # 5 checkers in the tray, a Black checker hit since, read on its 24-point)
            ajr, w = alt
            a_reads = B.joint_point_reads(ajr, k, rims, stacked)
            all_reads = tuple(B.mixed(r, a, w) for r, a in zip(all_reads, a_reads, strict=True))
            off_reads = (off_reads[0] if ajr.off[B.WHITE] == off_w else
                         B.mixed(off_reads[0], RegionRead.certain(ajr.off[B.WHITE]), w),
                         off_reads[1] if ajr.off[B.BLACK] == off_b else
                         B.mixed(off_reads[1], RegionRead.certain(ajr.off[B.BLACK]), w))
        reads, bar_conf = all_reads[:24], min(r.confidence for r in all_reads[24:])
        # a bar's side shows its row; checkers hit onto a full row stand on top of it (the
        # rule of 15 counts them, as on a full point)
        bar_counts = {c: sum(abs(all_reads[p].count) if jr.full(p, k) else int(jr.run[p])
                             for p in range(24, len(jr.run)) if jr.colour[p] == c)
                      for c in (B.WHITE, B.BLACK)}
        row = self._bar_slots.shape[1]
        for c in (B.WHITE, B.BLACK):
            if bar_counts[c] > 2 * row:
                # more than a second layer on a bar side's row: the rule of 15 hid there the
                # checkers a tray does not show (render rpb3_12: Black's 14 borne off, black
                # in a dark tray read as empty, put on the bar as a row and 10 on top of it)
                return BoardObservation.unreadable(
                    f"{bar_counts[c]} of {_colour_name(c)}'s checkers would be on the bar, more "
                    f"than two rows of it hold: checkers in a tray the camera does not make out, "
                    f"or something over the board"), run
        cube, cube_at = found_cube
        if bar_run.any() and (cube is None or (cube.owner == "center"
                                               and cube.confidence < cfg.cube_sure)):
            # not found, or hardly, while the bar was not read yet: a checker on the bar
            # against the cube looks like its own end; look again, comparing the cube with
            # the bar's sides clear of the checkers read there
            on_bar = np.concatenate([self._bar_slots[s, :int(bar_run[s])] for s in (0, 1)])
            again = C.find_cube_at(cfg, lay, img, cal.cube_bg, self._bar_centre, ii, on_bar)
            if again[0] is not None:
                cube, cube_at = again
        if cube is not None and frame is not None:
            cube, cube_at = self._cube_by_number(frame, cube, cube_at)
        dice = (self._dice_stage.read(canon, frame, run, bar_run, cube_at, gain)
                if self.read_dice else ())
        return BoardObservation(
            points=reads,
            bar_white=B.count_read(bar_counts[B.WHITE], bar_conf),
            bar_black=B.count_read(bar_counts[B.BLACK], bar_conf),
            off_white=off_reads[0],
            off_black=off_reads[1],
            dice=dice,
            cube=cube,
        ), run

    def _cube_by_number(self, frame: Array, cube: CubeRead, at: tuple[float, float]
                        ) -> tuple[CubeRead, tuple[float, float]]:
        """The cube ``cube`` found by colour at ``at`` (canonical), with its number read from
        the camera frame; and where the cube-face network reads no number there, the cube
        where it reads one: at the one other place of the three showing a number (a centred
        cube shows its 64), else as colour found it.

        Colour compares the cube with the bar beside it as learnt at calibration; a light
        that changed since, or a bar much like the cube, moves it to another place (renders
        rnn2_09 and rnn3_11: a centred cube read as owned, the network reading a number in the
        middle and none at the ends; rnr1: the same under a light that changes colour)."""
        value, conf = self._number_at(frame, cube.owner, at)
        if value is None:
            places = self._layout.cube_places()
            others: tuple[Owner, ...] = tuple(o for o in C.OWNERS if o != cube.owner)
            found = [(owner, *self._number_at(frame, owner, places[owner])) for owner in others]
            shown = [f for f in found if f[1] is not None]
            if len(shown) != 1:
                return cube, at
            owner, value, conf = shown[0]
            cube, at = CubeRead(1 if owner == "center" else 2, owner, 0.5), places[owner]
        if cube.owner == "center" or value is None:
            return cube, at
        return CubeRead(value, cube.owner, min(cube.confidence * 3.0, 1.0) * conf), at

    def _number_at(self, frame: Array, owner: Owner, where: tuple[float, float]
                   ) -> tuple[int | None, float]:
        """The cube's number read from the camera frame (sharper than the top view) round
        ``where`` (canonical), its place ``owner``'s: the number and the network's
        confidence, or (None, 0) where it reads none.

        The patch is a square of the top-down view cut from the camera frame
        (:meth:`~pibg.vision.dice_stage.DiceStage.frame_crop`, through the lens model when it
        bends): the cube's top face lies parallel to the board, so it is a square there too,
        whatever the camera's slant, only shifted a little from where the cube stands. It
        spans CUBE_PATCH checkers, room for that shift and the step of the search along the
        bar. Where no face is found there, the squares CUBE_SLIDE checkers up and down the
        bar are read. While a place's patch stays as it was (CUBE_SAME), its last reading
        stands: a still board is not read again frame by frame."""
        half = CUBE_PATCH / 2 * self._layout.checker_px
        crop = self._dice_stage.frame_crop(frame, CUBE_PATCH_PX)
        patch, _k = crop(where[0], where[1], half)
        thumb = cv2.resize(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), (CUBE_SAME_PX, CUBE_SAME_PX),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        last = self._cube_seen.get(owner)
        if last is not None and float(np.abs(thumb - last[0]).max()) <= CUBE_SAME:
            return last[1], last[2]
        value, conf = C.read_cube_face(patch)
        for dy in (CUBE_SLIDE, -CUBE_SLIDE):
            if value is not None:
                break
            y = where[1] + dy * self._layout.checker_px
            value, conf = C.read_cube_face(crop(where[0], y, half)[0])
        self._cube_seen[owner] = (thumb, value, conf)
        return value, conf

    def _rails_changed(self, img: Array, gain: Array, ii: Array) -> int:
        cal, lay = self.calibration, self._layout
        if len(cal.rails) == 0:
            return 0
        now = B.to_lab(B.sample_discs(self.config, lay, img, self._rail_places,
                                      self.config.rail_radius, ii) / gain)
        d = ((now[:, 1:] - self._rails_lab[:, 1:]) / 4.0) ** 2
        return int((d.sum(-1) > self.config.rail_chroma).sum())


def _points(pts: list[int]) -> str:
    """"point 5" or "points 4, 5, 12", for a reason given to the players."""
    return f"point{'s' if len(pts) > 1 else ''} {', '.join(map(str, pts))}"


def _colour_name(colour: int) -> str:
    """"White" or "Black", for a reason given to the players."""
    return "White" if colour == B.WHITE else "Black"


def region_summary(obs: BoardObservation) -> list[RegionRead]:
    """All 28 regions in a fixed order: 24 points, bar W/B, off W/B."""
    return [*obs.points, obs.bar_white, obs.bar_black, obs.off_white, obs.off_black]
