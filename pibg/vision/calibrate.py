"""Calibration: learn a board from one frame of the starting position, and keep it in TOML.

The starting layout is known, so one frame tells where the checkers of each colour lie: their
colours are learnt there, and the empty board's colour at every other checker place is learnt
from the places that are empty (a place under a checker borrows the colour of the same place on
the nearest point of the same colour). The file is strict: an unknown key is an error.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from pibg.exc import BoardNotFoundError, CalibrationError
from pibg.vision import board as B
from pibg.vision import cube as C
from pibg.vision import place_net as PN
from pibg.vision.fit import decode, edge_map, encode
from pibg.vision.geometry import (
    PROFILES,
    START_POINTS,
    WHITE_HOMES,
    Array,
    BoardProfile,
    Layout,
    VisionConfig,
    WhiteHome,
    camera_centre,
    canonical_maps,
    homography,
    lift,
    profile_for_aspect,
    to_image,
    undistort,
)

FORMAT_VERSION = 1

#: Two checker colours at least this far apart in lightness (CIE L, OpenCV's 8-bit scale)
#: are plainly a light and a dark one; nearer, which one is "White" is the players' to say
#: (:meth:`Calibration.naming_note`).
CLEARLY_LIGHTER = 15.0

#: White's home with the colours' names swapped: the starting position mirrored top to bottom.
_SWAPPED: dict[WhiteHome, WhiteHome] = {"bottom-right": "top-right", "top-right": "bottom-right",
                                        "bottom-left": "top-left", "top-left": "bottom-left"}


@dataclass(frozen=True)
class Calibration:
    """Everything learnt about one board under one camera."""

    image_size: tuple[int, int]
    corners: tuple[tuple[float, float], ...]  #: surface corners TL, TR, BR, BL in the image
    white_home: WhiteHome
    profile: str
    white: B.ColourModel
    black: B.ColourModel
    points_bg: Array   #: (24, K, 3) BGR of the empty board at every checker place
    bar_bg: Array      #: (2, Kb, 3) BGR of the empty bar, White's side then Black's
    tray_bg: Array     #: (2, R) edge strength of the empty tray per row from the outer end
    cube_bg: Array     #: (3, 3) BGR at the cube's places: centre, White's end, Black's end
    rails: Array = field(default_factory=lambda: np.zeros((0, 3), np.float32))  #: frame, BGR
    ring: B.RingModel = B.ROUGH_RING  #: round-edge evidence
    bar_ring: B.RingModel = B.ROUGH_RING  #: the same on the bar
    checker_radius_px: float = 0.0  #: checker radius in the source image (for people)
    point_colours: tuple[tuple[float, float, float], ...] = ()  #: the two point colours, BGR
    #: The lens's radial distortion (:func:`~pibg.vision.geometry.distort`); 0 for none.
    distortion: float = 0.0
    #: How high (share of a checker's diameter) the checkers' rims are seen to stand on this
    #: calibration's view of the board (:func:`~pibg.vision.geometry.lift`), learnt from the
    #: starting position: a checker's height on the board's own corners, less on corners
    #: found on the checkers' tops.
    rim_lift: float = 0.0
    #: The point places (index point * K + place from the base) where the checker-place
    #: network sees "something over the place" on this board's empty points at calibration
    #: (:func:`~pibg.vision.place_net.arm_like`): no evidence of an arm there later.
    arm_like: tuple[int, ...] = ()
    #: Whether the network sees "something over the place" anywhere along the middle of the
    #: empty board (``Layout.band_places``; :func:`~pibg.vision.place_net.band_arm_like`):
    #: then the band is no evidence of an arm (True for files written before it was asked).
    band_arm_like: bool = True
    #: Whether the network sees "something over the place" anywhere on the empty bar at
    #: calibration (:func:`~pibg.vision.place_net.band_arm_like` on ``Layout.bar_slots``):
    #: then the bar is no evidence of an arm (True for files written before it was asked).
    bar_arm_like: bool = True
    #: The start frame's edges in the top-down view, a row a string, a hex digit per
    #: ``fit.CELL`` pixels square (:func:`~pibg.vision.fit.encode`): what tells a camera
    #: moved since calibration from a light that changed. Empty in files written before it
    #: was kept: then a frame's colours alone tell.
    edges: tuple[str, ...] = ()
    #: The lightness (Lab L, 0-255) of the start frame's checkers' darker pixels
    #: (:func:`~pibg.vision.board.sample_dark`): White's mean and spread, then Black's. What
    #: tells whose a checker is where a lamp's highlight lifts a glossy checker's mean colour.
    #: Empty in files written before it was kept: then the mean colours alone tell.
    dark: tuple[float, ...] = ()

    @property
    def ring_learnt(self) -> bool:
        """Whether the round-edge evidence was learnt from this board's starting position
        (not a rough calibration's stand-in, ``board.ROUGH_RING``)."""
        return self.ring != B.ROUGH_RING

    @property
    def layout(self) -> Layout:
        return Layout(PROFILES[self.profile])

    def naming_note(self) -> str | None:
        """A line for the person calibrating when the two checker colours are about as light
        (under :data:`CLEARLY_LIGHTER` apart): White was taken to be the lighter, and the
        starting position reads as well with the names swapped (and White's home mirrored
        top to bottom), so the players may call the other colour White; None otherwise."""
        light, dark = self.white.mean[0], self.black.mean[0]
        if light - dark >= CLEARLY_LIGHTER:
            return None
        return (f"the two checker colours are about as light (lightness {light:.0f} and "
                f"{dark:.0f} of 255): White was taken to be the lighter, whose home is "
                f"{self.white_home}; if the other colour is White, calibrate again with "
                f"--white-home {_SWAPPED[self.white_home]}")

    def homography(self) -> Array:
        """Image -> canonical homography from the corners as seen (through the lens)."""
        return homography(np.asarray(self.corners), self.layout, self.white_home)

    def ideal_homography(self) -> Array:
        """Ideal (undistorted) image -> canonical homography; the same as :meth:`homography`
        without lens distortion."""
        if not self.distortion:
            return self.homography()
        c = undistort(np.asarray(self.corners), self.distortion, self.image_size)
        return homography(c, self.layout, self.white_home)

    # -- TOML ------------------------------------------------------------------------------
    def to_toml(self) -> str:
        def num(x: float) -> str:
            return f"{float(x):.2f}"

        def vec(v: Sequence[float]) -> str:
            return "[" + ", ".join(num(x) for x in v) + "]"

        lines = [
            "# pibg board calibration: written by `pibg calibrate`, read by `pibg read`.",
            "# Checker colours are CIE Lab on OpenCV's 0-255 scale; the empty board's colours",
            "# are BGR 0-255. Points are numbered from White.",
            f"version = {FORMAT_VERSION}",
            f"image_size = [{self.image_size[0]}, {self.image_size[1]}]",
            "# surface corners in the image: top-left, top-right, bottom-right, bottom-left",
            "corners = [" + ", ".join(vec(c) for c in self.corners) + "]",
            f'white_home = "{self.white_home}"',
            f'profile = "{self.profile}"',
            f"checker_radius_px = {num(self.checker_radius_px)}",
            "# radial lens distortion (negative: a wide lens's barrel); 0 for none",
            f"distortion = {self.distortion:.4f}",
            "# height (share of a checker's diameter) at which checkers' rims are looked for",
            f"rim_lift = {self.rim_lift:.3f}",
            "point_colours = [" + ", ".join(vec(c) for c in self.point_colours) + "]",
            "# checker places (point * places per point + place) that look like an arm empty",
            "arm_like = [" + ", ".join(str(i) for i in self.arm_like) + "]",
            "# whether the middle of the empty board, between the points, looks like an arm",
            f"band_arm_like = {'true' if self.band_arm_like else 'false'}",
            "# whether the empty bar looks like an arm",
            f"bar_arm_like = {'true' if self.bar_arm_like else 'false'}",
            "# lightness of the checkers' darker pixels: White's mean and spread, Black's",
            "dark = [" + ", ".join(f"{v:.2f}" for v in self.dark) + "]",
            "# the start frame's edges seen from above, a hex digit per 8 x 8 pixels (to tell a",
            "# moved camera from a changed light)",
            "edges = [" + "".join(f'\n  "{row}",' for row in self.edges)
            + ("\n]" if self.edges else "]"),
            "",
            "[ring]",
            "# share of a checker-sized circle with an edge: on checkers, on the empty board",
            f"occupied = {vec(self.ring.occupied)}",
            "empty = [" + ", ".join(vec(v) for v in self.ring.empty) + "]",
            "bar_empty = [" + ", ".join(vec(v) for v in self.bar_ring.empty) + "]",
            "",
            "[white]",
            f"mean = {vec(self.white.mean)}",
            f"sigma = {vec(self.white.sigma)}",
            "",
            "[black]",
            f"mean = {vec(self.black.mean)}",
            f"sigma = {vec(self.black.sigma)}",
            "",
            "[empty]",
            "# the empty board at each checker place, from the base outwards",
            "points = [",
        ]
        for p in range(self.points_bg.shape[0]):
            lines.append(f"  [{', '.join(vec(v) for v in self.points_bg[p])}],  # point {p + 1}")
        lines.append("]")
        lines.append("bar = [")
        for side in range(2):
            lines.append(f"  [{', '.join(vec(v) for v in self.bar_bg[side])}],")
        lines.append("]")
        lines.append("cube = [" + ", ".join(vec(v) for v in self.cube_bg) + "]")
        lines.append("# the board's frame round the surface (a change there is an arm)")
        lines.append("rails = [" + ", ".join(vec(v) for v in self.rails) + "]")
        lines.append("# tray: edge strength of the empty tray per row, from the outer end inwards")
        lines.append("tray = [")
        for side in range(2):
            lines.append(f"  [{', '.join(num(v) for v in self.tray_bg[side])}],")
        lines.append("]")
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_toml(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration file.

        :raises CalibrationError: missing file, bad TOML, an unknown or missing key.
        """
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise CalibrationError(
                f"calibration file {p} not found: run `pibg calibrate START.jpg -o {p}`") from exc
        except tomllib.TOMLDecodeError as exc:
            raise CalibrationError(f"calibration file {p} is not valid TOML ({exc}): "
                                   f"{_REMAKE.format(p)}") from exc
        except UnicodeDecodeError as exc:
            raise CalibrationError(f"calibration file {p} is not text (a binary file?): "
                                   f"{_REMAKE.format(p)}") from exc
        except OSError as exc:
            raise CalibrationError(f"calibration file {p} cannot be read ({exc.strerror}): "
                                   f"{_REMAKE.format(p)}") from exc
        return cls.from_dict(data, str(p))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<calibration>") -> Calibration:
        _check_keys(data, _TOP_KEYS, source, "",
                    optional={"distortion", "rim_lift", "arm_like", "band_arm_like", "edges",
                              "dark", "bar_arm_like"})
        for table in ("white", "black"):
            _check_keys(_table(data, table, source), {"mean", "sigma"}, source, table + ".")
        _check_keys(_table(data, "empty", source), {"points", "bar", "cube", "tray", "rails"},
                    source, "empty.")
        _check_keys(_table(data, "ring", source), {"occupied", "empty", "bar_empty"}, source,
                    "ring.")
        if data["version"] != FORMAT_VERSION:
            raise CalibrationError(
                f"{source}: calibration version {data['version']} is not {FORMAT_VERSION}: "
                "calibrate again")
        if data["white_home"] not in WHITE_HOMES:
            raise CalibrationError(f"{source}: white_home must be one of {WHITE_HOMES}")
        if data["profile"] not in PROFILES:
            raise CalibrationError(f"{source}: unknown profile {data['profile']!r}, "
                                   f"known: {sorted(PROFILES)}")
        _check_values(data, source)
        try:
            empty = data["empty"]
            cal = cls(
                image_size=(int(data["image_size"][0]), int(data["image_size"][1])),
                corners=tuple((float(x), float(y)) for x, y in data["corners"]),
                white_home=data["white_home"],
                profile=data["profile"],
                white=_model(data["white"]),
                black=_model(data["black"]),
                points_bg=np.asarray(empty["points"], np.float32),
                bar_bg=np.asarray(empty["bar"], np.float32),
                tray_bg=np.asarray(empty["tray"], np.float32),
                cube_bg=np.asarray(empty["cube"], np.float32),
                rails=np.asarray(empty["rails"], np.float32).reshape(-1, 3),
                ring=B.RingModel((float(data["ring"]["occupied"][0]),
                                  float(data["ring"]["occupied"][1])),
                                 tuple((float(m), float(sd)) for m, sd in data["ring"]["empty"])),
                bar_ring=B.RingModel((float(data["ring"]["occupied"][0]),
                                      float(data["ring"]["occupied"][1])),
                                     tuple((float(m), float(sd))
                                           for m, sd in data["ring"]["bar_empty"])),
                checker_radius_px=float(data["checker_radius_px"]),
                point_colours=tuple((float(c[0]), float(c[1]), float(c[2]))
                                    for c in data["point_colours"]),
                distortion=float(data.get("distortion", 0.0)),
                rim_lift=float(data.get("rim_lift", 0.0)),
                arm_like=tuple(int(i) for i in data.get("arm_like", [])),
                band_arm_like=data.get("band_arm_like", True),
                bar_arm_like=data.get("bar_arm_like", True),
                edges=tuple(data.get("edges", [])),
                dark=tuple(float(v) for v in data.get("dark", [])),
            )
        except (TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(f"{source}: malformed value ({exc}): "
                                   f"{_REMAKE.format(source)}") from exc
        k = cal.layout.slots_per_point()
        if len(cal.corners) != 4 or cal.points_bg.shape != (24, k, 3):
            raise CalibrationError(f"{source}: need 4 corners and 24 x {k} empty colours: "
                                   f"{_REMAKE.format(source)}")
        if cal.dark and (len(cal.dark) != 4 or not all(
                math.isfinite(v) and v > 0 for v in cal.dark)):
            raise CalibrationError(f"{source}: dark must be four positive numbers (White's "
                                   f"lightness and spread, Black's): {_REMAKE.format(source)}")
        if any(not 0 <= i < 24 * k for i in cal.arm_like):
            raise CalibrationError(f"{source}: arm_like must list checker places 0 to "
                                   f"{24 * k - 1}: {_REMAKE.format(source)}")
        arrays = (cal.points_bg, cal.bar_bg, cal.tray_bg, cal.cube_bg, cal.rails)
        if not all(np.all(np.isfinite(a)) for a in arrays):
            raise CalibrationError(f"{source}: [empty] holds a value that is not a number: "
                                   f"{_REMAKE.format(source)}")
        try:
            check_corners(np.asarray(cal.corners), cal.image_size)
        except BoardNotFoundError as exc:
            raise CalibrationError(f"{source}: corners = {list(cal.corners)}: {exc}; "
                                   f"{_REMAKE.format(source)}") from exc
        return cal


#: How to mend a calibration file that pibg did not write as it is (edited by hand, cut
#: short, or another file): the rest of an error's line.
_REMAKE = ("not a calibration file as `pibg calibrate` writes it; make it again from a frame "
           "of the starting position: pibg calibrate START.jpg -o {}")

_TOP_KEYS = {"version", "image_size", "corners", "white_home", "profile", "checker_radius_px",
             "point_colours", "white", "black", "empty", "ring", "distortion", "rim_lift",
             "arm_like", "band_arm_like", "edges", "dark", "bar_arm_like"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and \
        math.isfinite(value)


def _check_values(data: dict[str, Any], source: str) -> None:
    """The top-level values a damaged or hand-edited file gets wrong, each named with its key.

    :raises CalibrationError:
    """
    def bad(key: str, expected: str) -> CalibrationError:
        return CalibrationError(f"{source}: {key} = {data[key]!r}: expected {expected}; "
                                f"{_REMAKE.format(source)}")

    size = data["image_size"]
    if not (isinstance(size, list) and len(size) == 2 and
            all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 16384
                for v in size)):
        raise bad("image_size", "[width, height] in pixels, e.g. [1280, 960]")
    corners = data["corners"]
    if not (isinstance(corners, list) and len(corners) == 4 and
            all(isinstance(c, list) and len(c) == 2 and all(_number(v) for v in c)
                for c in corners)):
        raise bad("corners", "four [x, y] pixel pairs (TL, TR, BR, BL)")
    r = data["checker_radius_px"]
    if not _number(r) or not 1.0 <= r <= max(size):
        raise bad("checker_radius_px", "a radius in pixels")
    cfg = VisionConfig()
    lo, hi = cfg.lens_k_min, cfg.lens_k_max
    if "distortion" in data and not (_number(data["distortion"]) and
                                     lo - 1e-6 <= data["distortion"] <= hi + 1e-6):
        raise bad("distortion", f"a number in {lo}..{hi} (0 for none)")
    if "rim_lift" in data and not _number(data["rim_lift"]):
        raise bad("rim_lift", "a number")
    for key in ("band_arm_like", "bar_arm_like"):
        if key in data and not isinstance(data[key], bool):
            raise bad(key, "true or false")
    edges = data.get("edges", [])
    if not (isinstance(edges, list) and all(isinstance(r, str) for r in edges)):
        raise bad("edges", "a list of rows of hex digits")
    try:
        decode(edges)
    except ValueError as exc:
        raise bad("edges", f"rows of hex digits, all as long ({exc})") from exc


def _table(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    t = data.get(key)
    if not isinstance(t, dict):
        raise CalibrationError(f"{source}: missing table [{key}]: {_REMAKE.format(source)}")
    return t


def _check_keys(data: dict[str, Any], allowed: set[str], source: str, prefix: str,
                optional: frozenset[str] | set[str] = frozenset()) -> None:
    for key in data:
        if key not in allowed:
            raise CalibrationError(f"{source}: unknown key '{prefix}{key}': "
                                   f"{_REMAKE.format(source)}")
    for key in sorted(allowed - set(optional)):
        if key not in data:
            raise CalibrationError(f"{source}: missing key '{prefix}{key}': "
                                   f"{_REMAKE.format(source)}")


def _model(t: dict[str, Any]) -> B.ColourModel:
    m, s = t["mean"], t["sigma"]
    return B.ColourModel((float(m[0]), float(m[1]), float(m[2])),
                         (float(s[0]), float(s[1]), float(s[2])))


# -- learning ------------------------------------------------------------------------------


def parse_corners(text: str) -> Array:
    """``"x,y;x,y;x,y;x,y"`` (TL, TR, BR, BL) -> float array (4, 2).

    :raises CalibrationError: not four numeric pairs.
    """
    try:
        pts = [tuple(float(v) for v in pair.split(",")) for pair in text.strip().split(";")]
    except ValueError as exc:
        raise CalibrationError(f"corners {text!r}: expected 'x,y;x,y;x,y;x,y'") from exc
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise CalibrationError(f"corners {text!r}: expected four x,y pairs (TL;TR;BR;BL)")
    return np.asarray(pts, np.float64)


def _cross(u: Array, v: Array) -> float:
    """The z of two plane vectors' cross product (numpy 2 takes 3-vectors only)."""
    return float(u[0] * v[1] - u[1] * v[0])


def check_corners(corners: Array, image_size: tuple[int, int]) -> None:
    """Reject corners that make no board: not convex, too small, or far outside the image.

    :raises BoardNotFoundError:
    """
    c = np.asarray(corners, np.float64).reshape(4, 2)
    w, h = image_size
    if np.any(c[:, 0] < -0.25 * w) or np.any(c[:, 0] > 1.25 * w) or \
            np.any(c[:, 1] < -0.25 * h) or np.any(c[:, 1] > 1.25 * h):
        raise BoardNotFoundError("corners lie far outside the image: give TL;TR;BR;BL in pixels")
    cross = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        cross.append(_cross(b - a, d - b))
    if not (all(x > 0 for x in cross) or all(x < 0 for x in cross)):
        raise BoardNotFoundError("corners do not make a convex board: order them TL;TR;BR;BL")
    area = abs(float(cv2.contourArea(c.astype(np.float32))))
    if area < 0.02 * w * h:
        raise BoardNotFoundError("corners enclose too small an area to be the playing surface")


def start_labels(k: int) -> Array:
    """(24, K) classes of the starting position's first layer."""
    lab = np.zeros((24, k), np.int8)
    for i, c in enumerate(START_POINTS):
        lab[i, : min(abs(c), k)] = B.WHITE if c > 0 else B.BLACK
    return lab


def _borrow(feat: Array, lab: Array) -> Array:
    """Empty-board colour at places under a checker: the same place on the nearest point of the
    same colour (two points away, same side)."""
    bg = feat.copy()
    for p in range(24):
        row = range(0, 12) if p < 12 else range(12, 24)
        for k in range(feat.shape[1]):
            if lab[p, k] == B.EMPTY:
                continue
            cands = [q for q in row if (q - p) % 2 == 0 and lab[q, k] == B.EMPTY]
            if cands:
                bg[p, k] = feat[min(cands, key=lambda q: abs(q - p)), k]
    return bg


def _learn(cfg: VisionConfig, canon: Array, layout: Layout
           ) -> tuple[B.ColourModel, B.ColourModel, Array, float]:
    """Checker colour models (Lab), the empty board (BGR) and the light/dark contrast."""
    img = B.float_image(canon)
    k = layout.slots_per_point()
    feat = B.sample_discs(cfg, layout, img, layout.point_slots())
    lab = B.to_lab(feat)
    labels = start_labels(k)
    floor = np.asarray(cfg.checker_sigma_floor, np.float32)
    models = []
    for c in (B.WHITE, B.BLACK):
        f = lab[labels == c]
        m = f.mean(0)
        s = np.maximum(f.std(0), floor)
        models.append(B.ColourModel((float(m[0]), float(m[1]), float(m[2])),
                                    (float(s[0]), float(s[1]), float(s[2]))))
    contrast = models[0].mean[0] - models[1].mean[0]
    return models[0], models[1], _borrow(feat, labels), contrast


def _learn_dark(cfg: VisionConfig, canon: Array, layout: Layout) -> tuple[float, ...]:
    """The lightness of the start frame's checkers' darker pixels (``Calibration.dark``)."""
    dark = B.sample_dark(cfg, layout, canon, layout.point_slots())
    light = B.to_lab(np.repeat(dark[..., None], 3, -1))[..., 0]
    labels = start_labels(layout.slots_per_point())
    floor = float(cfg.checker_sigma_floor[0])
    out: list[float] = []
    for c in (B.WHITE, B.BLACK):
        v = light[labels == c]
        out += [float(v.mean()), max(float(v.std()), floor)]
    return tuple(out)


def _agreement(cfg: VisionConfig, canon: Array, layout: Layout, white: B.ColourModel,
               black: B.ColourModel, bg: Array) -> float:
    """Share of checker places that read as the starting position."""
    feat = B.sample_discs(cfg, layout, B.float_image(canon), layout.point_slots())
    reading = B.classify_places(cfg, B.to_lab(feat), B.to_lab(bg), white, black)
    return float((reading.classes() == start_labels(layout.slots_per_point())).mean())


def learn_rim_lift(cfg: VisionConfig, canon: Array, layout: Layout,
                   camera: tuple[float, float, float] | None) -> float:
    """The height (share of a checker's diameter) at which the starting position's checkers'
    rims stand out best from the empty places', in this view of the board: about a checker's
    height when the corners are the board's own; 0 when the camera cannot be told. (Corners
    the board finder fitted to the rims need none: :func:`learn` does not ask.)"""
    if camera is None:
        return 0.0
    edges, _ = B.edge_map(cfg, canon)
    slots = layout.point_slots()
    occ = start_labels(layout.slots_per_point()) != B.EMPTY
    exact = replace(cfg, ring_shift=0.0)
    best = (-9.0, 0.0)
    for h in cfg.rim_lifts:
        index = B.ring_index(exact, layout, lift(slots, camera, h * layout.checker_px),
                             canon.shape)
        r = B.ring_scores(edges, index, slots.shape[:-1], cfg.ring_rank)
        best = max(best, (float(r[occ].mean() - r[~occ].mean()), h))
    return best[1]


def learn_ring(cfg: VisionConfig, canon: Array, layout: Layout,
               camera: tuple[float, float, float] | None = None, rim_lift: float = 0.0
               ) -> tuple[B.RingModel, B.RingModel]:
    """Round-edge evidence on the starting position's checkers and on its empty places (on
    the points, and on the bar), looked for where checkers' rims are seen from ``camera``
    at ``rim_lift`` checker diameters up (see :func:`~pibg.vision.geometry.lift`)."""
    edges, _ = B.edge_map(cfg, canon)
    top = rim_lift * layout.checker_px
    slots = lift(layout.point_slots(), camera, top)
    r = B.ring_scores(edges, B.ring_index(cfg, layout, slots, canon.shape), slots.shape[:-1],
                      cfg.ring_rank)
    labels = start_labels(layout.slots_per_point())
    occ = r[labels != B.EMPTY]
    floor = cfg.ring_sigma_floor
    empty = []
    for k in range(r.shape[1]):
        e = r[:, k][labels[:, k] == B.EMPTY]
        e = e if len(e) >= 3 else r[labels == B.EMPTY]
        empty.append((float(e.mean()), max(float(e.std()), floor)))
    occupied = (float(occ.mean()), max(float(occ.std()), floor))
    bar_slots = lift(np.stack([layout.bar_slots(True), layout.bar_slots(False)]), camera, top)
    rb = B.ring_scores(edges, B.ring_index(cfg, layout, bar_slots, canon.shape),
                       bar_slots.shape[:-1], cfg.ring_rank)
    bar = tuple((float(rb[:, k].mean()), max(float(rb[:, k].std()), floor, 0.1))
                for k in range(rb.shape[1]))
    return B.RingModel(occupied, tuple(empty)), B.RingModel(occupied, bar)


def learn(cfg: VisionConfig, image: Array, corners: Array,
          white_home: WhiteHome | None = None, profile: str | None = None, *,
          corners_on_rims: bool = False) -> Calibration:
    """Learn a calibration from a frame of the starting position and the surface corners.

    Without ``white_home`` every orientation is tried (without ``profile`` every board
    profile of about the corners' shape, :func:`profiles_shaped_like`), and the one where the
    lighter checkers stand where White's do in the starting position wins.
    ``corners_on_rims``: the corners are :func:`find_board`'s, fitted to the checkers' rims,
    so the view is of the checkers' tops and the rims need no lift (else the rims' height is
    learnt from the frame, see :func:`learn_rim_lift`).

    :raises CalibrationError: the frame does not show the starting position.
    :raises BoardNotFoundError: the corners make no board.
    """
    h, w = image.shape[:2]
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    check_corners(corners, (w, h))
    homes: tuple[WhiteHome, ...] = (white_home,) if white_home else WHITE_HOMES
    profiles = ([pick_profile(corners, profile)] if profile
                else profiles_shaped_like(corners, cfg.profile_shape_tolerance))
    best: tuple[float, WhiteHome, Array, Array, BoardProfile] | None = None
    for prof in profiles:
        layout = Layout(prof)
        for home in homes:
            hm = homography(corners, layout, home)
            canon = cv2.warpPerspective(image, hm, layout.size, flags=cv2.INTER_LINEAR)
            white, black, bg, contrast = _learn(cfg, canon, layout)
            # two checker colours apart (by lightness or by hue: red and blue checkers may
            # be as light), the lighter standing where White's start; turned or mirrored,
            # each colour model mixes both and they come out alike
            apart = float(np.linalg.norm(np.subtract(white.mean, black.mean)))
            if (contrast <= 0.0 and white_home is None) or apart < cfg.min_colour_contrast:
                continue  # (White the darker only where the players name it so)
            score = _agreement(cfg, canon, layout, white, black, bg) + contrast / 1000.0
            if best is None or score > best[0]:
                best = (score, home, canon, hm, prof)
    if best is None:
        raise CalibrationError(
            "this frame does not look like the starting position (no two checker colours "
            "where they start): set the checkers up as at the start and try again")
    agree, home, canon, hm, prof = best
    layout = Layout(prof)
    k_lens = fit_distortion(cfg, image, corners, layout, home)
    if k_lens:
        hm = homography(undistort(corners, k_lens, (w, h)), layout, home)
        canon = cv2.remap(image, *canonical_maps(hm, layout, k_lens, (w, h)), cv2.INTER_LINEAR)
        agree = max(agree, _agreement(cfg, canon, layout, *_learn(cfg, canon, layout)[:3]))
    white, black, bg, contrast = _learn(cfg, canon, layout)
    if agree < cfg.min_start_agreement:
        raise CalibrationError(
            f"this frame does not look like the starting position ({agree:.0%} of the checker "
            "places agree): set the checkers up as at the start, or check the corners")
    img = B.float_image(canon)
    bar = np.stack([B.sample_discs(cfg, layout, img, layout.bar_slots(white=True)),
                    B.sample_discs(cfg, layout, img, layout.bar_slots(white=False))])
    cube = B.sample_discs(cfg, layout, img, np.asarray(list(layout.cube_places().values())))
    cube[0] = C.face_colour(layout, canon, *layout.cube_places()["center"])
    scale = B.edge_map(cfg, canon)[1]
    trays = [B.tray_energy(layout, canon, is_white, scale) for is_white in (True, False)]
    n = min(len(t) for t in trays)
    tray = np.stack([t[:n] for t in trays])
    pc = [bg[0::2].reshape(-1, 3).mean(0), bg[1::2].reshape(-1, 3).mean(0)]
    camera = camera_centre(hm, (w, h))
    rim_lift = 0.0 if corners_on_rims else learn_rim_lift(cfg, canon, layout, camera)
    ring, bar_ring = learn_ring(cfg, canon, layout, camera, rim_lift)
    # Checker radius in image pixels, measured round point 1's first place.
    inv = np.linalg.inv(hm)
    cx, cy = layout.slot_centre(1, 0)
    r = layout.checker_px / 2
    pts = to_image(inv, np.array([[cx - r, cy], [cx + r, cy]]))  # ideal image; near enough
    radius = float(np.linalg.norm(pts[1] - pts[0]) / 2)
    start = np.asarray([n != 0 for n in START_POINTS])
    return Calibration(
        image_size=(w, h),
        corners=tuple((float(x), float(y)) for x, y in corners),
        white_home=home,
        profile=prof.name,
        white=white,
        black=black,
        points_bg=bg.astype(np.float32),
        bar_bg=bar.astype(np.float32),
        tray_bg=tray.astype(np.float32),
        cube_bg=cube.astype(np.float32),
        rails=B.sample_discs(cfg, layout, img, layout.rail_places(), cfg.rail_radius),
        ring=ring,
        bar_ring=bar_ring,
        checker_radius_px=radius if math.isfinite(radius) else 0.0,
        point_colours=tuple((float(v[0]), float(v[1]), float(v[2])) for v in pc),
        distortion=k_lens,
        rim_lift=rim_lift,
        arm_like=_arm_like(cfg, canon, layout, start),
        band_arm_like=_places_arm_like(cfg, canon, layout, layout.band_places()),
        bar_arm_like=_places_arm_like(cfg, canon, layout, _bar_places(layout)),
        edges=encode(edge_map(canon)),
        dark=_learn_dark(cfg, canon, layout),
    )


def _arm_like(cfg: VisionConfig, canon: Array, layout: Layout, occupied: Array
              ) -> tuple[int, ...]:
    """:func:`~pibg.vision.place_net.arm_like` with the configured network (none without)."""
    model = PN.model_path(cfg.place_model)
    if model is None:
        return ()
    return PN.arm_like(canon, layout.point_slots(), layout.checker_px, occupied, model)


def _places_arm_like(cfg: VisionConfig, canon: Array, layout: Layout, places: Array) -> bool:
    """:func:`~pibg.vision.place_net.band_arm_like` with the configured network on
    ``places``, empty at the start (the middle band's, the bar's); True, they are no
    evidence, without one."""
    model = PN.model_path(cfg.place_model)
    if model is None:
        return True
    return PN.band_arm_like(canon, places, layout.checker_px, model)


def _bar_places(layout: Layout) -> Array:
    """The bar's checker places, White's side then Black's (as ``Vision`` reads them)."""
    return np.concatenate([layout.bar_slots(white=True), layout.bar_slots(white=False)])


def fit_distortion(cfg: VisionConfig, image: Array, corners: Array, layout: Layout,
                   home: WhiteHome) -> float:
    """The lens's radial distortion, from a frame of the starting position: the value that
    makes the checkers' round edges line up best with their places in the canonical view
    (with the corners fixed, a bulging lens pushes the checkers between them off their places).
    0 unless it clearly beats no distortion (a narrow lens).
    """
    h, w = image.shape[:2]
    slots = layout.point_slots()
    index = B.ring_index(cfg, layout, slots, (layout.size[1], layout.size[0]))
    occ = start_labels(layout.slots_per_point()) != B.EMPTY
    ks = np.round(np.arange(cfg.lens_k_min, cfg.lens_k_max + 1e-9, cfg.lens_k_step), 4)
    scores = []
    for k in ks:
        hm = homography(undistort(corners, float(k), (w, h)), layout, home)
        canon = cv2.remap(image, *canonical_maps(hm, layout, float(k), (w, h)), cv2.INTER_LINEAR)
        r = B.ring_scores(B.edge_map(cfg, canon)[0], index, slots.shape[:-1])
        scores.append(float(r[occ].mean() - r[~occ].mean()))
    sc = np.asarray(scores)
    smooth = np.convolve(np.pad(sc, 1, mode="edge"), np.ones(3) / 3, mode="valid")
    i = int(np.argmax(smooth))
    i0 = int(np.argmin(np.abs(ks)))
    if smooth[i] - smooth[i0] < cfg.lens_gain:
        return 0.0
    return float(ks[i])


def pick_profile(corners: Array, profile: str | None) -> BoardProfile:
    """The named profile, or the built-in one whose shape fits the corners best.

    :raises CalibrationError: an unknown profile name.
    """
    if profile is not None:
        if profile not in PROFILES:
            raise CalibrationError(f"unknown board profile {profile!r}: one of {sorted(PROFILES)}")
        return PROFILES[profile]
    return profile_for_aspect(corners_aspect(corners))


def corners_aspect(corners: Array) -> float:
    """The shape of the quadrilateral ``corners`` (TL, TR, BR, BL): its sides' length over
    its top's and bottom's."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    top = float(np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3]))
    side = float(np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1]))
    return side / max(top, 1.0)


def profiles_shaped_like(corners: Array, tolerance: float) -> list[BoardProfile]:
    """The built-in profiles whose shape lies within ``tolerance`` (log of the ratio) of the
    corners' (:func:`corners_aspect`); every profile where none does (a camera tilted far
    enough to change the board's shape in the frame: the colours then choose)."""
    aspect = corners_aspect(corners)
    near = [p for p in PROFILES.values()
            if aspect > 0.0 and abs(math.log(p.aspect / aspect)) <= tolerance]
    return near or list(PROFILES.values())


def find_board(cfg: VisionConfig, image: Array) -> Array:
    """The playing surface's corners TL, TR, BR, BL in a frame of the starting position
    (see :func:`locate_board`)."""
    return locate_board(cfg, image)[0]


def locate_board(cfg: VisionConfig, image: Array) -> tuple[Array, bool]:
    """The playing surface's corners TL, TR, BR, BL in a frame of the starting position,
    and whether they were fitted to the checkers' rims (pass it to :func:`learn` as
    ``corners_on_rims``); see :func:`locate_layout`.

    :raises BoardNotFoundError: no board-like layout of checkers was found.
    """
    found = locate_layout(cfg, image)
    return found.corners, found.on_rims


class Located(NamedTuple):
    """Where :func:`locate_layout` found the board."""

    corners: Array  #: the playing surface's corners TL, TR, BR, BL
    on_rims: bool   #: fitted to the checkers' rims (:func:`learn`'s ``corners_on_rims``)
    #: the board profile whose layout the checkers were fitted to (None: the printed markers)
    profile: str | None


def locate_layout(cfg: VisionConfig, image: Array) -> Located:
    """The playing surface's corners in a frame of the starting position, whether they were
    fitted to the checkers' rims, and the board profile whose starting layout the checkers
    fit (pass it to :func:`learn`: the checkers' places along the points measure the
    board's shape better than the start frame's colours do, which agreed as well with a
    profile 3.5 % shallower on renders rnj4, rnl4, rnn0 and rnq2).

    Printed markers (:mod:`pibg.vision.markers`) are used when all four are in view.
    Otherwise the checkers are found as circles, the four outermost stacks of the starting
    position (points 1, 12, 13 and 24, which sit in the surface's corners whichever side
    White plays from) give a first homography, every checker then refines it, and a local
    search sharpens the corners by the round edges of the checkers.

    :raises BoardNotFoundError: no board-like layout of checkers was found.
    """
    from pibg.vision.markers import find_marker_corners

    corners = find_marker_corners(image)
    if corners is not None:
        return Located(corners, False, None)
    # The circles are looked for with strict edge thresholds first, then with looser ones
    # (a dark checker on a dark board has faint edges; the grain of a wooden board then
    # makes circles too). Of the layouts fitted, the two whose checkers' rims are sharpest
    # are refined, and the board is the one whose rims come out sharpest, by a margin no
    # wrong board reaches (right ones: 0.65 or more; wrong ones: 0.4 at most).
    # A corner stack not found as circles (dark checkers on a dark point, render rnu4)
    # leaves some other circle outermost: failing that, each corner is also guessed from
    # the other three.
    margins = {name: _rim_margin(cfg, image, Layout(prof)) for name, prof in PROFILES.items()}
    circles = [c for band in cfg.start_radius_bands for strong, votes in cfg.start_circles
               if (c := _checker_circles(image, strong, votes, band)) is not None]
    seen = max((len(c) for c in circles), default=0)
    model = PN.model_path(cfg.place_model)

    def seen_there(corners: Array, name: str) -> bool:
        """Whether the place network, if shipped, sees the starting position on the board
        ``corners`` make (``start_seen_min`` of the places)."""
        return model is None or start_seen_share(image, corners, Layout(PROFILES[name]),
                                                 model) >= cfg.start_seen_min

    fitted: list[tuple[float, Array, str, int]] = []  # (rims' margin, corners, profile, matched)
    for complete in (False, True):
        cands = []
        for found in circles:
            for name, prof in PROFILES.items():
                for mirrored in (False, True):
                    fit = _fit_start_layout(found, Layout(prof), mirrored, complete)
                    if fit is not None and fit[0] >= cfg.start_fit_min:
                        cands.append((margins[name](fit[1]), fit[1], name, fit[0]))
        fitted += cands
        best: tuple[float, Array, str] | None = None
        for m, corners, name, _ in sorted(cands, key=lambda t: -t[0])[:2]:
            refined, rims = _refine_corners(corners, margins[name], m)
            if (rims >= cfg.start_rims_min and (best is None or rims > best[0])
                    and seen_there(refined, name)):
                best = (rims, refined, name)
        if best is not None:
            return Located(best[1], True, best[2])
    # No layout's rims sharp enough (a patterned field blurs them: render rnz0, its checkers
    # on points of their own colour over a field of waves): a layout that puts every
    # checker of the starting position on a circle found is the board on its own (wrong
    # layouts matched 30 once in the 36 render start frames tried, rnu2's, whose right one
    # is sharp enough); :func:`learn` then asks the colours to read as the starting position
    m, corners, name, count = max(fitted, key=lambda t: (t[3], t[0]),
                                  default=(0.0, np.zeros((4, 2)), "", 0))
    if count >= cfg.start_whole:
        return Located(_refine_corners(corners, margins[name], m)[0], True, name)
    # Nor that (a checker or two the colour of the frame not found as circles: render rnh0,
    # dark red checkers by a red frame over a striped field): a layout matching most of
    # them where the place network, which finds checkers by their shape, sees a checker at
    # every place the starting position fills and at no other (in 16 render start frames,
    # 50 of 54 layouts within 30 px of the labelled corners, and 2 of 51 further off, both
    # of another profile matching 24 or fewer: benchmarks/board_finder.py --layouts)
    likely = sorted((f for f in fitted if f[3] >= cfg.start_most), key=lambda t: (-t[3], -t[0]))
    for m, corners, name, _ in likely:
        if model is not None and start_seen_share(image, corners, Layout(PROFILES[name]),
                                                  model) == 1.0:
            return Located(_refine_corners(corners, margins[name], m)[0], True, name)
    if seen < 12:
        raise BoardNotFoundError(
            "board not found automatically (too few checkers seen): pass --corners "
            "'x,y;x,y;x,y;x,y' (TL;TR;BR;BL) or lay the printed markers at the corners")
    raise BoardNotFoundError(
        "board not found automatically (the checkers do not make a starting position): "
        "pass --corners 'x,y;x,y;x,y;x,y' (TL;TR;BR;BL)")


def start_seen_share(image: Array, corners: Array, layout: Layout, model: Path = PN.MODEL
                     ) -> float:
    """The share of the points' places of the board ``corners`` and ``layout`` make where
    the place network (``model``) sees a checker exactly where the starting position has
    one, the most over White's homes (1.0: at every place it fills and at no other)."""
    occupied = start_labels(layout.slots_per_point()) != B.EMPTY
    best = 0.0
    for home in WHITE_HOMES:
        try:
            canon = cv2.warpPerspective(image, homography(corners, layout, home), layout.size)
        except (cv2.error, np.linalg.LinAlgError):
            return 0.0
        seen = PN.read(canon, layout.point_slots(), layout.checker_px, model).checker > 0
        best = max(best, float((seen == occupied).mean()))
    return best


def _checker_circles(image: Array, strong: int = 100, votes: int = 25,
                     band: tuple[float, float] = (0.3, 0.95)) -> Array | None:
    """Checker-sized circles (x, y, r): Hough circles with Canny's upper threshold
    ``strong`` and ``votes`` accumulator votes, radius within ``band`` (28ths of the frame's
    width), of about the median radius."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 1.5)
    w = image.shape[1]
    rmin, rmax = int(w * band[0] / 28), int(w * band[1] / 28)
    c = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1.5, minDist=rmin * 1.6, param1=strong,
                         param2=votes, minRadius=rmin, maxRadius=rmax)
    if c is None:
        return None
    c = np.asarray(c[0], np.float64)
    rm = float(np.median(c[:, 2]))
    return np.asarray(c[(c[:, 2] > 0.75 * rm) & (c[:, 2] < 1.3 * rm)])


def _fit_start_layout(circles: Array, layout: Layout, mirrored: bool, complete: bool = False
                      ) -> tuple[int, Array] | None:
    """The number of circles a starting position of ``layout`` fitted to ``circles`` matches
    and the surface's corners it puts them at (None: too few circles). The outermost circles
    are taken for the corner stacks' first checkers or, each in turn, for their second (a
    first checker at the frame's edge, half under its lip, is often not found as a circle:
    render rnr1); each such guess is fitted on its own, and the fit matching the most
    circles is kept (the first guess's on ties)."""
    pts = circles[:, :2]
    r = float(np.median(circles[:, 2]))
    labels = start_labels(layout.slots_per_point())
    if mirrored:
        labels = labels[[11 - i if i < 12 else 35 - i for i in range(24)]]
    canon = layout.point_slots()[labels != B.EMPTY].astype(np.float64)
    best: tuple[int, Array] | None = None
    # every corner stack (points 13, 24, 1, 12) of the starting position holds two or more
    for ks in itertools.product((0, 1), repeat=4):
        ext_c = np.array([layout.slot_centre(pt, k)
                          for pt, k in zip((13, 24, 1, 12), ks, strict=True)], np.float32)
        fit = _fit_from(pts, r, canon, ext_c, complete)
        if fit is not None and (best is None or fit[0] > best[0]):
            best = fit
        if best is not None and best[0] >= min(len(pts), len(canon)):
            break  # every circle, or every checker, matched: no guess can do better
    if best is None:
        return None
    score, hm = best
    corners = cv2.perspectiveTransform(
        layout.surface_corners().reshape(-1, 1, 2).astype(np.float64), hm).reshape(-1, 2)
    return score, np.asarray(corners, np.float64)


def _fit_from(pts: Array, r: float, canon: Array, ext_c: Array, complete: bool
              ) -> tuple[int, Array] | None:
    """The circles (centres ``pts``, radius ``r``) a starting position's checker places
    ``canon`` match and the homography putting them there, fitted from the outermost
    circles taken for the places ``ext_c`` (TL, TR, BR, BL); with ``complete`` each
    corner's guess is also put where the other three place it (:func:`_corner_guesses`).
    None: too few circles."""
    alive = np.ones(len(pts), bool)
    best: tuple[int, Array] | None = None
    for _ in range(12):
        p = pts[alive]
        if len(p) < 8:
            break
        s, d = p.sum(1), p[:, 0] - p[:, 1]
        ext = np.array([p[np.argmin(s)], p[np.argmax(d)], p[np.argmax(s)], p[np.argmin(d)]],
                       np.float32)
        guesses = (_corner_guesses(ext_c, ext) if complete
                   else [cv2.getPerspectiveTransform(ext_c, ext)])
        fits = []  # (circles matched, distances, the guess), the first best kept on ties
        for hm in guesses:
            pred = cv2.perspectiveTransform(canon.reshape(-1, 1, 2), hm).reshape(-1, 2)
            dist = np.linalg.norm(pts[:, None] - pred[None], axis=2).min(1)
            fits.append((int((dist < 0.5 * r).sum()), dist, hm))
        count, near, hm = max(fits, key=lambda t: t[0])
        matched = near < 0.5 * r
        if best is None or count > best[0]:
            best = (count, hm)
        bad = np.where(alive & ~matched)[0]
        if len(bad) == 0:
            break
        alive[bad[np.argmax(near[bad])]] = False
    if best is None:
        return None
    score, hm = best
    # Then as an iterative closest point fit: every circle near a predicted checker pulls
    # the homography, with the reach narrowing (a first guess a checker off at one corner
    # comes right).
    for reach in (1.2, 0.9, 0.6, 0.5):
        pred = cv2.perspectiveTransform(canon.reshape(-1, 1, 2), hm).reshape(-1, 2)
        dist = np.linalg.norm(pts[:, None] - pred[None], axis=2)
        j, ok = dist.argmin(1), dist.min(1) < reach * r
        if ok.sum() < 8:
            break
        h2, _ = cv2.findHomography(canon[j[ok]], pts[ok], cv2.RANSAC, 0.3 * r)
        if h2 is None:
            break
        hm = h2
    pred = cv2.perspectiveTransform(canon.reshape(-1, 1, 2), hm).reshape(-1, 2)
    score = max(score, int((np.linalg.norm(pts[:, None] - pred[None], axis=2).min(1)
                            < 0.5 * r).sum()))
    return score, hm


def _corner_guesses(ext_c: Array, ext: Array) -> list[Array]:
    """Homographies taking the four corner stacks' first places ``ext_c`` to the outermost
    circles ``ext``, and, for each corner, to the other three with that one put where they
    place it (a parallelogram's fourth corner): a corner stack whose checkers were not
    found as circles (dark checkers on a dark point) leaves some other circle outermost."""
    out = [cv2.getPerspectiveTransform(ext_c, ext)]
    for i in range(4):
        a, b, c = ext[(i + 3) % 4], ext[(i + 2) % 4], ext[(i + 1) % 4]
        if _cross(a - b, c - b) == 0.0:
            continue
        guess = ext.copy()
        guess[i] = a + c - b
        out.append(cv2.getPerspectiveTransform(ext_c, guess))
    return out


def _rim_margin(cfg: VisionConfig, image: Array, layout: Layout) -> Callable[[Array], float]:
    """Corners -> how much sharper the checkers' rims are at the starting position's checker
    places than at its empty ones. Rings exactly where the checkers should be (no search
    round them), closed all round: the margin rises only as the corners come right."""
    slots = layout.point_slots()
    w, h = layout.size
    index = B.ring_index(replace(cfg, ring_shift=0.0), layout, slots, (h, w))
    occ = start_labels(layout.slots_per_point()) != B.EMPTY

    def score(c: Array) -> float:
        best = -9.0
        for home in ("bottom-right", "bottom-left"):
            canon = cv2.warpPerspective(image, homography(c, layout, home), (w, h))
            r = B.ring_scores(B.edge_map(cfg, canon)[0], index, slots.shape[:-1], cfg.ring_rank)
            best = max(best, float(r[occ].mean() - r[~occ].mean()))
        return best

    return score


def _refine_corners(corners: Array, score: Callable[[Array], float], s: float
                    ) -> tuple[Array, float]:
    """Move each corner by a few pixels while the checkers' round edges get sharper
    (``score``: the rims' margin, :func:`_rim_margin`, ``s`` at ``corners``); and the
    margin then."""
    c = np.asarray(corners, np.float64).copy()
    for step in (8.0, 4.0, 2.0):
        improved = True
        while improved:
            improved = False
            for i in range(4):
                for j in range(2):
                    for d in (-step, step):
                        c2 = c.copy()
                        c2[i, j] += d
                        s2 = score(c2)
                        if s2 > s + 1e-4:
                            c, s, improved = c2, s2, True
    return c, s


#: squared normalised Lab distance (``background_sigma`` units) past which a place is as far
#: from the empty board as a checker is
_CHECKER_FAR = 9.0


def _empty_points(cfg: VisionConfig, group: Array) -> Array:
    """The empty board at each place ``(K, 3)`` of six points of one colour on one side
    (``group`` ``(6, K, 3)``, BGR): each place's median over the six, unless the six split
    there into two colours (checkers at the base of three points of the six pull the median
    half way to theirs: a tournament photo's red points then read as White's checkers).
    Checkers stand from the base and a point's colour changes along it (a red point over a
    cream field pales towards its tip), so from the tip inwards, where the median lies as
    far as a checker from the three of the six nearest the empty colour one place further
    out, those three's median is the empty colour."""
    lab = B.to_lab(group)
    out = np.median(group, axis=0)
    for j in range(group.shape[1] - 2, -1, -1):
        d = B.empty_dist2(cfg, lab[:, j], B.to_lab(out[j + 1][None])[0])
        near = np.median(group[np.argsort(d, kind="stable")[:3], j], axis=0)
        if B.empty_dist2(cfg, B.to_lab(out[j][None])[0], B.to_lab(near[None])[0]) > _CHECKER_FAR:
            out[j] = near
    return np.asarray(out, np.float32)


#: how many times its fellow's step a place's step from the place further out must be for
#: the place to be taken as covered on all six points (see :func:`_across_rows`)
_STEP_RATIO = 3.0


def _across_rows(cfg: VisionConfig, bg: Array) -> Array:
    """``bg`` (24, K, 3), each side's empty points (:func:`_empty_points`) checked against the
    other side's. Where checkers stand at the same place on all six points of one colour on
    one side, that place's empty colour is not seen there, and :func:`_empty_points` gives
    it a checker's colour. The other side's points of that colour are the same paint, in
    another light. So from the tip inwards, a place is taken as covered where its colour
    steps from the place further out by as much as a checker and by over ``_STEP_RATIO``
    times what its fellow on the other side steps, that fellow's step is as small as a
    checker's distance (covered too, or still on a point's changing tip, it proves
    nothing), and the two sides lie as far apart as a checker there. Its empty colour is
    then the place further out's, changed as the fellow's changes."""
    out = bg.copy()
    groups = [[p for p in range(r, r + 12) if p % 2 == q] for r in (0, 12) for q in (0, 1)]
    for j in range(bg.shape[1] - 2, -1, -1):
        for g, fellow in ((0, 2), (1, 3), (2, 0), (3, 1)):
            here, there = out[groups[g][0]], out[groups[fellow][0]]
            lab = B.to_lab(np.stack([here[j], here[j + 1], there[j], there[j + 1]]))
            step, other, apart = (float(B.empty_dist2(cfg, lab[a], lab[b]))
                                  for a, b in ((0, 1), (2, 3), (0, 2)))
            if (step > _CHECKER_FAR and step > _STEP_RATIO * other
                    and other <= _CHECKER_FAR < apart):
                # the fellow's change along the point, taken as a gain per channel (its
                # side may lie in another light)
                out[groups[g], j] = here[j + 1] * (there[j] + 1.0) / (there[j + 1] + 1.0)
    return out


def learn_from_any_frame(cfg: VisionConfig, image: Array, corners: Array,
                         white_home: WhiteHome, profile: str | None = None) -> Calibration:
    """A rough calibration from any frame (no starting position): colours found in the image.

    The empty board at a place is the median of the same place over the six points of that
    colour on that side (:func:`_empty_points`), or, where all six hold checkers there, the
    same paint on the other side's points (:func:`_across_rows`); places far from it are
    checkers, split into light and dark.

    :raises BoardNotFoundError: the corners make no board.
    """
    h, w = image.shape[:2]
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    check_corners(corners, (w, h))
    prof = pick_profile(corners, profile)
    layout = Layout(prof)
    hm = homography(corners, layout, white_home)
    canon = cv2.warpPerspective(image, hm, layout.size, flags=cv2.INTER_LINEAR)
    img = B.float_image(canon)
    feat = B.sample_discs(cfg, layout, img, layout.point_slots())
    bg = feat.copy()
    for row in (range(0, 12), range(12, 24)):
        for parity in (0, 1):
            pts = [p for p in row if p % 2 == parity]
            bg[pts] = _empty_points(cfg, feat[pts])[None]
    bg = _across_rows(cfg, bg)
    flab = B.to_lab(feat)
    cand = flab[B.empty_dist2(cfg, flab, B.to_lab(bg)) > _CHECKER_FAR]
    light = cand[cand[:, 0] >= np.median(cand[:, 0])] if len(cand) >= 4 else cand
    dark = cand[cand[:, 0] < np.median(cand[:, 0])] if len(cand) >= 4 else cand
    floor = np.asarray(cfg.checker_sigma_floor, np.float32)

    def model(f: Array, default: float) -> B.ColourModel:
        if len(f) < 2:
            return B.ColourModel((default, 128.0, 128.0), (20.0, 6.0, 6.0))
        m, s = f.mean(0), np.maximum(f.std(0), floor * 1.5)
        return B.ColourModel((float(m[0]), float(m[1]), float(m[2])),
                             (float(s[0]), float(s[1]), float(s[2])))

    bar = np.stack([np.median(B.sample_discs(cfg, layout, img, layout.bar_slots(s)), 0)[None]
                    .repeat(len(layout.bar_slots(s)), 0) for s in (True, False)])
    cube = B.sample_discs(cfg, layout, img, np.asarray(list(layout.cube_places().values())))
    _, y0, _, y1 = layout.tray_rect(True)
    tray = np.zeros((2, int(y1) - int(y0)), np.float32)
    return Calibration(
        image_size=(w, h),
        corners=tuple((float(x), float(y)) for x, y in corners),
        white_home=white_home,
        profile=prof.name,
        white=model(light, 220.0),
        black=model(dark, 40.0),
        points_bg=bg.astype(np.float32),
        bar_bg=bar.astype(np.float32),
        tray_bg=tray.astype(np.float32),
        cube_bg=cube.astype(np.float32),
        rails=B.sample_discs(cfg, layout, img, layout.rail_places(), cfg.rail_radius),
        checker_radius_px=0.0,
        point_colours=tuple((float(v[0]), float(v[1]), float(v[2]))
                            for v in (bg[0, 0], bg[1, 0])),
        arm_like=_arm_like(cfg, canon, layout, np.zeros(24, bool)),
        edges=encode(edge_map(canon)),
    )
