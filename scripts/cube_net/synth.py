"""Doubling cubes drawn at random for training the cube-face network (``pibg/vision/cube.py``).

Each sample is what the pipeline cuts round an owned cube (``Vision._cube_value``): a square
of the top-down view, ``CUBE_PATCH`` checker widths a side, 128 pixels. Drawn at random: the
cube's top face (a fifth to over half the patch, anywhere near the middle, turned any way),
its body and ink colours (ivory, white, coloured, dark with light figures), the number in one
of the Hershey fonts ``cube.TRAINED_FONTS`` names (upright or italic, thin to bold, narrow to
wide, each digit sheared, squeezed and bent at random: the tests' other two fonts and the
renders' DejaVu Sans stay unseen), the side faces the
camera sees beyond the top (any side, up to half a face wide, each with its own number, lit
from darker to as bright as the top), a shadow, the light falling across it and a lamp's
glare, the bar and board round it (plain, grained, a point, the rail's edge, checkers), then
the camera: the patch shrunk to the pixels a camera gives the face (13 to 45 across),
blurred, noisy, JPEG-compressed and sampled up again as the pipeline samples it. The
"no number" class: the same surroundings with no cube, a die, or a cube whose top face is
blank or out of the middle. No render or photo is drawn from.

Each function takes its own ``numpy.random.Generator``: the same seed draws the same
samples.

    python scripts/cube_net/synth.py sheet.png   # a contact sheet to look at
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pibg.vision.cube import CUBE_FACES, TRAINED_FONTS

N = 128  #: the patch's side, as the pipeline cuts it
NONE = len(CUBE_FACES)  #: class index of "no number to read"
T = 96  #: face texture side
#: The six faces of a real cube: a number's opposite (2-64, 4-32, 8-16).
OPPOSITE = {2: 64, 64: 2, 4: 32, 32: 4, 8: 16, 16: 8}


def _colour(rng: np.random.Generator) -> np.ndarray:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(30, 256), rng.integers(30, 256)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _body_ink(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A cube's body and its figures' colours, far enough apart to read."""
    for _ in range(50):
        kind = rng.random()
        if kind < 0.45:  # ivory, white, cream
            v = rng.uniform(170, 255)
            body = np.array([v - rng.uniform(0, 45), v - rng.uniform(0, 20), v], np.float32)
        elif kind < 0.8:  # coloured
            hsv = np.uint8([[[rng.integers(0, 180), rng.integers(20, 200),
                              rng.integers(130, 256)]]])
            body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        else:  # dark
            body = _colour(rng) * rng.uniform(0.15, 0.5)
        r = rng.random()
        if float(body.mean()) > 110:
            if r < 0.6:
                ink = np.full(3, rng.uniform(0, 60), np.float32)
            else:
                ink = _colour(rng) * rng.uniform(0.2, 0.6)
        elif r < 0.6:
            ink = np.full(3, rng.uniform(190, 255), np.float32)
        else:
            ink = np.array([rng.uniform(0, 80), rng.uniform(140, 220), rng.uniform(180, 255)],
                           np.float32)  # gold
        if abs(float(body.mean()) - float(ink.mean())) > 70:
            return body, ink
    return np.full(3, 225, np.float32), np.full(3, 20, np.float32)


