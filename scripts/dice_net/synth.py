"""Dice drawn at random for training the die-face network (``pibg/vision/dice_net.py``).

Domain randomisation: every sample draws a die of random body colour (solid, blotched or
swirled with a second colour; a quarter translucent: dim, soft, the far faces' pips showing
through, pips as little as 55 levels from the body), pip colour, pip size and spacing, rounded
corners, tilt (the sides and their pips in view, as a camera off the die's axis sees them),
perspective, light, shadow, glare (up to washing the face out), specular streaks that are no
pips, neighbouring dice, background (plain, textured, crossed by a point's edge), blur,
noise and JPEG. ``negative`` draws crops with no die face at their centre: checkers, the
doubling cube, specks, the bare board, a die at the edge.

Each function takes its own ``numpy.random.Generator``: the same seed draws the same
samples, which is what makes ``train.py`` repeatable.

    python scripts/dice_net/synth.py sheet.png   # a contact sheet to look at
"""

from __future__ import annotations

import math

import cv2
import numpy as np

LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
T = 96  # face texture size


def _noise(rng: np.random.Generator, n: int, scale: float) -> np.ndarray:
    k = max(2, int(n / scale))
    z = rng.random((k, k)).astype(np.float32)
    return cv2.resize(z, (n, n), interpolation=cv2.INTER_CUBIC)


