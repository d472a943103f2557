"""The board drawn as SVG from a :func:`~pibg.web.snapshot.snapshot`.

Seen from White: points 13-24 along the top (left to right), 12-1 along the bottom, White's
home board at the bottom right, the bar in the middle (White's checkers below its middle,
Black's above), the trays on the right (White's below). Every checker is a ``<circle>``; a tall
stack is squeezed, never summarised, so the circles on a point always equal its count. The
drawing carries its data for tests and scripts::

    <g class="point" data-point="6" data-count="5">  (signed: + White, - Black)
    <g class="bar" data-white="0" data-black="1">
    <g class="off" data-white="3" data-black="0">
    <g class="dice" data-dice="5,2">
    <g class="cube" data-value="2" data-owner="black">
"""

from __future__ import annotations

from html import escape
from typing import Any

from pibg.web.snapshot import Snapshot

PW = 40  # point width
R = 17  # checker radius
MARGIN = 22  # room for the point numbers
BAR_W = 44
HALF_H = 190  # depth of one row of points
GAP = 40  # between the rows
TRAY_W = 46
BOARD_W = 12 * PW + BAR_W
WIDTH = MARGIN * 2 + BOARD_W + 10 + TRAY_W
HEIGHT = MARGIN * 2 + 2 * HALF_H + GAP
TOP = MARGIN
BOTTOM = MARGIN + 2 * HALF_H + GAP
MID_Y = MARGIN + HALF_H + GAP / 2
BAR_X = MARGIN + 6 * PW + BAR_W / 2
TRAY_X = MARGIN + BOARD_W + 10

_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def _column(point: int) -> tuple[int, bool]:
    """(column 0..11 from the left, is it on the bottom row) of a point numbered from White."""
    if point <= 12:
        return 12 - point, True
    return point - 13, False


def point_x(point: int) -> float:
    col, _ = _column(point)
    return MARGIN + col * PW + (BAR_W if col >= 6 else 0) + PW / 2


def _stack(n: int, depth: float) -> list[float]:
    """Offsets of ``n`` checker centres from a point's base, squeezed to fit ``depth``."""
    if n <= 0:
        return []
    pitch = 2 * R if n <= 5 else min(2 * R, (depth - 2 * R) / (n - 1))
    return [R + k * pitch for k in range(n)]


def _checker(x: float, y: float, colour: str) -> str:
    return f'<circle class="checker {colour}" cx="{x:.1f}" cy="{y:.1f}" r="{R}"/>'


def _die(x: float, y: float, value: int, colour: str) -> str:
    s = 30
    parts = [f'<g class="die {colour}" data-value="{value}">',
             f'<rect x="{x - s / 2:.1f}" y="{y - s / 2:.1f}" width="{s}" height="{s}" rx="5"/>']
    for dx, dy in _PIPS.get(value, ()):
        parts.append(f'<circle class="pip" cx="{x + dx * 8:.1f}" cy="{y + dy * 8:.1f}" r="3"/>')
    parts.append("</g>")
    return "".join(parts)


def board_svg(snap: Snapshot) -> str:
    """The board of a snapshot as a standalone ``<svg>`` element (a string)."""
    board: dict[str, Any] = snap["board"]
    signed: list[int] = board["points"]
    flagged = set((snap.get("flag") or {}).get("points", []))
    last = set(snap.get("last_points", []))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="backgammon board" data-position-id="{board["position_id"]}" '
        f'data-turn="{snap.get("turn") or ""}">',
        f'<rect class="frame" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" rx="8"/>',
        f'<rect class="felt" x="{MARGIN}" y="{TOP}" width="{BOARD_W}" '
        f'height="{BOTTOM - TOP}"/>',
        f'<rect class="barstrip" x="{BAR_X - BAR_W / 2}" y="{TOP}" width="{BAR_W}" '
        f'height="{BOTTOM - TOP}"/>',
    ]
    for p in range(1, 25):
        x = point_x(p)
        _, bottom = _column(p)
        base = BOTTOM if bottom else TOP
        tip = base - HALF_H * 0.92 if bottom else base + HALF_H * 0.92
        shade = "light" if p % 2 else "dark"
        cls = f"tri {shade}" + (" flagged" if p in flagged else "") + (
            " last" if p in last else "")
        n = signed[p - 1]
        colour = "white" if n > 0 else "black"
        out.append(f'<g class="point" data-point="{p}" data-count="{n}">')
        out.append(f'<polygon class="{cls}" points="{x - PW / 2:.1f},{base} '
                   f'{x + PW / 2:.1f},{base} {x:.1f},{tip:.1f}"/>')
        for off in _stack(abs(n), HALF_H):
            out.append(_checker(x, base - off if bottom else base + off, colour))
        label_y = BOTTOM + 15 if bottom else TOP - 6
        out.append(f'<text class="num" x="{x:.1f}" y="{label_y}">{p}</text></g>')
    bar = board["bar"]
    out.append(f'<g class="bar" data-white="{bar["white"]}" data-black="{bar["black"]}">')
    depth = HALF_H - 10
    for off in _stack(bar["white"], depth):
        out.append(_checker(BAR_X, MID_Y + 18 + off, "white"))
    for off in _stack(bar["black"], depth):
        out.append(_checker(BAR_X, MID_Y - 18 - off, "black"))
    out.append("</g>")
    off_ = board["off"]
    out.append(f'<g class="off" data-white="{off_["white"]}" data-black="{off_["black"]}">')
    out.append(f'<rect class="tray" x="{TRAY_X}" y="{TOP}" width="{TRAY_W}" '
               f'height="{BOTTOM - TOP}"/>')
    for k in range(off_["white"]):
        out.append(f'<rect class="borne white" x="{TRAY_X + 4}" y="{BOTTOM - 4 - (k + 1) * 11}" '
                   f'width="{TRAY_W - 8}" height="9" rx="2"/>')
    for k in range(off_["black"]):
        out.append(f'<rect class="borne black" x="{TRAY_X + 4}" y="{TOP + 4 + k * 11}" '
                   f'width="{TRAY_W - 8}" height="9" rx="2"/>')
    out.append("</g>")
    out.append(_dice_svg(snap))
    out.append(_cube_svg(snap))
    out.append("</svg>")
    return "".join(out)


def _dice_svg(snap: Snapshot) -> str:
    dice = snap.get("dice")
    if not dice:
        return '<g class="dice" data-dice=""></g>'
    turn = snap.get("turn") or "white"
    # the mover's dice lie on the right half (White) or the left half (Black), as at a table
    cx = MARGIN + (BAR_W + 9 * PW if turn == "white" else 3 * PW)
    parts = [f'<g class="dice" data-dice="{dice[0]},{dice[1]}">']
    parts.append(_die(cx - 22, MID_Y, int(dice[0]), turn))
    parts.append(_die(cx + 22, MID_Y, int(dice[1]), turn))
    parts.append("</g>")
    return "".join(parts)


def _cube_svg(snap: Snapshot) -> str:
    cube = snap.get("cube") or {"value": 1, "owner": None}
    owner = cube.get("owner")
    value = int(cube.get("value", 1))
    y = MID_Y if owner is None else (BOTTOM - 24 if owner == "white" else TOP + 24)
    face = 64 if value == 1 and owner is None else value
    offered = " offered" if cube.get("offered") else ""
    return (f'<g class="cube{offered}" data-value="{value}" data-owner="{owner or "center"}">'
            f'<rect x="{BAR_X - 16}" y="{y - 16}" width="32" height="32" rx="4"/>'
            f'<text x="{BAR_X}" y="{y + 6}">{escape(str(face))}</text></g>')
