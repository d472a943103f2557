"""Whole top-down boards with dice drawn on them, for training the dice-finding network
(``pibg/vision/dice_spot.py``).

A board is one of pibg.sim's drawn boards (a random position, light and view of one of its
styles, warped to the top-down view as a user's calibration would warp it) or a board of
random field, points and checkers; then recoloured at random (a random mix of its colour
channels: the board's colours are no cue). On it: none to four dice drawn by
``scripts/dice_net/synth.py``'s ``render_die`` (random body, pips, translucency, tilt,
light), 9 to 21 view pixels an edge (the dice of a real board in pibg's top-down view are 13
to 16), each with a soft shadow; a quarter of them lean 26 to 57 degrees against a checker,
the rail or the other die (no roll); the two dice of a throw often lie close or touching;
the cube drawn now and then (a square with a number: no die). Last the whole view: a light
gradient, glare, blur, noise and JPEG.

Each board comes with its dice: ``(x, y, edge, leaning)`` in view pixels. The same seed draws
the same boards.

    python scripts/dice_find_net/boards.py sheet.png   # four boards to look at, dice ringed
"""

from __future__ import annotations

import math
import sys
from functools import cache
from pathlib import Path
from typing import Any, get_args

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dice_net"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "board_net"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import synth as die_synth
from extract_sim import position

from pibg.sim import SimScene, Style, render, sim_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import Vision

#: The top-down view's size (pibg's standard board layout), width and height.
VIEW = (638, 450)
#: A die's edge in view pixels, least and most.
EDGE = (9.0, 21.0)
#: Drawn at this many times the view's resolution, then shrunk (no aliased pips).
SUPER = 3

Die = tuple[float, float, float, bool]


@cache
def _vision(style: str) -> Vision:
    start = render(SimScene(START_POINTS, style=style, seed=1))  # type: ignore[arg-type]
    return Vision.from_start_frame(start, sim_corners())