def _colour(rng: np.random.Generator) -> np.ndarray:
    kind = rng.random()
    if kind < 0.2:  # white / ivory
        v = rng.uniform(190, 255)
        return np.array([v - rng.uniform(0, 30), v - rng.uniform(0, 15), v], np.float32)
    if kind < 0.35:  # black / dark
        v = rng.uniform(10, 60)
        return np.full(3, v, np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(80, 256), rng.integers(40, 256)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _pip_colour(rng: np.random.Generator, body: np.ndarray, gap: float = 90) -> np.ndarray:
    for _ in range(20):
        r = rng.random()
        if r < 0.3:
            c = np.full(3, rng.uniform(0, 50), np.float32)
        elif r < 0.6:
            c = np.full(3, rng.uniform(200, 255), np.float32)
        elif r < 0.75:  # red
            c = np.array(
                [rng.uniform(0, 60), rng.uniform(0, 60), rng.uniform(150, 255)], np.float32
            )
        else:
            c = _colour(rng)
        if np.linalg.norm(c - body) > gap:
            return c
    return 255.0 - body


def face_texture(
    rng: np.random.Generator,
    value: int,
    body: np.ndarray,
    body2: np.ndarray | None,
    pip: np.ndarray,
    pip_r: float,
    step: float,
    logo: bool,
    ghost: float = 0.0,
    soft: float = 0.0,
    compact: float = 1.0,
    glint: float = 0.0,
) -> np.ndarray:
    """One face, ``T`` pixels square. ``ghost`` > 0 draws a translucent die: the pips of the
    faces behind show through, blurred, at that strength, and ``soft`` blurs the face as a
    body that scatters light does. A two's and a three's pips lie ``compact`` times the
    step from the centre (some dice set them nearer the centre than a six's corners).
    ``glint`` > 0 lays a highlight of that brightness along a row of three pips (a
    diagonal through the centre, a six's column), as a lamp's reflection in a glossy face
    runs: the row's pips merge into one bright bar, the others stand apart."""
    tex = np.empty((T, T, 3), np.float32)
    tex[:] = body
    if body2 is not None:
        m = _noise(rng, T, rng.uniform(8, 30))
        if rng.random() < 0.5:  # blotches
            m = np.clip((m - rng.uniform(0.3, 0.7)) * rng.uniform(2, 8) + 0.5, 0, 1)
        else:  # streaks, as in swirled translucent dice
            m = np.exp(-(((m - rng.uniform(0.3, 0.7)) / rng.uniform(0.02, 0.08)) ** 2))
        m = m[..., None]
        tex = tex * (1 - m) + body2 * m
    ss = 4
    mask = np.zeros((T * ss, T * ss), np.uint8)
    ring = np.zeros_like(mask)
    c = T * ss / 2
    if value == 1 and logo:
        r = rng.uniform(0.22, 0.38) * T * ss
        cv2.circle(mask, (int(c), int(c)), int(r), 255, -1, cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.circle(mask, (int(c), int(c)), int(r * rng.uniform(0.4, 0.7)), 0, -1, cv2.LINE_AA)
    else:
        pr = pip_r * (1.6 if value == 1 and rng.random() < 0.3 else 1.0)
        st = step * (compact if value in (2, 3) else 1.0)
        for px, py in LAYOUTS[value]:
            x, y = c + px * st * T * ss, c + py * st * T * ss
            cv2.circle(mask, (int(x), int(y)), int(pr * T * ss), 255, -1, cv2.LINE_AA)
            cv2.circle(
                ring,
                (int(x + 0.25 * pr * T * ss), int(y + 0.25 * pr * T * ss)),
                int(pr * T * ss),
                255,
                -1,
                cv2.LINE_AA,
            )
    m = cv2.resize(mask, (T, T), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    rg = cv2.resize(ring, (T, T), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    pipc = pip * rng.uniform(0.8, 1.1)
    if rng.random() < 0.5:  # recess shading inside the pip
        shade = 1.0 - 0.35 * np.clip(m - rg, 0, 1) * rng.random()
    else:
        shade = 1.0
    if ghost > 0:  # the far faces' pips, seen through the body
        g = np.zeros((T, T), np.float32)
        for _ in range(int(rng.integers(1, 3))):
            gv = int(rng.integers(1, 7))
            ox, oy = rng.normal(0, 0.12, 2) * T
            a = rng.uniform(0, 2 * math.pi)
            for px, py in LAYOUTS[gv]:
                qx = px * math.cos(a) - py * math.sin(a)
                qy = px * math.sin(a) + py * math.cos(a)
                centre = (int(T / 2 + ox + qx * step * T), int(T / 2 + oy + qy * step * T))
                cv2.circle(g, centre, int(pip_r * T * rng.uniform(0.8, 1.3)), 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(2, 5))[..., None] * ghost
        tex = tex * (1 - g) + pip * g
        if rng.random() < 0.6:  # the side faces' pips, seen through the face near its edges
            e = np.zeros((T, T), np.float32)
            for side in rng.choice(4, int(rng.integers(1, 3)), replace=False):
                nx, ny = ((1, 0), (0, 1), (-1, 0), (0, -1))[side]
                d = rng.uniform(0.36, 0.47) * T
                for k in rng.choice([-1, 0, 1], int(rng.integers(1, 4)), replace=False):
                    x = T / 2 + nx * d - ny * k * step * T
                    y = T / 2 + ny * d + nx * k * step * T
                    axes = (pip_r * T * rng.uniform(0.35, 0.7), pip_r * T * rng.uniform(0.8, 1.1))
                    if ny:
                        axes = axes[::-1]
                    cv2.ellipse(e, (int(x), int(y)), (int(axes[0]), int(axes[1])), 0, 0, 360,
                                1.0, -1)
            strength = min(0.9, ghost * rng.uniform(1.0, 2.2))
            e = cv2.GaussianBlur(e, (0, 0), rng.uniform(0.8, 2.0))[..., None] * strength
            tex = tex * (1 - e) + pip * e
    tex = tex * (1 - m) + pipc * m * shade
    if glint > 0:
        tex += glint * _streak(rng, value, pip_r, step * (compact if value in (2, 3) else 1.0))
    if soft > 0:
        tex = cv2.GaussianBlur(tex, (0, 0), soft)
    return tex


def _streak(rng: np.random.Generator, value: int, pip_r: float, step: float) -> np.ndarray:
    """A soft bright bar (0 to 1, ``T`` square, one channel broadcast) along a row of
    ``value``'s pips: a diagonal through the centre (a three's, either of a five's), a six's
    column, else a row through the centre."""
    if value in (3, 5):
        d = (1.0, 1.0) if value == 3 or rng.random() < 0.5 else (1.0, -1.0)
        off = (0.0, 0.0)
    elif value == 6:
        d, off = (0.0, 1.0), (float(rng.choice([-1.0, 1.0])), 0.0)
    else:
        d, off = ((1.0, 1.0), (1.0, 0.0), (0.0, 1.0))[int(rng.integers(0, 3))], (0.0, 0.0)
    half = math.hypot(*d) * step * rng.uniform(0.9, 1.25) + pip_r
    width = pip_r * rng.uniform(0.6, 1.3)
    c = (T / 2 + off[0] * step * T, T / 2 + off[1] * step * T)
    bar = np.zeros((T * 4, T * 4), np.float32)
    cv2.ellipse(bar, (int(4 * c[0]), int(4 * c[1])), (int(4 * half * T), int(4 * width * T)),
                math.degrees(math.atan2(d[1], d[0])), 0, 360, 1.0, -1, cv2.LINE_AA)
    bar = cv2.resize(bar, (T, T), interpolation=cv2.INTER_AREA)
    bar = cv2.GaussianBlur(bar, (0, 0), max(0.5, pip_r * T * rng.uniform(0.15, 0.5)))
    return bar[..., None]


def _rot(ax: float, ay: float, az: float) -> np.ndarray:
    cx, sx, cy, sy, cz, sz = (
        math.cos(ax),
        math.sin(ax),
        math.cos(ay),
        math.sin(ay),
        math.cos(az),
        math.sin(az),
    )
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ ry @ rx


# cube faces: (normal, u axis, v axis); top = +z
FACES = [
    (np.array([0, 0, 1.0]), np.array([1, 0, 0.0]), np.array([0, 1, 0.0])),
    (np.array([1, 0, 0.0]), np.array([0, 1, 0.0]), np.array([0, 0, -1.0])),
    (np.array([-1, 0, 0.0]), np.array([0, -1, 0.0]), np.array([0, 0, -1.0])),
    (np.array([0, 1, 0.0]), np.array([-1, 0, 0.0]), np.array([0, 0, -1.0])),
    (np.array([0, -1, 0.0]), np.array([1, 0, 0.0]), np.array([0, 0, -1.0])),
]


def _background(rng: np.random.Generator, n: int) -> np.ndarray:
    bg = np.empty((n, n, 3), np.float32)
    bg[:] = _colour(rng) if rng.random() < 0.6 else rng.uniform(120, 230)
    if rng.random() < 0.4:  # wood / felt texture
        t = _noise(rng, n, rng.uniform(3, 20))[..., None]
        bg = bg * (0.8 + 0.4 * t)
    if rng.random() < 0.35:  # a point's triangle or an edge crossing
        c2 = _colour(rng)
        p = rng.uniform(0, n, (3, 2)).astype(np.int32)
        poly = np.zeros((n, n), np.uint8)
        cv2.fillConvexPoly(poly, p, 1)
        bg[poly > 0] = c2
    return bg


def render_die(
    rng: np.random.Generator,
    value: int,
    body: np.ndarray,
    body2,
    pip,
    pip_r,
    step,
    logo: bool,
    n: int,
    edge: float,
    centre: tuple[float, float],
    tilt: float,
    light: np.ndarray,
    canvas: np.ndarray,
    alpha_round: float,
    lean: float | None = None,
    ghost: float = 0.0,
    soft: float = 0.0,
    compact: float = 1.0,
    glint: float = 0.0,
) -> None:
    if lean is None:  # lying flat, seen a little off its axis (at most 0.3 rad each way)
        ax, ay = np.clip(rng.normal(0, tilt, 2), -0.3, 0.3)
    else:  # leaning by ``lean`` radians on something
        phi = rng.uniform(0, 2 * math.pi)
        ax, ay = lean * math.cos(phi), lean * math.sin(phi)
    R = _rot(ax, ay, rng.uniform(0, 2 * math.pi))
    cam_d = rng.uniform(10, 40)  # camera distance in die edges (perspective)
    others = [v for v in range(1, 7) if v not in (value, 7 - value)]
    rng.shuffle(others)
    drawn = []
    for i, (nrm, u, v) in enumerate(FACES):
        nw = R @ nrm
        if nw[2] <= 0.02:
            continue
        fv = value if i == 0 else others[(i - 1) % len(others)]
        tex = face_texture(rng, fv, body, body2, pip, pip_r, step, logo, ghost, soft, compact,
                           glint if i == 0 else 0.0)
        quad3 = [
            0.5 * nrm + 0.5 * (su * u + sv * v) for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
        pts = []
        for q in quad3:
            w = R @ q
            s = cam_d / (cam_d - w[2])
            pts.append((centre[0] + w[0] * edge * s, centre[1] + w[1] * edge * s))
        # shading: lambert with the light + ambient
        lam = 0.45 + 0.55 * max(0.0, float(nw @ light))
        if i != 0:
            lam *= rng.uniform(0.45, 0.85)
        drawn.append((nw[2], tex * lam, np.float32(pts)))
    drawn.sort(key=lambda d: d[0])
    src = np.float32([[0, 0], [T, 0], [T, T], [0, T]])
    am = np.zeros((T, T), np.float32)
    r = int(alpha_round * T)
    cv2.rectangle(am, (r, 0), (T - r, T), 1.0, -1)
    cv2.rectangle(am, (0, r), (T, T - r), 1.0, -1)
    for cx, cy in ((r, r), (T - r, r), (r, T - r), (T - r, T - r)):
        cv2.circle(am, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    for _, tex, pts in drawn:
        H = cv2.getPerspectiveTransform(src, pts)
        w = cv2.warpPerspective(tex, H, (n, n), flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(am, H, (n, n), flags=cv2.INTER_LINEAR)[..., None]
        canvas *= 1 - a
        canvas += w * a


def sample(rng: np.random.Generator, n: int = 48, lean: bool = False) -> tuple[np.ndarray, int]:
    """A die's crop and its value; with ``lean``, the die leans 26 to 57 degrees (on a
    checker, the rail, another die) and the value given is 0: no roll."""
    value = int(rng.integers(1, 7))
    big = n * 2
    canvas = _background(rng, big)
    body = _colour(rng)
    body2 = _colour(rng) if rng.random() < 0.3 else None
    ghost = soft = 0.0
    if rng.random() < 0.35:  # translucent (smoked, swirled): dim, soft, pips showing through
        if rng.random() < 0.4:  # the common dark red or smoked body
            hsv = np.uint8([[[rng.choice([rng.integers(0, 8), rng.integers(170, 180)]),
                              rng.integers(60, 230), rng.integers(60, 200)]]])
            body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        body = body * rng.uniform(0.35, 0.9)
        ghost, soft = rng.uniform(0.1, 0.45), rng.uniform(0.5, 2.5)
        if rng.random() < 0.5:
            pip = np.array(
                [rng.uniform(20, 90), rng.uniform(20, 90), rng.uniform(120, 230)], np.float32
            )
        else:
            pip = _pip_colour(rng, body, gap=55)
    else:
        pip = _pip_colour(rng, body)
    step = rng.uniform(0.22, 0.3)
    compact = 1.0
    if rng.random() < 0.25:  # twos and threes drawn small, with big pips (as on many dice)
        compact = rng.uniform(0.6, 0.9)
        pip_r = min(rng.uniform(0.09, 0.14), 0.46 * step)
    else:
        pip_r = rng.uniform(0.07, 0.12)
    logo = rng.random() < 0.15
    # a glossy face reflecting a lamp along a row of pips
    glint = float(rng.uniform(60, 200)) if rng.random() < 0.08 else 0.0
    tilt = rng.choice([0.03, 0.1, 0.2])
    a = rng.uniform(0, 2 * math.pi)
    light = np.array([math.cos(a) * 0.6, math.sin(a) * 0.6, 0.8])
    edge = rng.uniform(0.4, 0.9) * n * 2
    centre = (big / 2 + rng.normal(0, 0.06) * big, big / 2 + rng.normal(0, 0.06) * big)
    rnd = rng.uniform(0.05, 0.2)
    # shadow
    sh = np.zeros((big, big), np.float32)
    off = rng.normal(0, 0.12, 2) * edge
    cv2.circle(sh, (int(centre[0] + off[0]), int(centre[1] + off[1])), int(edge * 0.6), 1.0, -1)
    sh = cv2.GaussianBlur(sh, (0, 0), edge * rng.uniform(0.05, 0.3))
    canvas *= (1 - rng.uniform(0.1, 0.6) * sh)[..., None]
    # neighbours at the edge
    for _ in range(rng.choice([0, 0, 1, 2])):
        ang = rng.uniform(0, 2 * math.pi)
        d = edge * rng.uniform(1.1, 1.6)
        nb = (centre[0] + d * math.cos(ang), centre[1] + d * math.sin(ang))
        b = _colour(rng) if rng.random() < 0.5 else body
        render_die(
            rng,
            int(rng.integers(1, 7)),
            b,
            None,
            _pip_colour(rng, b),
            pip_r,
            step,
            False,
            big,
            edge,
            nb,
            tilt,
            light,
            canvas,
            rnd,
        )
    render_die(
        rng,
        value,
        body,
        body2,
        pip,
        pip_r,
        step,
        logo,
        big,
        edge,
        centre,
        tilt,
        light,
        canvas,
        rnd,
        lean=rng.uniform(0.45, 1.0) if lean else None,
        ghost=ghost,
        soft=soft,
        compact=compact,
        glint=glint,
    )
    if rng.random() < 0.3:  # specular highlights: small bright streaks that are not pips
        for _ in range(int(rng.integers(1, 4))):
            hi = np.zeros((big, big), np.float32)
            hx = centre[0] + rng.uniform(-0.45, 0.45) * edge
            hy = centre[1] + rng.uniform(-0.45, 0.45) * edge
            axes = (
                max(1, int(edge * rng.uniform(0.03, 0.14))),
                max(1, int(edge * rng.uniform(0.01, 0.05))),
            )
            cv2.ellipse(hi, (int(hx), int(hy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
            hi = cv2.GaussianBlur(hi, (0, 0), max(0.5, edge * 0.02))
            canvas += (rng.uniform(60, 200) * hi)[..., None]
    # lighting gradient and glare
    yy, xx = np.mgrid[0:big, 0:big].astype(np.float32) / big
    g = 1 + rng.uniform(-0.3, 0.3) * (xx - 0.5) + rng.uniform(-0.3, 0.3) * (yy - 0.5)
    canvas *= g[..., None]
    if rng.random() < 0.15:  # glare washing the face out
        gx, gy = centre[0] + rng.normal(0, 0.15) * edge, centre[1] + rng.normal(0, 0.15) * edge
        d2 = ((xx * big - gx) ** 2 + (yy * big - gy) ** 2) / (edge * rng.uniform(0.4, 0.9)) ** 2
        canvas += (rng.uniform(120, 260) * np.exp(-d2))[..., None]
    elif rng.random() < 0.35:
        gx, gy = centre[0] + rng.normal(0, 0.25) * edge, centre[1] + rng.normal(0, 0.25) * edge
        d2 = ((xx * big - gx) ** 2 + (yy * big - gy) ** 2) / (edge * rng.uniform(0.15, 0.6)) ** 2
        canvas += (rng.uniform(40, 200) * np.exp(-d2))[..., None]
    canvas *= rng.uniform(0.6, 1.3)
    canvas += rng.uniform(-20, 20, 3).astype(np.float32)  # white balance / offset
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    img = cv2.resize(img, (n, n), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    noise = rng.normal(0, rng.uniform(0, 8), img.shape)
    img = np.clip(img + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        q = int(rng.integers(30, 95))
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], 1)
    return img, 0 if lean else value


def _checker(rng, canvas, x, y, r, colour):
    c = tuple(float(v) for v in colour)
    cv2.circle(canvas, (int(x), int(y)), int(r * 1.04), tuple(v * 0.5 for v in c), -1, cv2.LINE_AA)
    cv2.circle(canvas, (int(x), int(y)), int(r), c, -1, cv2.LINE_AA)
    for _k in range(int(rng.integers(0, 4))):
        rr = r * rng.uniform(0.3, 0.9)
        shade = tuple(v * rng.uniform(0.6, 1.3) for v in c)
        cv2.circle(
            canvas,
            (int(x), int(y)),
            int(rr),
            shade,
            int(max(1, r * rng.uniform(0.03, 0.12))),
            cv2.LINE_AA,
        )


def negative(rng: np.random.Generator, n: int = 48) -> np.ndarray:
    """A crop with no die face at its centre: board, checkers, the doubling cube, spots."""
    big = n * 2
    canvas = _background(rng, big)
    edge = rng.uniform(0.4, 0.9) * n * 2
    kind = rng.random()
    if kind < 0.4:  # checkers
        for j in range(int(rng.integers(1, 4))):
            r = edge * rng.uniform(0.7, 1.6)
            x, y = rng.uniform(0, big, 2)
            if j == 0:
                x, y = big / 2 + rng.normal(0, 0.2) * big, big / 2 + rng.normal(0, 0.2) * big
            _checker(rng, canvas, x, y, r, _colour(rng))
    elif kind < 0.65:  # the cube: a die with a number on it
        body = _colour(rng)
        ink = _pip_colour(rng, body)
        text = str(rng.choice(["2", "4", "8", "16", "32", "64"]))
        tex = np.empty((T, T, 3), np.float32)
        tex[:] = body
        scale = rng.uniform(1.2, 2.2) / len(text) ** 0.5
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 3)))
        cv2.putText(
            tex,
            text,
            (int(T / 2 - tw / 2), int(T / 2 + th / 2)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            tuple(float(v) for v in ink),
            max(1, int(scale * 3)),
            cv2.LINE_AA,
        )
        a = rng.uniform(0, 360)
        M = cv2.getRotationMatrix2D((T / 2, T / 2), a, 1.0)
        tex = cv2.warpAffine(tex, M, (T, T), borderMode=cv2.BORDER_REPLICATE)
        e = edge * rng.uniform(0.9, 1.3)
        cx, cy = big / 2 + rng.normal(0, 0.05) * big, big / 2 + rng.normal(0, 0.05) * big
        src = np.float32([[0, 0], [T, 0], [T, T], [0, T]])
        dst = np.float32(
            [
                [cx - e / 2, cy - e / 2],
                [cx + e / 2, cy - e / 2],
                [cx + e / 2, cy + e / 2],
                [cx - e / 2, cy + e / 2],
            ]
        )
        H = cv2.getPerspectiveTransform(src, dst)
        w = cv2.warpPerspective(tex, H, (big, big))
        m = cv2.warpPerspective(np.ones((T, T), np.float32), H, (big, big))[..., None]
        canvas[:] = canvas * (1 - m) + w * m
    elif kind < 0.85:  # spots and specks on the board (glints, dirt, point tips)
        for _ in range(int(rng.integers(1, 8))):
            x, y = rng.uniform(0, big, 2)
            r = edge * rng.uniform(0.05, 0.2)
            cv2.circle(
                canvas,
                (int(x), int(y)),
                int(r),
                tuple(float(v) for v in _colour(rng)),
                -1,
                cv2.LINE_AA,
            )
    # else: the bare board
    if rng.random() < 0.3:  # a die at the crop's edge, not its centre
        ang = rng.uniform(0, 2 * math.pi)
        d = edge * rng.uniform(1.0, 1.4)
        b = _colour(rng)
        a = rng.uniform(0, 2 * math.pi)
        light = np.array([math.cos(a) * 0.6, math.sin(a) * 0.6, 0.8])
        render_die(
            rng,
            int(rng.integers(1, 7)),
            b,
            None,
            _pip_colour(rng, b),
            rng.uniform(0.07, 0.12),
            rng.uniform(0.22, 0.3),
            False,
            big,
            edge,
            (big / 2 + d * math.cos(ang), big / 2 + d * math.sin(ang)),
            0.1,
            light,
            canvas,
            0.1,
        )
    yy, xx = np.mgrid[0:big, 0:big].astype(np.float32) / big
    canvas *= (1 + rng.uniform(-0.3, 0.3) * (xx - 0.5) + rng.uniform(-0.3, 0.3) * (yy - 0.5))[
        ..., None
    ]
    if rng.random() < 0.3:
        gx, gy = rng.uniform(0, big, 2)
        d2 = ((xx * big - gx) ** 2 + (yy * big - gy) ** 2) / (edge * rng.uniform(0.15, 0.6)) ** 2
        canvas += (rng.uniform(40, 200) * np.exp(-d2))[..., None]
    canvas *= rng.uniform(0.6, 1.3)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    img = cv2.resize(img, (n, n), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    img = np.clip(img + rng.normal(0, rng.uniform(0, 8), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        img = cv2.imdecode(
            cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])[1], 1
        )
    return img


def contact_sheet(path: str, count: int = 48, seed: int = 0) -> None:
    """Write a sheet of ``count`` samples (value in the corner; 0 = no die) to look at."""
    rng = np.random.default_rng(seed)
    tiles = []
    for i in range(count):
        im, v = sample(rng, 48) if i % 4 else (negative(rng, 48), 0)
        t = cv2.resize(im, (120, 120), interpolation=cv2.INTER_NEAREST)
        cv2.putText(t, str(v), (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 0), 1)
        tiles.append(t)
    cv2.imwrite(path, np.vstack([np.hstack(tiles[i : i + 8]) for i in range(0, count, 8)]))


if __name__ == "__main__":
    import sys

    contact_sheet(sys.argv[1] if len(sys.argv) > 1 else "dice_net_samples.png")
