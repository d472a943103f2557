"""A synthetic board: camera frames of any position, fast and deterministic.

The board is drawn top-down (points, bar, tray, checkers, dice with pips, the cube with its
face value, an optional hand and arm) and then seen through a perspective camera with
uneven light, noise and blur. The same scene and seed give the same frame, byte for byte.

>>> from pibg.vision.geometry import Array, START_POINTS
>>> frame = render(SimScene(START_POINTS))
>>> frame.shape, frame.dtype.name
((960, 1280, 3), 'uint8')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from pibg.observation import Owner
from pibg.vision.geometry import PROFILES, Array, Layout

Style = Literal["walnut", "tournament", "oak"]

#: Surface corners (TL, TR, BR, BL) of a 1280 x 960 frame; scale them for other sizes.
SIM_CORNERS: tuple[tuple[float, float], ...] = (
    (214.0, 196.0), (951.0, 222.0), (940.0, 806.0), (190.0, 792.0))

_U = 48.0  # drawing pixels per point width

# BGR colours: board, frame, light point, dark point, white checker, black checker, die, pip.
_STYLES: dict[str, dict[str, tuple[int, int, int]]] = {
    "walnut": {"board": (40, 62, 92), "frame": (28, 44, 66), "light": (160, 200, 222),
               "dark": (40, 38, 36), "white": (222, 226, 230), "black": (40, 30, 150),
               "die": (235, 235, 235), "pip": (20, 20, 20), "table": (150, 150, 150)},
    "tournament": {"board": (30, 30, 32), "frame": (18, 18, 20), "light": (190, 214, 224),
                   "dark": (50, 50, 190), "white": (238, 238, 238), "black": (28, 28, 28),
                   "die": (25, 25, 25), "pip": (235, 235, 235), "table": (70, 80, 150)},
    "oak": {"board": (120, 170, 205), "frame": (90, 140, 180), "light": (220, 236, 244),
            "dark": (70, 120, 40), "white": (200, 232, 244), "black": (40, 70, 110),
            "die": (40, 40, 200), "pip": (235, 235, 235), "table": (90, 70, 60)},
}

_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


@dataclass(frozen=True)
class SimScene:
    """A position to draw. ``points``: 24 signed counts from White (index 0 = White's 1-point);
    ``bar``/``off``: (white, black)."""

    points: Sequence[int]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    dice: tuple[int, int] | None = None
    cocked: bool = False
    cube_value: int = 1
    cube_owner: Owner = "center"
    hand: bool = False
    seed: int = 0
    style: Style = "walnut"
    light: float = 1.0       #: overall brightness factor
    jitter: float = 2.0      #: camera jitter in pixels (per seed)
    view: int = 0            #: another frame of the same scene: new noise, light, shake
    #: where the dice came to rest (a seed): the same throw lies still from frame to frame,
    #: until it is picked up (default: ``seed``)
    dice_seed: int | None = None
    #: the second die came to rest on the bar (no roll: docs/rules.md rule 14)
    bar_die: bool = False
    #: what the cocked die leans on: "nothing" draws its top face foreshortened to 0.6 where
    #: it lies, no side face, round pips (a 53-degree lean on nothing: the old stand-in, which
    #: no real die shows); "die" and "checker" lean it 20 to 35 degrees on the other die or
    #: the nearest checker, oval pips, the face turned to it showing beside (the demo and the
    #: replays lean on a checker)
    leans_on: Literal["nothing", "die", "checker"] = "nothing"
    #: the second die came to rest against the first, flat (0 to 0.1 of an edge apart)
    touching: bool = False


def sim_corners(size: tuple[int, int] = (1280, 960)) -> Array:
    """Ground-truth surface corners for a frame of ``size`` (before jitter)."""
    sx, sy = size[0] / 1280.0, size[1] / 960.0
    return np.array([(x * sx, y * sy) for x, y in SIM_CORNERS], np.float64)


def _layout() -> Layout:
    return Layout(PROFILES["standard"], u=_U, margin=0.35)


def _checker(img: Array, x: float, y: float, r: float, colour: tuple[int, int, int],
             lift: float = 0.0) -> None:
    c = np.asarray(colour, np.float64)
    edge = tuple(int(v) for v in c * 0.55)
    rim = tuple(int(v) for v in np.minimum(c * 0.85 + 10, 255))
    hi = tuple(int(v) for v in np.minimum(c * 1.15 + 25, 255))
    xi, yi = round(x * 4), round((y - lift) * 4)
    ri = round(r * 4)
    cv2.circle(img, (xi, yi), ri, edge, -1, cv2.LINE_AA, 2)
    cv2.circle(img, (xi, yi), int(ri * 0.93), tuple(int(v) for v in c), -1, cv2.LINE_AA, 2)
    cv2.circle(img, (xi, yi), int(ri * 0.72), rim, max(1, ri // 14), cv2.LINE_AA, 2)
    cv2.circle(img, (xi - ri // 4, yi - ri // 4), max(1, ri // 6), hi, -1, cv2.LINE_AA, 2)


def _die(img: Array, x: float, y: float, side: float, value: int, angle: float,
         st: dict[str, tuple[int, int, int]], lean: float = 0.0, side_value: int = 2) -> None:
    """A die of edge ``side`` centred at (x, y), turned by ``angle`` (radians). ``lean``
    (radians) tilts it onto something beside it, along its own y axis: from above its top
    face is foreshortened by cos(lean), its pips oval, and the face turned towards what it
    leans on (``side_value``, darker) shows beside it, sin(lean) of an edge deep. A negative
    ``lean`` draws ``SimScene.leans_on="nothing"``'s stand-in: the top face squashed to 0.6
    where it lies, round pips, no side face."""
    plain = lean <= 0.0  # round pips: a flat die, or SimScene.leans_on="nothing"'s face
    c, s = (0.6, 0.0) if lean < 0.0 else (math.cos(lean), math.sin(lean))
    half = side / 2
    length = side * (c + s)  # the footprint along the lean: top face, then the side face
    top = -length / 2 + half * c  # the faces' centres along the lean
    under = -length / 2 + side * c + half * s
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    deg = math.degrees(angle)
    faces = [(value, top, c, st["die"], st["pip"])]
    if lean > 0.0:  # the side face, in shade

        def shade(bgr: tuple[int, int, int]) -> tuple[int, int, int]:
            return int(bgr[0] * 0.7), int(bgr[1] * 0.7), int(bgr[2] * 0.7)

        faces.append((side_value, under, s, shade(st["die"]), shade(st["pip"])))
    for v, centre, squash, face, pip in faces:
        sq = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        sq[:, 1] = sq[:, 1] * squash + centre
        poly = (sq @ rot.T + [x, y]) * 4
        cv2.fillConvexPoly(img, poly.astype(np.int32), face, cv2.LINE_AA, 2)
        r = side * 0.09 * 4
        for px, py in _PIPS[v]:
            p = np.array([px * side * 0.27, centre + py * side * 0.27 * squash]) @ rot.T + [x, y]
            at = (int(p[0] * 4), int(p[1] * 4))
            if plain:
                cv2.circle(img, at, int(r), pip, -1, cv2.LINE_AA, 2)
            else:
                axes = (max(1, round(r)), max(1, round(r * squash)))
                cv2.ellipse(img, at, axes, deg, 0, 360, pip, -1, cv2.LINE_AA, 2)


def _square(x: float, y: float, side: float, angle: float) -> Array:
    """A die's footprint: its four corners."""
    c, s, h = math.cos(angle), math.sin(angle), side / 2
    return np.array([(x + u * c - v * s, y + u * s + v * c)
                     for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))], np.float32)


