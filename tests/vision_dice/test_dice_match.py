"""Whole-face matching of the six pip layouts (pibg.vision.dice_match), and its use by
find_dice for faces whose pips were not found one by one."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from pibg.vision.dice import draw_die, find_dice, read_die
from pibg.vision.dice_config import DEFAULT_CONFIG
from pibg.vision.dice_find import _matched, _room, view_crop
from pibg.vision.dice_match import match_face

Image = npt.NDArray[Any]

STYLES = {
    "white/black": ((235, 235, 235), (20, 20, 20)),
    "black/white": ((25, 25, 25), (240, 240, 240)),
    "red/white": ((40, 30, 190), (235, 235, 235)),
}
BOARD_BGR = (40, 70, 110)


def _face(value: int, size: int, angle: float, style: str, shift: tuple[int, int] = (0, 0),
          noise: float = 0.0) -> Image:
    """A die of edge ``size`` in a patch twice its size, moved by ``shift`` pixels."""
    face, pip = STYLES[style]
    die = draw_die(value, size=size, angle=angle, face=face, pip=pip, background=BOARD_BGR)
    patch = np.empty((2 * size, 2 * size, 3), np.uint8)
    patch[:] = BOARD_BGR
    h, w = die.shape[:2]
    y0, x0 = size - h // 2 + shift[1], size - w // 2 + shift[0]
    patch[y0:y0 + h, x0:x0 + w] = die
    if noise:
        rng = np.random.default_rng(value)
        patch = np.clip(patch + rng.normal(0.0, noise, patch.shape), 0, 255).astype(np.uint8)
    return patch


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("angle", [0.0, 23.0, 45.0, 118.0])
def test_each_value_at_any_angle(value: int, style: str, angle: float) -> None:
    m = match_face(_face(value, 24, angle, style), 24.0)
    assert m.value == value
    assert m.score > 0.8 and m.margin > DEFAULT_CONFIG.rescue_margin
    assert m.spot > DEFAULT_CONFIG.rescue_spot


@pytest.mark.parametrize("size", [18, 30, 44])
@pytest.mark.parametrize("value", [2, 4, 6])
def test_any_size_and_some_noise(size: int, value: int) -> None:
    m = match_face(_face(value, size, 31.0, "white/black", noise=6.0), float(size))
    assert m.value == value


def test_reports_where_the_face_is() -> None:
    patch = _face(5, 30, 10.0, "black/white", shift=(4, -3))
    m = match_face(patch, 30.0)
    assert m.value == 5
    centre = (patch.shape[1] - 1) / 2.0
    assert math.hypot(m.centre[0] - (centre + 4), m.centre[1] - (centre - 3)) < 1.5
    assert abs(m.edge - 30.0) < 3.5


def test_a_small_die_in_a_large_patch_is_read_where_it_lies() -> None:
    """Only the middle of a patch many edges across is looked at (rescaling all of it
    would cost hundreds of times more): the face is still read, and placed in the patch."""
    patch = np.empty((401, 401, 3), np.uint8)
    patch[:] = BOARD_BGR
    die = _face(6, 20, 35.0, "white/black", shift=(3, 2))
    patch[180:220, 180:220] = die
    m = match_face(patch, 20.0)
    assert m.value == 6
    assert math.hypot(m.centre[0] - (180 + 19.5 + 3), m.centre[1] - (180 + 19.5 + 2)) < 1.5


def test_a_three_is_not_a_five_or_a_two() -> None:
    m = match_face(_face(3, 24, 60.0, "white/black"), 24.0)
    assert m.value == 3 and m.margin > DEFAULT_CONFIG.rescue_margin


def test_a_ridge_matches_with_no_round_spots() -> None:
    """A point's tip or a checker's edge lines a layout's spots up along it: they are not
    round, so no die is found there."""
    patch = np.full((48, 48, 3), 60, np.uint8)
    cv2.line(patch, (0, 0), (47, 47), (230, 230, 230), 3, cv2.LINE_AA)
    m = match_face(patch, 24.0)
    assert m.spot < DEFAULT_CONFIG.rescue_spot


def test_a_plain_patch_matches_nothing_well() -> None:
    rng = np.random.default_rng(3)
    patch = np.clip(120 + rng.normal(0, 4, (48, 48, 3)), 0, 255).astype(np.uint8)
    m = match_face(patch, 24.0)
    assert m.score < DEFAULT_CONFIG.rescue_score


def test_grey_patches_are_read() -> None:
    patch = cv2.cvtColor(_face(4, 24, 15.0, "white/black"), cv2.COLOR_BGR2GRAY)
    m = match_face(patch, 24.0)
    assert m.value == 4


@pytest.mark.parametrize(("shape", "edge"), [((5, 5, 3), 24.0), ((48, 48, 3), 1.0)])
def test_bad_input_is_refused(shape: tuple[int, ...], edge: float) -> None:
    with pytest.raises(ValueError, match="match_face"):
        match_face(np.zeros(shape, np.uint8), edge)


# --- read_die's use of it -----------------------------------------------------------------------


@pytest.mark.parametrize(("size", "blur", "value", "angle"), [
    (14, 1.5, 5, 0.0), (14, 1.5, 6, 40.0), (18, 0.0, 6, 65.0), (18, 1.0, 6, 20.0),
    (22, 1.5, 6, 0.0),
])
def test_read_die_reads_small_blurred_faces_whole(size: int, blur: float, value: int,
                                                  angle: float) -> None:
    """Small, blurred black dice whose pips run together: found one by one they leave the
    value unsure (these cases were misread before the whole-face match), matched whole they
    are read."""
    img = draw_die(value, size=size, angle=angle, face=(30, 30, 30), pip=(230, 230, 230),
                   background=(60, 60, 60), margin=0.3)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    rng = np.random.default_rng(value * 100 + int(angle))
    img = np.clip(img + rng.normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    assert read_die(img)[0] == value


# --- find_dice's use of it ----------------------------------------------------------------------


def _board_with(patch: Image, at: tuple[int, int]) -> Image:
    board = np.empty((200, 300, 3), np.uint8)
    board[:] = BOARD_BGR
    h, w = patch.shape[:2]
    board[at[1] - h // 2:at[1] - h // 2 + h, at[0] - w // 2:at[0] - w // 2 + w] = patch
    return board


def test_a_flat_face_matched_whole_is_a_flat_die_where_it_lies() -> None:
    board = _board_with(draw_die(3, size=30, angle=25.0, background=BOARD_BGR), (140, 100))
    die = _matched(view_crop(board), 143.0, 97.0, 30.0, 30.0, None, DEFAULT_CONFIG)
    assert die is not None
    assert (die.value, die.flat) == (3, True)
    assert math.hypot(die.x - 140, die.y - 100) < 2.0


def test_a_cube_face_is_not_matched_as_a_die() -> None:
    cube = np.full((36, 36, 3), 235, np.uint8)
    cv2.putText(cube, "64", (4, 27), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2,
                cv2.LINE_AA)
    board = _board_with(cube, (140, 100))
    assert _matched(view_crop(board), 140.0, 100.0, 30.0, 30.0, None, DEFAULT_CONFIG) is None


def test_a_squashed_face_is_not_reported() -> None:
    """A face foreshortened by a lean has no square outline: matched whole, it is no flat
    die, and nothing else vouches for it being a die at all."""
    die = draw_die(5, size=30, angle=0.0, background=BOARD_BGR)
    squashed = cv2.resize(die, (die.shape[1], int(die.shape[0] * 0.6)),
                          interpolation=cv2.INTER_AREA)
    board = _board_with(squashed, (140, 100))
    assert _matched(view_crop(board), 140.0, 100.0, 30.0, 30.0, None, DEFAULT_CONFIG) is None


def test_outside_the_surface_mask_nothing_is_matched() -> None:
    board = _board_with(draw_die(4, size=30, angle=10.0, background=BOARD_BGR), (140, 100))
    mask = np.zeros(board.shape[:2], np.uint8)
    assert _matched(view_crop(board), 140.0, 100.0, 30.0, 30.0, mask, DEFAULT_CONFIG) is None


# --- a die with nothing to lean on ---------------------------------------------------------


def _mask_with_wall(board: Image, wall_x: int) -> Image:
    """The surface mask of ``board``, with everything right of ``wall_x`` taken (a checker,
    the bar or the rail stands there)."""
    mask = np.full(board.shape[:2], 255, np.uint8)
    mask[:, wall_x:] = 0
    return mask


@pytest.fixture
def no_outline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The top face's outline cannot be told square (a black die on a dark board, its sides
    in view): only where it lies vouches for it."""
    import pibg.vision.dice_find as F
    monkeypatch.setattr(F, "_square_outline", lambda *a, **k: False)