def face_texture(rng: np.random.Generator, text: str, body: np.ndarray, ink: np.ndarray,
                 font: int, italic: bool, weight: float, stretch: float, size: float
                 ) -> np.ndarray:
    """One face, ``T`` pixels square: ``text`` centred, upright, in ``font``; ``size`` the
    figures' height as a share of the face, ``weight`` the stroke as a share of the height,
    ``stretch`` the figures' width against the font's."""
    z = 2
    tex = np.empty((T * z, T * z, 3), np.float32)
    tex[:] = body
    if not text:
        return np.asarray(cv2.resize(tex, (T, T), interpolation=cv2.INTER_AREA))
    f = font | (cv2.FONT_ITALIC if italic else 0)
    (_, th), _ = cv2.getTextSize("8", f, 1.0, 1)
    height = size * T * z
    scale = height / th
    thick = max(1, round(weight * height))
    layer = np.zeros((T * z, int(T * z * 2), 1), np.float32)
    (tw, _), _ = cv2.getTextSize(text, f, scale, thick)
    gap = rng.uniform(-0.04, 0.12) * height
    x = layer.shape[1] / 2 - tw / 2 - gap * (len(text) - 1) / 2
    for ch in text:
        glyph = np.zeros_like(layer)
        cv2.putText(glyph, ch, (int(x), int(T * z / 2 + height / 2)), f, scale, (1.0,), thick,
                    cv2.LINE_AA)
        cw = cv2.getTextSize(ch, f, scale, thick)[0][0]
        layer = np.maximum(layer, _reshape(rng, glyph, (x + cw / 2, T * z / 2), height))
        x += cw + gap
    w = max(8, int(layer.shape[1] * stretch))
    layer = cv2.resize(layer, (w, T * z), interpolation=cv2.INTER_AREA)
    if layer.ndim == 2:
        layer = layer[..., None]
    out = np.zeros((T * z, T * z, 1), np.float32)
    a = (w - T * z) // 2
    if a >= 0:
        out[:] = layer[:, a:a + T * z]
    else:
        out[:, -a:-a + w] = layer
    dx, dy = rng.normal(0, 0.03, 2) * T * z
    out = cv2.warpAffine(out, np.float32([[1, 0, dx], [0, 1, dy]]), (T * z, T * z))[..., None]
    tex = tex * (1 - out) + ink * out
    if rng.random() < 0.3:  # a thin border printed round the face
        m = int(rng.uniform(0.05, 0.12) * T * z)
        cv2.rectangle(tex, (m, m), (T * z - m, T * z - m), tuple(float(v) for v in ink),
                      max(1, int(0.015 * T * z)))
    return np.asarray(cv2.resize(tex, (T, T), interpolation=cv2.INTER_AREA))