def _touching(first: tuple[float, float], first_angle: float, angle: float, side: float,
              bearing: float, gap: float) -> tuple[float, float]:
    """Where a die turned by ``angle`` lies against the first die (at ``first``, turned by
    ``first_angle``), in the direction ``bearing``: as near as their squares allow, then
    ``gap`` edges farther."""
    a = _square(first[0], first[1], side, first_angle)
    d = side
    while True:
        x, y = first[0] + d * math.cos(bearing), first[1] + d * math.sin(bearing)
        area, _ = cv2.intersectConvexConvex(a, _square(x, y, side, angle))
        if area <= 0.0:
            break
        d += 0.01 * side
    d += gap * side
    return first[0] + d * math.cos(bearing), first[1] + d * math.sin(bearing)


def _lean_on(x: float, y: float, side: float, lean: float, things: list[tuple[float, float, float]]
             ) -> tuple[float, float, float]:
    """Where a die thrown to (x, y) comes to rest leaning by ``lean`` on the nearest of
    ``things`` (centre and radius: checkers, the other die), and its turn: its footprint
    touches that thing, the face turned to it on its side nearest."""
    tx, ty, tr = min(things, key=lambda t: math.hypot(x - t[0], y - t[1]) - t[2])
    d = math.hypot(x - tx, y - ty) or 1.0
    ux, uy = (x - tx) / d, (y - ty) / d  # from the thing to the die
    reach = tr + 0.45 * side * (math.cos(lean) + math.sin(lean))
    # the die's own y axis points at the thing: (-sin a, cos a) = (-ux, -uy)
    return tx + ux * reach, ty + uy * reach, math.atan2(ux, -uy)