@pytest.mark.usefixtures("no_outline")
def test_a_face_matched_whole_in_the_clear_is_a_flat_die() -> None:
    """Nothing lies within a die's edge of it for it to lean on: matched whole, it is flat."""
    board = _board_with(draw_die(5, size=30, angle=20.0, background=BOARD_BGR), (140, 100))
    crop = view_crop(board)
    assert _matched(crop, 140.0, 100.0, 30.0, 30.0, None, DEFAULT_CONFIG) is None
    clear = _mask_with_wall(board, 290)
    die = _matched(crop, 140.0, 100.0, 30.0, 30.0, clear, DEFAULT_CONFIG, _room(clear))
    assert die is not None and (die.value, die.flat) == (5, True)


@pytest.mark.usefixtures("no_outline")
def test_a_face_matched_whole_beside_a_checker_is_not_reported() -> None:
    board = _board_with(draw_die(5, size=30, angle=20.0, background=BOARD_BGR), (140, 100))
    near = _mask_with_wall(board, 155)  # the die's centre half its edge from it
    assert _room(near)(140.0, 100.0) < DEFAULT_CONFIG.clear_room * 30.0
    assert _matched(view_crop(board), 140.0, 100.0, 30.0, 30.0, near, DEFAULT_CONFIG,
                    _room(near)) is None