def _reshape(rng: np.random.Generator, glyph: np.ndarray, centre: tuple[float, float],
             height: float) -> np.ndarray:
    """A digit drawn in another hand: sheared, squeezed and turned a little round
    ``centre``, its strokes bent by a smooth random field (up to a twentieth of its
    ``height``) and made thinner or bolder, so that the few fonts drawn stand for many."""
    h, w = glyph.shape[:2]
    g = glyph.reshape(h, w)
    if rng.random() < 0.8:
        sx, sy = rng.uniform(0.8, 1.2), rng.uniform(0.85, 1.15)
        sh, rot = rng.uniform(-0.25, 0.25), rng.uniform(-0.08, 0.08)
        a = np.array([[sx, sh], [0.0, sy]]) @ np.array(
            [[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
        c = np.asarray(centre)
        m = np.hstack([a, (c - a @ c)[:, None]]).astype(np.float32)
        g = cv2.warpAffine(g, m, (w, h), flags=cv2.INTER_LINEAR)
    if rng.random() < 0.6:
        k = 6
        amp = rng.uniform(0.01, 0.05) * height
        dx = cv2.resize(rng.normal(0, 1, (k, k)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * amp
        dy = cv2.resize(rng.normal(0, 1, (k, k)).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC) * amp
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = cv2.remap(g, xx + dx, yy + dy, cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.3:
        size = max(1, int(rng.uniform(0.02, 0.06) * height))
        kern = np.ones((size, size), np.uint8)
        g = cv2.dilate(g, kern) if r < 0.15 else cv2.erode(g, kern)
    return np.asarray(g.reshape(h, w, 1) if glyph.ndim == 3 else g)


def _rounded_alpha(r: float) -> np.ndarray:
    am = np.zeros((T, T), np.float32)
    k = int(r * T)
    cv2.rectangle(am, (k, 0), (T - k, T), 1.0, -1)
    cv2.rectangle(am, (0, k), (T, T - k), 1.0, -1)
    for cx, cy in ((k, k), (T - k, k), (k, T - k), (T - k, T - k)):
        cv2.circle(am, (cx, cy), k, 1.0, -1, cv2.LINE_AA)
    return am


def _paste(canvas: np.ndarray, tex: np.ndarray, alpha: np.ndarray, quad: np.ndarray) -> None:
    hgt, wid = canvas.shape[:2]
    x0, y0 = np.floor(np.maximum(np.min(quad, 0), 0)).astype(int)
    x1, y1 = np.ceil(np.minimum(np.max(quad, 0) + 1, (wid, hgt))).astype(int)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.float32([[0, 0], [T, 0], [T, T], [0, T]])
    h = cv2.getPerspectiveTransform(src, np.float32(quad - (x0, y0)))
    size = (int(x1 - x0), int(y1 - y0))
    w = cv2.warpPerspective(tex, h, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, h, size, flags=cv2.INTER_LINEAR)[..., None]
    sub = canvas[y0:y1, x0:x1]
    sub *= 1 - a
    sub += w * a


def _surroundings(rng: np.random.Generator, n: int) -> np.ndarray:
    """The bar and the board round the cube."""
    bg = np.empty((n, n, 3), np.float32)
    bg[:] = _colour(rng)
    _yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    if rng.random() < 0.5:  # grain
        k = max(2, int(n / rng.uniform(3, 30)))
        z = cv2.resize(rng.random((k, max(2, k // 6))).astype(np.float32), (n, n),
                       interpolation=cv2.INTER_CUBIC)
        if rng.random() < 0.5:
            z = z.T
        bg *= (0.8 + 0.4 * z)[..., None]
    for _ in range(int(rng.integers(0, 3))):  # the bar's or the rail's edge, a point
        c2 = _colour(rng)
        if rng.random() < 0.6:
            side = rng.uniform(0.0, 0.3)
            mask = (xx < side) if rng.random() < 0.5 else (xx > 1 - side)
            if rng.random() < 0.5:
                mask = mask.T
        else:
            p = rng.uniform(-0.2, 1.2, (3, 2)) * n
            m = np.zeros((n, n), np.uint8)
            cv2.fillConvexPoly(m, p.astype(np.int32), 1)
            mask = m > 0
        bg[mask] = c2
    for _ in range(int(rng.choice([0, 0, 1, 2, 3]))):  # checkers round it
        r = rng.uniform(0.3, 0.45) * n
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0.55, 0.9) * n
        cx, cy = n / 2 + d * math.cos(ang), n / 2 + d * math.sin(ang)
        col = tuple(float(v) for v in _colour(rng))
        cv2.circle(bg, (int(cx), int(cy)), int(r), col, -1, cv2.LINE_AA)
        cv2.circle(bg, (int(cx), int(cy)), int(r * 0.8), tuple(0.85 * v for v in col),
                   max(1, int(r * 0.04)), cv2.LINE_AA)
    return bg


def sample(rng: np.random.Generator, blank: bool = False) -> tuple[np.ndarray, int]:
    """A patch (N x N BGR) and its class: the index of its top face's number in
    ``CUBE_FACES``, or ``NONE``. With ``blank``, no number to read."""
    z = 2
    big = N * z
    canvas = _surroundings(rng, big)
    label = NONE
    kind = rng.random() if blank else 1.0
    if kind < 0.3:
        pass  # nothing but the board
    elif kind < 0.45:  # a die on the bar
        from pibg.vision.dice_read import draw_die
        size = int(rng.uniform(0.2, 0.45) * big)
        bgc = tuple(int(v) for v in np.clip(canvas[big // 2, big // 2], 0, 255))
        die = draw_die(int(rng.integers(1, 7)), size=size, angle=rng.uniform(0, 90),
                       background=bgc).astype(np.float32)
        y0 = big // 2 - die.shape[0] // 2 + int(rng.normal(0, 0.1) * big)
        x0 = big // 2 - die.shape[1] // 2 + int(rng.normal(0, 0.1) * big)
        y0, x0 = min(max(y0, 0), big - die.shape[0]), min(max(x0, 0), big - die.shape[1])
        canvas[y0:y0 + die.shape[0], x0:x0 + die.shape[1]] = die
    else:
        value = CUBE_FACES[int(rng.integers(len(CUBE_FACES)))]
        far = kind < 0.6  # a cube whose top face lies out of the middle: read elsewhere
        nothing = 0.6 <= kind < 0.75  # a face with no figures (the cube's blank, a die's back)
        text = "" if nothing else str(value)
        label = NONE if (far or nothing) else CUBE_FACES.index(value)
        _cube(rng, canvas, text, far)
    canvas = _light(rng, canvas)
    return _camera(rng, canvas), label


def _cube(rng: np.random.Generator, canvas: np.ndarray, text: str, far: bool) -> None:
    big = canvas.shape[0]
    s = rng.uniform(0.2, 0.58) * big
    if far:
        r, a = rng.uniform(0.42, 0.6) * big, rng.uniform(0, 2 * math.pi)
    else:
        r, a = abs(rng.normal(0, 0.1)) * big, rng.uniform(0, 2 * math.pi)
    c = np.array([big / 2 + r * math.cos(a), big / 2 + r * math.sin(a)])
    theta = rng.uniform(0, 2 * math.pi)
    u = np.array([math.cos(theta), math.sin(theta)])
    v = np.array([-u[1], u[0]])
    top = np.array([c + s / 2 * (su * u + sv * v) for su, sv in
                    ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    body, ink = _body_ink(rng)
    font = int(TRAINED_FONTS[int(rng.integers(len(TRAINED_FONTS)))])
    italic = rng.random() < 0.15
    weight = rng.uniform(0.07, 0.2)
    stretch = rng.uniform(0.75, 1.3)
    size = rng.uniform(0.38, 0.6) if len(text) < 2 else rng.uniform(0.3, 0.48)
    alpha = _rounded_alpha(rng.uniform(0.03, 0.15))
    # the side faces the camera sees: toward the point below it (``o``), up to half a face
    o = rng.normal(0, 1, 2)
    o *= rng.uniform(0.0, 0.5) * s / max(float(np.linalg.norm(o)), 1e-6)
    # its shadow, away from the lamp
    sh = np.zeros(canvas.shape[:2], np.float32)
    off = rng.normal(0, 0.25, 2) * s
    cv2.fillConvexPoly(sh, (top + o + off).astype(np.int32), 1.0)
    sh = cv2.GaussianBlur(sh, (0, 0), max(0.5, s * rng.uniform(0.03, 0.25)))
    canvas *= (1 - rng.uniform(0.2, 0.75) * sh)[..., None]
    others = [f for f in CUBE_FACES if f not in (int(text or 0), OPPOSITE.get(int(text or 0)))]
    rng.shuffle(others)
    for i in range(4):
        a0, a1 = top[i], top[(i + 1) % 4]
        mid = (a0 + a1) / 2 - c
        if float(mid @ o) <= 0:
            continue
        quad = np.array([a1, a0, a0 + o, a1 + o])  # the face's top edge along the top's
        shade = rng.uniform(0.35, 1.05)
        tex = face_texture(rng, str(others[i % len(others)]), body, ink, font, italic, weight,
                           stretch, size if len(str(others[i % len(others)])) < 2 else 0.4)
        _paste(canvas, tex * shade, alpha, quad)
    tex = face_texture(rng, text, body, ink, font, italic, weight, stretch, size)
    # the light across the face
    g = 1 + rng.uniform(-0.25, 0.25) * np.linspace(-1, 1, T)[None, :, None]
    _paste(canvas, tex * g, alpha, top)


def _light(rng: np.random.Generator, canvas: np.ndarray) -> np.ndarray:
    big = canvas.shape[0]
    yy, xx = np.mgrid[0:big, 0:big].astype(np.float32) / big
    g = 1 + rng.uniform(-0.4, 0.4) * (xx - 0.5) + rng.uniform(-0.4, 0.4) * (yy - 0.5)
    canvas = canvas * g[..., None]
    if rng.random() < 0.2:  # a lamp's glare
        gx, gy = rng.uniform(0.2, 0.8, 2)
        d2 = ((xx - gx) ** 2 + (yy - gy) ** 2) / rng.uniform(0.05, 0.3) ** 2
        canvas += (rng.uniform(40, 200) * np.exp(-d2))[..., None]
    canvas = canvas * rng.uniform(0.5, 1.3) + rng.uniform(-20, 20, 3).astype(np.float32)
    return canvas


def _camera(rng: np.random.Generator, canvas: np.ndarray) -> np.ndarray:
    """The patch as the camera gives it: shrunk to the camera's pixels (the patch 40 to 130 of
    them across), blurred, noisy, JPEG'd, then sampled up to N as the pipeline samples it."""
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    px = int(rng.uniform(40, 130))
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.7:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3))
    small = np.clip(small + rng.normal(0, rng.uniform(0, 7), small.shape), 0, 255).astype(
        np.uint8)
    if rng.random() < 0.6:
        q = int(rng.integers(40, 95))
        small = cv2.imdecode(cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, q])[1], 1)
    return np.asarray(cv2.resize(small, (N, N), interpolation=cv2.INTER_LINEAR))


def contact_sheet(path: str, count: int = 48, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    tiles = []
    for i in range(count):
        img, label = sample(rng, blank=i % 4 == 3)
        t = img.copy()
        name = "-" if label == NONE else str(CUBE_FACES[label])
        cv2.putText(t, name, (3, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1)
        tiles.append(t)
    rows = [np.hstack(tiles[i:i + 8]) for i in range(0, count, 8)]
    cv2.imwrite(path, np.vstack(rows))


if __name__ == "__main__":
    contact_sheet(sys.argv[1] if len(sys.argv) > 1 else "cube_sheet.png")