def _checker_discs(scene: SimScene, lay: Layout) -> list[tuple[float, float]]:
    """Where the checkers on the points stand (centres, in the drawing's units), and the
    next place on each stack: a die lying there would look like one more checker to any
    reader, so the sim's players (like tidy real ones) throw into the open middle."""
    k = lay.slots_per_point()
    out = []
    for i, n in enumerate(scene.points):
        for j in range(min(abs(int(n)) + 1, k)):
            out.append(tuple(float(v) for v in lay.slot_centre(i + 1, j)))
    return out  # type: ignore[return-value]


def _free_spot(x: float, y: float, side: float, taken: list[tuple[float, float]],
               placed: list[tuple[float, float]], lay: Layout) -> tuple[float, float]:
    """(x, y), or the nearest spot along the board's middle where a die of edge ``side``
    touches no checker and no other die (deterministic: no random draw)."""
    clear = lay.checker_px / 2 + 0.75 * side
    apart = 1.5 * side
    c = lay.surface_corners()
    left = lay.bar_x + lay.profile.bar * lay.u / 2 + side
    right, top, bottom = float(c[2, 0]) - side, float(c[0, 1]) + side, float(c[2, 1]) - side

    def free(px: float, py: float) -> bool:
        return (left < px < right and top < py < bottom
                and all(math.hypot(px - cx, py - cy) > clear for cx, cy in taken)
                and all(math.hypot(px - ox, py - oy) > apart for ox, oy in placed))

    if free(x, y):
        return x, y
    for step in range(1, 25):
        for sx, sy in ((0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0)):
            px, py = x + sx * step * 0.25 * lay.u, y + sy * step * 0.25 * lay.u
            if free(px, py):
                return px, py
    return x, y