def _sim_board(rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """One of pibg.sim's boards in the view, and its checkers' (x, y, radius)."""
    style = str(rng.choice(list(get_args(Style))))
    vision = _vision(style)
    pts, bar, off = position(rng)
    scene = SimScene(pts, bar=bar, off=off, style=style,  # type: ignore[arg-type]
                     seed=int(rng.integers(1 << 30)), light=float(rng.uniform(0.6, 1.3)),
                     view=int(rng.integers(4)), cube_value=int(rng.choice([1, 2, 4])),
                     cube_owner=str(rng.choice(["center", "white", "black"])))  # type: ignore[arg-type]
    view = vision.canonical(render(scene)).astype(np.float32)
    r = vision.layout.checker_px / 2
    slots = vision._slots
    discs = [(float(slots[p, j, 0]), float(slots[p, j, 1]), r)
             for p in range(24) for j in range(min(abs(pts[p]), slots.shape[1]))]
    return view, discs


def _random_board(rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """A board of random field, points and checkers, in the view."""
    w, h = VIEW
    view = np.empty((h, w, 3), np.float32)
    view[:] = die_synth._colour(rng)
    if rng.random() < 0.6:  # wood, felt, leather
        t = cv2.resize(rng.random((int(h / rng.uniform(4, 40)) + 2, int(w / rng.uniform(4, 40)) + 2)
                                  ).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        view *= (0.8 + 0.4 * t)[..., None]
    colours = (die_synth._colour(rng), die_synth._colour(rng))
    pw = w / 14
    for i in range(12):
        x = pw * (i + 1 + (i >= 6))
        for top in (True, False):
            base = 0 if top else h
            tip = h * (0.4 if top else 0.6)
            tri = np.int32([[x - pw / 2, base], [x + pw / 2, base], [x, tip]])
            cv2.fillConvexPoly(view, tri, colours[(i + top) % 2].tolist(), cv2.LINE_AA)
    discs = []
    r = w / 33.6
    checker = (die_synth._colour(rng), die_synth._colour(rng))
    for _ in range(int(rng.integers(0, 30))):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        die_synth._checker(rng, view, x, y, r, checker[int(rng.integers(2))])
        discs.append((x, y, r))
    return view, discs


def _recolour(rng: np.random.Generator, view: np.ndarray) -> np.ndarray:
    """The board's colours mixed at random (near the identity half the time)."""
    if rng.random() < 0.5:
        m = np.eye(3, dtype=np.float32) + rng.normal(0, 0.15, (3, 3)).astype(np.float32)
    else:
        m = rng.dirichlet(np.ones(3) * 0.7, 3).astype(np.float32) * rng.uniform(0.8, 1.4)
    out = view.reshape(-1, 3) @ m.T
    if rng.random() < 0.2:
        out = 255.0 - out
    return out.reshape(view.shape)


def _die_look(rng: np.random.Generator) -> dict[str, Any]:
    """A pair of dice's looks (both dice of a throw look alike)."""
    body = die_synth._colour(rng)
    ghost = soft = 0.0
    if rng.random() < 0.3:  # translucent
        body = body * rng.uniform(0.35, 0.9)
        ghost, soft = rng.uniform(0.1, 0.45), rng.uniform(0.5, 2.5)
        pip = die_synth._pip_colour(rng, body, gap=55)
    else:
        pip = die_synth._pip_colour(rng, body)
    step = rng.uniform(0.22, 0.3)
    return dict(body=body, body2=die_synth._colour(rng) if rng.random() < 0.2 else None,
                pip=pip, pip_r=rng.uniform(0.07, 0.12), step=step, logo=False,
                alpha_round=rng.uniform(0.05, 0.2), ghost=ghost, soft=soft,
                tilt=rng.choice([0.03, 0.1, 0.2]))


def _draw_die(rng: np.random.Generator, view: np.ndarray, x: float, y: float, edge: float,
              look: dict[str, Any], lean: float | None, light: np.ndarray) -> None:
    """One die drawn into ``view`` (in place) centred at (x, y), with its shadow."""
    half = math.ceil(edge * 1.6) + 2
    x0, y0 = int(x) - half, int(y) - half
    h, w = view.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * half > w or y0 + 2 * half > h:
        return
    patch = view[y0:y0 + 2 * half, x0:x0 + 2 * half]
    sh = np.zeros(patch.shape[:2], np.float32)
    off = rng.normal(0, 0.15, 2) * edge
    cv2.circle(sh, (int(x - x0 + off[0]), int(y - y0 + off[1])), int(edge * 0.6), 1.0, -1)
    sh = cv2.GaussianBlur(sh, (0, 0), edge * rng.uniform(0.1, 0.35))
    patch *= (1 - rng.uniform(0.1, 0.6) * sh)[..., None]
    n = 2 * half * SUPER
    big = cv2.resize(patch, (n, n), interpolation=cv2.INTER_LINEAR)
    centre = ((x - x0) * SUPER, (y - y0) * SUPER)
    die_synth.render_die(rng, int(rng.integers(1, 7)), look["body"], look["body2"], look["pip"],
                         look["pip_r"], look["step"], look["logo"], n, edge * SUPER, centre,
                         look["tilt"], light, big, look["alpha_round"], lean=lean,
                         ghost=look["ghost"], soft=look["soft"])
    patch[:] = cv2.resize(big, (2 * half, 2 * half), interpolation=cv2.INTER_AREA)


def _draw_cube(rng: np.random.Generator, view: np.ndarray, x: float, y: float, edge: float
               ) -> None:
    """The doubling cube: a square with a number on it (no die)."""
    body = die_synth._colour(rng)
    ink = die_synth._pip_colour(rng, body)
    rect = ((x, y), (edge, edge), float(rng.uniform(0, 90)))
    box = cv2.boxPoints(rect).astype(np.int32)
    cv2.fillConvexPoly(view, box, body.tolist(), cv2.LINE_AA)
    text = str(rng.choice(["2", "4", "8", "16", "32", "64"]))
    scale = edge / 40
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    mark = np.zeros(view.shape[:2], np.uint8)  # putText draws 8-bit images only
    cv2.putText(mark, text, (int(x - tw / 2), int(y + th / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, (255,), 1, cv2.LINE_AA)
    a = (mark.astype(np.float32) / 255.0)[..., None]
    view[:] = view * (1 - a) + ink * a


def _free(x: float, y: float, edge: float, taken: list[tuple[float, float, float]]) -> bool:
    return all(math.hypot(x - a, y - b) > r + 0.5 * edge for a, b, r in taken)


def board(rng: np.random.Generator) -> tuple[np.ndarray, list[Die]]:
    """One top-down board (uint8, ``VIEW``) and its dice ``(x, y, edge, leaning)``."""
    view, discs = _sim_board(rng) if rng.random() < 0.7 else _random_board(rng)
    if rng.random() < 0.8:
        view = _recolour(rng, view)
    w, h = VIEW
    a = rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(a) * 0.6, math.sin(a) * 0.6, 0.8])
    dice: list[Die] = []
    taken = list(discs)
    if rng.random() < 0.3:
        e = rng.uniform(14, 24)
        x, y = rng.uniform(0.05, 0.95) * w, rng.uniform(0.1, 0.9) * h
        _draw_cube(rng, view, x, y, e)
        taken.append((x, y, e * 0.7))
    count = int(rng.choice([0, 1, 2, 2, 2, 3, 3, 4]))
    edge = float(rng.uniform(*EDGE))
    look = _die_look(rng)
    for _ in range(count):
        e = edge * rng.uniform(0.95, 1.05)
        lean = rng.uniform(0.45, 1.0) if rng.random() < 0.25 else None
        for _ in range(30):
            if dice and rng.random() < 0.5:  # the throw's other die close by, or touching
                px, py, pe, _ = dice[-1]
                ang = rng.uniform(0, 2 * math.pi)
                d = pe * rng.uniform(1.0, 2.5)
                x, y = px + d * math.cos(ang), py + d * math.sin(ang)
            elif lean is not None and discs:  # against a checker's rim
                cx, cy, r = discs[int(rng.integers(len(discs)))]
                ang = rng.uniform(0, 2 * math.pi)
                x, y = cx + (r + 0.35 * e) * math.cos(ang), cy + (r + 0.35 * e) * math.sin(ang)
            else:
                x, y = rng.uniform(0.03, 0.97) * w, rng.uniform(0.04, 0.96) * h
            near = [t for t in taken if lean is None or math.hypot(x - t[0], y - t[1]) > t[2] + 0.1]
            if 0.03 * w < x < 0.97 * w and 0.04 * h < y < 0.96 * h and _free(x, y, e, near):
                break
        else:
            continue
        _draw_die(rng, view, x, y, e, look, lean, light)
        dice.append((x, y, e, lean is not None))
        taken.append((x, y, 0.6 * e))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    view *= (1 + rng.uniform(-0.4, 0.4) * (xx / w - 0.5)
             + rng.uniform(-0.4, 0.4) * (yy / h - 0.5))[..., None]
    if rng.random() < 0.4:  # glare
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        d2 = ((xx - gx) ** 2 + (yy - gy) ** 2) / (w * rng.uniform(0.05, 0.3)) ** 2
        view += (rng.uniform(40, 160) * np.exp(-d2))[..., None]
    view = view * rng.uniform(0.5, 1.3) + rng.uniform(-20, 20, 3).astype(np.float32)
    img = np.clip(view, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    img = np.clip(img + rng.normal(0, rng.uniform(0, 6), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        q = int(rng.integers(40, 95))
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], 1)
    return img, dice


def sheet(path: str, seed: int = 0) -> None:
    """Four boards, their dice ringed (green flat, red leaning), written to ``path``."""
    rng = np.random.default_rng(seed)
    shown = []
    for _ in range(4):
        img, dice = board(rng)
        for x, y, e, lean in dice:
            cv2.circle(img, (int(x), int(y)), int(e), (0, 0, 255) if lean else (0, 255, 0), 1)
        shown.append(img)
    cv2.imwrite(path, np.vstack([np.hstack(shown[:2]), np.hstack(shown[2:])]))


if __name__ == "__main__":
    sheet(sys.argv[1] if len(sys.argv) > 1 else "dice_find_sheet.png")