@pytest.mark.parametrize(("value", "wall_x", "flat"), [
    (4, 290, True),    # in the clear: the whole-face match reads the same value, so it is flat
    (4, 155, False),   # half its edge from a checker: it may lean on it, the pips' verdict stands
    # two pips show no grid's stretch, and a leaning two matches whole as well as a flat
    # one: in the clear only an edge or more from everything (clear_room_few)
    (2, 290, True),
    (2, 167, False),   # 0.9 of an edge from the checker: room enough for four pips, not two
])
def test_in_the_clear_a_cocked_verdict_needs_the_whole_face_to_agree(
        monkeypatch: pytest.MonkeyPatch, value: int, wall_x: int, flat: bool) -> None:
    import pibg.vision.dice_find as F
    monkeypatch.setattr(F, "_is_flat", lambda *a, **k: False)  # the pips say "cocked"
    board = _board_with(draw_die(value, size=30, angle=15.0, background=BOARD_BGR), (140, 100))
    mask = _mask_with_wall(board, wall_x)
    if wall_x == 167:
        room = _room(mask)(140.0, 100.0) / 30.0
        assert DEFAULT_CONFIG.clear_room <= room < DEFAULT_CONFIG.clear_room_few
    got = F.find_dice(board, die_px=30, surface_mask=mask)
    assert [(d.value, d.flat) for d in got] == [(value, flat)]


def test_in_the_clear_a_face_read_otherwise_whole_stays_cocked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import pibg.vision.dice_find as F
    from pibg.vision.dice_match import FaceMatch

    monkeypatch.setattr(F, "_is_flat", lambda *a, **k: False)  # the pips say "cocked"
    monkeypatch.setattr(F, "match_face", lambda *a, **k: FaceMatch(
        2, 0.9, 0.2, 0.9, (30.0, 30.0), 0.0, 30.0))  # the whole face says two
    board = _board_with(draw_die(4, size=30, angle=15.0, background=BOARD_BGR), (140, 100))
    # in the clear, yet nearer than open_room (an edge and a half) to something to lean on
    got = F.find_dice(board, die_px=30, surface_mask=_mask_with_wall(board, 175))
    assert [(d.value, d.flat) for d in got] == [(4, False)]


def test_in_the_clear_a_face_stretched_past_a_flat_dies_is_still_cocked() -> None:
    die = draw_die(5, size=30, angle=0.0, background=BOARD_BGR)
    die = cv2.resize(die, (die.shape[1], round(die.shape[0] / 1.4)), interpolation=cv2.INTER_AREA)
    board = _board_with(die, (140, 100))
    got = find_dice(board, die_px=30, surface_mask=_mask_with_wall(board, 175))
    assert [(d.value, d.flat) for d in got] == [(5, False)]
    # an edge and a half or more from everything (open_room) it has nothing to lean on
    got = find_dice(board, die_px=30, surface_mask=_mask_with_wall(board, 290))
    assert [(d.value, d.flat) for d in got] == [(5, True)]