def _board(scene: SimScene) -> Array:
    """The top-down drawing (in the layout's canonical frame, at ``_U`` px per point)."""
    lay = _layout()
    st = _STYLES[scene.style]
    w, h = lay.size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = st["frame"]
    c = lay.surface_corners()
    x0, y0, x1, y1 = float(c[0, 0]), float(c[0, 1]), float(c[2, 0]), float(c[2, 1])
    cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), st["board"], -1)
    # Bar and tray (darker strips).
    bx = lay.bar_x
    bw = lay.profile.bar * lay.u / 2
    cv2.rectangle(img, (int(bx - bw), int(y0)), (int(bx + bw), int(y1)), st["frame"], -1)
    for white in (True, False):
        tx0, ty0, tx1, ty1 = lay.tray_rect(white)
        cv2.rectangle(img, (int(tx0), int(ty0) + 2), (int(tx1), int(ty1) - 2), st["board"], -1)
    # Points.
    depth = 0.42 * lay.profile.height * lay.u
    for pt in range(1, 25):
        x = lay.point_x(pt)
        colour = st["light"] if pt % 2 else st["dark"]
        base = y1 if pt <= 12 else y0
        tip = base - depth if pt <= 12 else base + depth
        tri = np.array([[x - lay.u / 2, base], [x + lay.u / 2, base], [x, tip]]) * 4
        cv2.fillConvexPoly(img, tri.astype(np.int32), colour, cv2.LINE_AA, 2)
    # Checkers.
    rng = np.random.default_rng(scene.seed)
    r = lay.checker_px / 2
    k = lay.slots_per_point()
    checkers: list[tuple[float, float]] = []
    for i, n in enumerate(scene.points):
        colour = st["white"] if n > 0 else st["black"]
        for j in range(abs(int(n))):
            layer, slot = divmod(j, k)
            cx, cy = lay.slot_centre(i + 1, slot)
            jx, jy = rng.normal(0, 0.03 * lay.u, 2)
            _checker(img, cx + jx, cy + jy, r, colour, lift=layer * 0.12 * lay.u)
            checkers.append((float(cx + jx), float(cy + jy)))
    for white, n in ((True, scene.bar[0]), (False, scene.bar[1])):
        for j, (cx, cy) in enumerate(lay.bar_slots(white)[: int(n)]):
            _ = j
            _checker(img, float(cx), float(cy), r, st["white"] if white else st["black"])
    for white, n in ((True, scene.off[0]), (False, scene.off[1])):
        tx0, ty0, tx1, ty1 = lay.tray_rect(white)
        pitch = lay.tray_capacity_px()
        col = np.asarray(st["white"] if white else st["black"], np.float64)
        for j in range(int(n)):
            yy = (ty1 - 3 - (j + 0.5) * pitch) if white else (ty0 + 3 + (j + 0.5) * pitch)
            cv2.rectangle(img, (int(tx0 + 4), int(yy - pitch / 2 + 1)),
                          (int(tx1 - 4), int(yy + pitch / 2 - 1)),
                          tuple(int(v) for v in col), -1)
            cv2.line(img, (int(tx0 + 4), int(yy + pitch / 2)), (int(tx1 - 4), int(yy + pitch / 2)),
                     tuple(int(v) for v in col * 0.5), 1)
        if n:  # the camera looks a little along the tray: the last checker shows its face
            end = (ty1 - 3 - n * pitch) if white else (ty0 + 3 + n * pitch)
            centre = (int((tx0 + tx1) / 2), int(end))
            axes = (int((tx1 - tx0) / 2 - 4), int(0.8 * pitch))
            cv2.ellipse(img, centre, axes, 0, 0, 360, tuple(int(v) for v in col), -1)
            cv2.ellipse(img, centre, axes, 0, 0, 360, tuple(int(v) for v in col * 0.6), 1)
            cv2.ellipse(img, centre, (int(axes[0] * 0.7), int(axes[1] * 0.7)), 0, 0, 360,
                        tuple(int(v) for v in col * 0.8), 1)
    # Cube on the bar.
    places = lay.cube_places()
    cx, cy = places[scene.cube_owner]
    cs = 0.55 * lay.u
    cv2.rectangle(img, (int(cx - cs / 2), int(cy - cs / 2)), (int(cx + cs / 2), int(cy + cs / 2)),
                  (235, 235, 235), -1)
    face = 64 if scene.cube_owner == "center" else scene.cube_value
    text = str(face)
    scale = 0.5 if len(text) == 1 else 0.42
    (tw, th), _b = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (20, 20, 20), 1, cv2.LINE_AA)
    # Dice in the right half (the roller's right), lying flat on free board: a throw that
    # lands on a checker is cocked by the rules, so players' dice come to rest beside them.
    if scene.dice is not None:
        rng = np.random.default_rng([scene.seed if scene.dice_seed is None else scene.dice_seed,
                                     1])
        side = lay.die_px
        base_x = lay.point_x(3 if True else 0)
        taken = _checker_discs(scene, lay)
        placed: list[tuple[float, float]] = []
        angles: list[float] = []
        for j, v in enumerate(scene.dice):
            dx = base_x - (1.6 - 1.5 * j) * lay.u + rng.normal(0, 0.2 * lay.u)
            dy = lay.centre_y + (j - 0.5) * 1.2 * lay.u + rng.normal(0, 0.2 * lay.u)
            ang = float(rng.uniform(0, np.pi / 2))
            lean, side_value = 0.0, 2
            if scene.bar_die and j == 1:
                dx, dy = lay.bar_x, lay.centre_y - 2.5 * lay.u  # between the cube and the end
            elif scene.touching and placed:
                bearing = float(rng.uniform(0.0, 2.0 * np.pi))
                gap = float(rng.uniform(0.0, 0.1))
                for turn in range(8):  # clear of the checkers, or it would lie on one
                    dx, dy = _touching(placed[0], angles[0], ang, side,
                                       bearing + turn * np.pi / 4, gap)
                    if all(math.hypot(dx - cx, dy - cy) > r + 0.75 * side
                           for cx, cy in checkers):
                        break
            else:
                dx, dy = _free_spot(dx, dy, side, taken, placed, lay)
            if scene.cocked and j == 1 and not scene.bar_die and scene.leans_on != "nothing":
                # it came to rest on the nearest checker's edge, or on the other die
                lean = math.radians(float(rng.uniform(20.0, 35.0)))
                side_value = int(rng.choice([f for f in range(1, 7) if f not in (v, 7 - v)]))
                things = [(cx, cy, r) for cx, cy in checkers] if scene.leans_on == "checker" else []
                # with no checker on the board, on the other die
                things = things or [(px, py, 0.5 * side) for px, py in placed]
                dx, dy, ang = _lean_on(dx, dy, side, lean, things)
            elif scene.cocked and j == 1:
                lean = -1.0  # foreshortened where it lies
            placed.append((dx, dy))
            angles.append(ang)
            _die(img, dx, dy, side, int(v), ang, st, lean, side_value)
    if scene.hand:
        skin = (120, 160, 215)
        hand_rng = np.random.default_rng([scene.seed, 2])
        hx = float(hand_rng.uniform(0.3, 0.7)) * w
        hy = float(hand_rng.uniform(0.45, 0.65)) * h
        arm = np.array([[hx - 0.9 * lay.u, hy], [hx + 0.9 * lay.u, hy],
                        [hx + 1.8 * lay.u, h + 10], [hx - 1.4 * lay.u, h + 10]]) * 4
        cv2.fillConvexPoly(img, arm.astype(np.int32), skin, cv2.LINE_AA, 2)
        cv2.ellipse(img, (int(hx * 4), int(hy * 4)), (int(1.6 * lay.u * 4), int(1.9 * lay.u * 4)),
                    0, 0, 360, skin, -1, cv2.LINE_AA, 2)
    return img