def test_room_is_the_distance_inside_the_mask() -> None:
    mask = np.zeros((50, 80), np.uint8)
    mask[10:40, 10:70] = 255
    room = _room(mask)
    assert room(40.0, 25.0) == pytest.approx(15.0, abs=1.0)
    assert room(5.0, 25.0) == 0.0 and room(500.0, 25.0) == 0.0
    assert _room(None)(40.0, 25.0) == 0.0


@pytest.mark.parametrize(("width", "height", "wall_x", "flat"), [
    (1.0, 1.0, 160, True),       # square, beside a checker: flat
    (1 / 1.09, 1.0, 160, False),  # shortened towards the checker, as by a lean on it
    (1.0, 1 / 1.09, 160, True),   # long towards it: no lean on it shows so (render rpd3_07)
    (1 / 1.09, 1.0, 290, True),   # as stretched in the clear: nothing to lean on
])
def test_beside_a_checker_a_die_must_be_squarer(width: float, height: float, wall_x: int,
                                                flat: bool) -> None:
    """A five within ``clear_room`` of a checker, its grid stretched past
    ``lean_aspect_max``, is cocked where the grid is shortened towards the checker (a lean
    on it tilts the face away from it); long towards it, or in the clear, it lies flat."""
    die = draw_die(5, size=30, angle=0.0, background=BOARD_BGR)
    die = cv2.resize(die, (round(die.shape[1] * width), round(die.shape[0] * height)),
                     interpolation=cv2.INTER_AREA)
    board = _board_with(die, (140, 100))
    mask = _mask_with_wall(board, wall_x)
    assert _room(mask)(140.0, 100.0) < DEFAULT_CONFIG.clear_room * 30.0 or wall_x > 200
    assert [(d.value, d.flat) for d in find_dice(board, die_px=30, surface_mask=mask)] == \
        [(5, flat)]


@pytest.mark.parametrize(("gap", "flat"), [(1.2, False), (3.0, True)])
def test_in_the_clear_a_die_may_still_lean_on_the_other_die(
        monkeypatch: pytest.MonkeyPatch, gap: float, flat: bool) -> None:
    """The room measured is free of checkers, bar and rail, not of the other die: two dice
    the pips call cocked, close enough to lean one on the other, stay cocked."""
    import pibg.vision.dice_find as F
    monkeypatch.setattr(F, "_is_flat", lambda *a, **k: False)  # the pips say "cocked"
    board = np.empty((200, 300, 3), np.uint8)
    board[:] = BOARD_BGR
    for value, x in ((4, 110), (5, round(110 + gap * 30))):
        die = draw_die(value, size=30, angle=0.0, background=BOARD_BGR)
        h, w = die.shape[:2]
        board[100 - h // 2:100 - h // 2 + h, x - w // 2:x - w // 2 + w] = die
    got = F.find_dice(board, die_px=30, surface_mask=np.full(board.shape[:2], 255, np.uint8))
    assert sorted((d.value, d.flat) for d in got) == [(4, flat), (5, flat)]


@pytest.mark.parametrize(("width", "height", "flat"), [
    (1.14, 1.0, True),   # long towards the wall: a flat die's side in view, not a lean
    (1.0, 1.14, False),  # long across the way to the wall: as shortened by a lean on it
])
def test_beside_the_frame_a_face_long_towards_it_is_a_flat_dies(
        width: float, height: float, flat: bool) -> None:
    """A flat die of two by the frame, far from the point below the camera, shows its side
    joined to its top face: the face is long towards the frame, where a die leaning on the
    frame is foreshortened (render dev2_06)."""
    die = draw_die(2, size=30, angle=0.0, background=BOARD_BGR)
    die = cv2.resize(die, (round(die.shape[1] * width), round(die.shape[0] * height)),
                     interpolation=cv2.INTER_AREA)
    board = _board_with(die, (140, 100))
    mask = _mask_with_wall(board, 160)  # the wall lies right of the die
    assert _room(mask)(140.0, 100.0) < DEFAULT_CONFIG.clear_room * 30.0
    assert [(d.value, d.flat) for d in find_dice(board, die_px=30, surface_mask=mask)] == \
        [(2, flat)]