def render(scene: SimScene, size: tuple[int, int] = (1280, 960)) -> Array:
    """A BGR camera frame of ``scene`` (``size`` = (width, height))."""
    # the board (checkers, dice) is drawn from ``seed``; the camera's noise, light and shake
    # from ``seed`` and ``view``, so further views show the very same table
    rng = np.random.default_rng(scene.seed + 7919 + 1_000_003 * scene.view)
    st = _STYLES[scene.style]
    top = _board(scene)
    lay = _layout()
    dst = sim_corners(size) + rng.normal(0, scene.jitter, (4, 2)) * (size[0] / 1280.0)
    hm = cv2.getPerspectiveTransform(lay.surface_corners(), dst.astype(np.float32))
    frame = np.empty((size[1], size[0], 3), np.uint8)
    frame[:] = st["table"]
    cv2.warpPerspective(top, hm, size, dst=frame, flags=cv2.INTER_AREA,
                        borderMode=cv2.BORDER_TRANSPARENT)
    # Light: a smooth gradient times the overall level, then sensor noise and lens blur.
    gx = np.linspace(-1, 1, size[0], dtype=np.float32)[None, :]
    gy = np.linspace(-1, 1, size[1], dtype=np.float32)[:, None]
    ax, ay = rng.uniform(-0.12, 0.12, 2)
    shade = scene.light * (1.0 + ax * gx + ay * gy - 0.12 * (gx * gx + gy * gy))
    out = frame.astype(np.float32) * shade[..., None]
    out += rng.normal(0, 3.0, out.shape[:2]).astype(np.float32)[..., None]
    out = cv2.GaussianBlur(out, (0, 0), 0.8)
    return np.asarray(np.clip(out, 0, 255), np.uint8)
