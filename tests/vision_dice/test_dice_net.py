"""The die-face network (pibg.vision.dice_net) and its training generator (scripts/dice_net)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from pibg.exc import VisionError
from pibg.vision import dice_net
from pibg.vision.dice_find import find_dice
from pibg.vision.dice_net import NO_DIE, face_probabilities, read_face
from pibg.vision.dice_read import draw_die

ROOT = Path(__file__).resolve().parents[2]
BOARD = (40, 90, 30)


def _synth() -> ModuleType:
    path = ROOT / "scripts/dice_net/synth.py"
    spec = importlib.util.spec_from_file_location("dice_net_synth", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dice_net_synth", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize(("face", "pip"), [((235, 235, 235), (20, 20, 20)),
                                           ((30, 30, 30), (240, 240, 240)),
                                           ((40, 40, 200), (250, 250, 250))])
def test_the_network_reads_every_face_at_any_angle(value: int, face: tuple[int, int, int],
                                                   pip: tuple[int, int, int]) -> None:
    for angle in (0.0, 22.0, 45.0, 71.0):
        img = draw_die(value, size=30, angle=angle, face=face, pip=pip, background=BOARD)
        got, p = read_face(img)
        assert got == value, (angle, got, p)
        assert p > 0.5


@pytest.mark.parametrize(("value", "step", "pip_diameter"), [(2, 0.17, 0.26), (2, 0.19, 0.24),
                                                          (3, 0.19, 0.22)])
def test_the_network_reads_twos_and_threes_with_their_pips_near_the_centre(
        value: int, step: float, pip_diameter: float) -> None:
    """Many dice set a two's and a three's pips well inside the corners a six's use, with big
    pips (the photos' dark-red dice: step 0.18 of the edge, pips 0.26 across); the network
    drawn only with corner layouts read those twos as threes."""
    for angle in (0.0, 22.0, 45.0, 71.0):
        for face, pip in (((40, 30, 150), (230, 230, 230)), ((235, 235, 235), (20, 20, 20))):
            img = draw_die(value, size=30, angle=angle, face=face, pip=pip, background=BOARD,
                           step=step, pip_diameter=pip_diameter)
            got, p = read_face(img)
            assert got == value, (angle, face, got, p)


def test_likelihoods_sum_to_one_and_quarter_turns_average() -> None:
    crops = [draw_die(v, size=30, angle=10.0 * v, background=BOARD) for v in range(1, 7)]
    p1 = face_probabilities(crops)
    p4 = face_probabilities(crops, turns=4)
    assert p1.shape == p4.shape == (6, 7)
    np.testing.assert_allclose(p1.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(p4.sum(axis=1), 1.0, atol=1e-6)
    assert list(p4[:, :NO_DIE].argmax(axis=1) + 1) == [1, 2, 3, 4, 5, 6]
    # a quarter-turned crop read at four turns gives the same likelihoods
    turned = [np.ascontiguousarray(np.rot90(c)) for c in crops]
    np.testing.assert_allclose(face_probabilities(turned, turns=4), p4, atol=1e-4)
    assert face_probabilities([]).shape == (0, 7)


def test_a_bare_board_and_a_checker_are_no_die() -> None:
    bare = np.full((40, 40, 3), BOARD, np.uint8)
    checker = bare.copy()
    cv2.circle(checker, (20, 20), 26, (200, 200, 190), -1, cv2.LINE_AA)
    cv2.circle(checker, (20, 20), 17, (170, 170, 160), 2, cv2.LINE_AA)
    p = face_probabilities([bare, checker])
    assert list(p.argmax(axis=1)) == [NO_DIE, NO_DIE]


def test_bad_crops_and_turns_are_refused() -> None:
    with pytest.raises(ValueError, match="4 pixels or more"):
        face_probabilities([np.zeros((2, 9, 3), np.uint8)])
    with pytest.raises(ValueError, match="turns must be 1 to 4"):
        face_probabilities([np.zeros((9, 9, 3), np.uint8)], turns=5)


def test_a_missing_or_broken_model_says_what_to_do(tmp_path: Path) -> None:
    die = draw_die(3, size=30)
    with pytest.raises(VisionError, match=r"missing: reinstall pibg"):
        read_face(die, model=tmp_path / "nothing.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a network at all")
    with pytest.raises(VisionError, match=r"not a readable ONNX network"):
        read_face(die, model=broken)


def test_the_shipped_model_is_small_and_in_the_package() -> None:
    assert dice_net.MODEL.is_file()
    assert dice_net.MODEL.stat().st_size < 1_000_000


def test_the_training_generator_is_repeatable_and_labels_leaning_dice_no_roll() -> None:
    synth = _synth()
    a = [synth.sample(np.random.default_rng(11), 40) for _ in range(1)]
    b = [synth.sample(np.random.default_rng(11), 40) for _ in range(1)]
    assert a[0][1] == b[0][1] and np.array_equal(a[0][0], b[0][0])
    rng = np.random.default_rng(3)
    drawn = [synth.sample(rng, 40) for _ in range(60)]
    assert {v for _, v in drawn} == {1, 2, 3, 4, 5, 6}
    assert all(img.shape == (40, 40, 3) and img.dtype == np.uint8 for img, _ in drawn)
    assert synth.sample(np.random.default_rng(5), 40, lean=True)[1] == 0
    assert synth.negative(np.random.default_rng(5), 40).shape == (40, 40, 3)


def test_the_network_reads_drawn_dice_it_never_trained_on() -> None:
    """Seeds the training did not use (3-8 made the training set): the network's own
    distribution, so a broken export or preprocessing shows here at once."""
    synth = _synth()
    rng = np.random.default_rng(1234)
    drawn = [synth.sample(rng, dice_net.INPUT) for _ in range(300)]
    p = face_probabilities([img for img, _ in drawn])
    right = np.mean(p[:, :NO_DIE].argmax(axis=1) + 1 == np.array([v for _, v in drawn]))
    assert right >= 0.9


def _washed_five() -> np.ndarray:
    board = np.full((200, 300, 3), BOARD, np.uint8)
    die = draw_die(5, size=30, angle=20.0, face=(225, 225, 225), pip=(210, 210, 210),
                   background=BOARD)
    board[70:70 + die.shape[0], 120:120 + die.shape[1]] = die
    return board


def test_a_washed_out_face_in_the_clear_is_read_by_the_network() -> None:
    """A die whose pips barely stand out (glare over its face), alone on the board: the pip
    readers and the whole-face match give up; the network reads it when allowed to."""
    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    assert find_dice(board, die_px=30, surface_mask=mask, rescue=False) == []
    got = find_dice(board, die_px=30, surface_mask=mask)
    assert [(d.value, d.flat) for d in got] == [(5, True)]


def test_the_network_rescues_no_die_beside_something_it_may_lean_on() -> None:
    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    mask[:, :128] = 0  # a checker's edge a third of an edge from the die's centre
    assert find_dice(board, die_px=30, surface_mask=mask) == []


def test_the_rescue_measures_the_face_at_the_centre() -> None:
    """A die leaning in the open shows its face foreshortened (pibg.sim's leaning dice: to
    0.6), which the network may still read: the rescue asks for a square face too."""
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob

    def crop(value: int, squash: float, board: tuple[int, int, int], dx: int) -> np.ndarray:
        die = draw_die(value, size=40, angle=0.0, background=board)
        die = cv2.resize(die, (die.shape[1], round(die.shape[0] * squash)),
                         interpolation=cv2.INTER_AREA)
        out = np.full((120, 120, 3), board, np.uint8)
        y0, x0 = 60 - die.shape[0] // 2, 60 - die.shape[1] // 2
        out[y0:y0 + die.shape[0], x0:x0 + die.shape[1]] = die
        return out[24:96, 24 + dx:96 + dx]

    aspect = DEFAULT_CONFIG.rescue_aspect_max
    for board in (BOARD, (40, 62, 92)):  # green baize; pibg.sim's walnut
        for value in (4, 6):
            for dx in (0, 7):  # the rescue also reads round the candidate
                case = (board, value, dx)
                flat = _face_blob(crop(value, 1.0, board, dx))
                leaning = _face_blob(crop(value, 0.6, board, dx))
                assert flat is not None and leaning is not None, case
                assert flat[0] <= aspect * flat[1], (case, flat)
                assert leaning[0] > aspect * leaning[1], (case, leaning)


def test_the_rescue_tells_the_face_from_the_board_not_from_dark_pips() -> None:
    """The crop the rescue read beside pibg.sim's leaning six (seed 19 of
    ``test_a_leaning_die_in_the_clear_is_no_roll``), centred on a column of its pips: a split
    of the crop's own colours fell between the brown board and the black pips and took the
    whole crop for a square face; measured against the board round the crop, the region at
    the centre is the pips' column, long."""
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob

    patch = cv2.imread(str(Path(__file__).parents[1] / "data/vision/rescue_leaning_six.png"))
    assert patch is not None
    blob = _face_blob(patch)
    assert blob is None or blob[0] > DEFAULT_CONFIG.rescue_aspect_max * blob[1], blob


@pytest.mark.parametrize("name", ["rescue_leaning_four.png", "rescue_leaning_four_on_a_point.png"])
def test_the_rescue_measures_a_leaning_face_whole(name: str) -> None:
    """Crops the rescue read at pibg.sim's leaning fours, which the network took for sixes
    (a 4-4 refereed as 4-6 in the 60-match replay). ``rescue_leaning_four``: large pips
    leave a thin ring of face between them, and the opening that cuts bridges to the board
    cut the ring, leaving a squarish scrap; the pips, wholly inside the face, are now filled
    first. ``..._on_a_point``: the white face runs on into a cream point's tip, one way out
    of the crop; the region's own colours are split again and the face is the nearer part.
    Both are long, as a face foreshortened to 0.6 is."""
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob

    patch = cv2.imread(str(Path(__file__).parents[1] / "data/vision" / name))
    assert patch is not None
    blob = _face_blob(patch)
    assert blob is not None and blob[0] > DEFAULT_CONFIG.rescue_aspect_max * blob[1], blob


def _glare_over_a_black_die(bright: int, dim: int, dx: int) -> np.ndarray:
    """A crop like the rescue's over game 043's black three: glare fading across the face
    from ``bright`` to ``dim`` (the face's colour at its centre the board's own grey-teal),
    the die's shaded sides a dark outline round it, the crop ``dx`` pixels off the die."""
    board = (112, 108, 96)
    img = np.full((160, 160, 3), board, np.uint8)
    outline = cv2.boxPoints(((80, 80), (58, 58), 30)).astype(np.int32)
    cv2.fillConvexPoly(img, outline, (14, 14, 14), lineType=cv2.LINE_AA)
    face = np.zeros((160, 160), np.uint8)
    cv2.fillConvexPoly(face, cv2.boxPoints(((80, 80), (46, 46), 30)).astype(np.int32), 255)
    glare = np.linspace(bright, dim, 160)[None, :, None] * np.array(board) / max(board)
    img[face > 0] = np.broadcast_to(glare, img.shape).astype(np.uint8)[face > 0]
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 1.2)[44:116, 44 + dx:116 + dx])


@pytest.mark.parametrize(("bright", "dim", "dx"), [(180, 40, 0), (200, 20, 0), (220, 0, 0),
                                                   (240, 0, 0), (200, 0, -8), (220, 20, 8)])
def test_the_rescue_finds_a_washed_face_by_its_dark_outline(bright: int, dim: int,
                                                             dx: int) -> None:
    """Where glare leaves a black die's face the board's colour at its centre, no split of
    the crop's colours parts face from board (each of these cases found no face, and the
    network's right read was dropped): the sides, darker than both, outline the face."""
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob

    blob = _face_blob(_glare_over_a_black_die(bright, dim, dx))
    assert blob is not None
    assert blob[0] <= DEFAULT_CONFIG.rescue_aspect_max * blob[1], blob
    assert 40 <= blob[1] <= blob[0] <= 52, blob  # the face, 46 pixels, and its soft edge


def test_the_outline_is_no_face_where_nothing_dark_closes_it() -> None:
    """pibg.sim's black six leaning in the open on black leather (leaning_dice seed 7), the
    crop centred between its two columns of pips: the board, half as light as nothing, is
    all 'lighter than the outline', and a region filling the crop is no face (the rescue
    took it for a square one and read the leaning six as rolled)."""
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob

    patch = cv2.imread(str(ROOT / "tests/data/vision/rescue_leaning_six_on_leather.png"))
    assert patch is not None
    blob = _face_blob(patch)
    assert blob is None or blob[0] > DEFAULT_CONFIG.rescue_aspect_max * blob[1], blob


def test_a_die_on_a_point_of_its_own_colour_is_rescued_when_the_network_is_sure() -> None:
    """A blurred red six on a red point running across the view: the pip readers give up,
    and the region of the face's colour runs on along the point (long, but the board's
    shape, not a lean). The network, sure of its six (>= ``net_rescue_open``), rescues it;
    with that rule off, the long region turns it down."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG

    red = (40, 40, 170)
    board = np.full((200, 300, 3), BOARD, np.uint8)
    board[:, 128:156] = red
    die = draw_die(6, size=30, angle=0.0, face=red, pip=(230, 230, 230), background=BOARD)
    y0, x0 = 92 - die.shape[0] // 2, 142 - die.shape[1] // 2
    region = board[y0:y0 + die.shape[0], x0:x0 + die.shape[1]]
    body = ~np.all(die == np.array(BOARD, np.uint8), axis=2)
    region[body] = die[body]
    board = cv2.GaussianBlur(board, (0, 0), 2.5)
    mask = np.full(board.shape[:2], 255, np.uint8)
    got = find_dice(board, die_px=30, surface_mask=mask)
    assert [(d.value, d.flat) for d in got] == [(6, True)]
    # (and with the die taken as lying nearer than open_room to something it may lean on)
    off = dataclasses.replace(DEFAULT_CONFIG, net_rescue_open=1.01, open_room=0.0)
    assert find_dice(board, die_px=30, surface_mask=mask, config=off) == []


def test_the_rescue_looks_round_a_candidate_that_sits_off_the_face() -> None:
    """A candidate two thirds of an edge off a washed-out five, on the board beside it: the
    network sees no face there, looks again round it and finds the five near its true
    centre; with that look switched off, nothing."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _net_rescue, _room, view_crop

    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    die = draw_die(5, size=30, angle=20.0)
    cx, cy = 120 + die.shape[1] / 2, 70 + die.shape[0] / 2
    crop, room = view_crop(board), _room(mask)
    got = _net_rescue(crop, cx + 20, cy, 30, mask, DEFAULT_CONFIG, room, None)
    assert got is not None and got.value == 5 and got.flat
    assert abs(got.x - cx) < 0.2 * 30 and abs(got.y - cy) < 0.2 * 30
    off = dataclasses.replace(DEFAULT_CONFIG, rescue_shift=0.0, rescue_fine=0.0)
    assert _net_rescue(crop, cx + 20, cy, 30, mask, off, room, None) is None


def test_the_rescue_reads_a_washed_out_face_centred_on_it() -> None:
    """A candidate 0.3 of an edge off a washed-out five, on its face (a candidate's spots,
    pulled by the die's dark side, sit so on the renders' glare-washed black dice): the crop
    is centred on the face, within a twentieth of an edge, and the five read there; read
    where the candidate stands, the network is unsure."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _net_rescue, _room, view_crop

    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    die = draw_die(5, size=30, angle=20.0)
    cx, cy = 120 + die.shape[1] / 2, 70 + die.shape[0] / 2
    crop, room = view_crop(board), _room(mask)
    here = dataclasses.replace(DEFAULT_CONFIG, rescue_shift=0.0, rescue_fine=0.0)
    got = _net_rescue(crop, cx + 9, cy, 30, mask, here, room, None)
    assert got is not None and got.value == 5 and got.flat
    assert math.hypot(got.x - cx, got.y - cy) < 0.05 * 30
    uncentred = dataclasses.replace(here, rescue_centre=(0.0, 0.0))
    assert _net_rescue(crop, cx + 9, cy, 30, mask, uncentred, room, None) is None


def test_the_rescue_reads_a_washed_out_face_alike_a_pixel_either_way() -> None:
    """Candidates 5 to 15 pixels off a washed-out five (a sixth to a half of an edge): with
    its reads averaged over a pixel's jitter, each is read a five, and the likelihood of the
    five varies less from one candidate to the next than one read's (a face with no clear
    pip reads otherwise a pixel away)."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _rescue_read, view_crop

    board = _washed_five()
    die = draw_die(5, size=30, angle=20.0)
    cx, cy = 120 + die.shape[1] / 2, 70 + die.shape[0] / 2
    crop = view_crop(board)
    once = dataclasses.replace(DEFAULT_CONFIG, rescue_jitter=0.0)
    averaged = [_rescue_read(crop, cx + dx, cy, 30, DEFAULT_CONFIG)[3] for dx in range(5, 16)]
    alone = [_rescue_read(crop, cx + dx, cy, 30, once)[3] for dx in range(5, 16)]
    assert all(int(np.argmax(p)) == 4 and p[4] >= DEFAULT_CONFIG.net_rescue for p in averaged)
    assert np.ptp([p[4] for p in averaged]) < 0.6 * np.ptp([p[4] for p in alone])


@pytest.mark.parametrize("off", [0.8, 1.0])
def test_the_rescue_looks_for_the_face_two_steps_round_the_candidate(off: float) -> None:
    """A candidate's spots pulled a whole edge off the face by its dark side and shadow (the
    renders' small dice seen from the side: rny1_07, rnd2_06): the network is asked two
    steps of ``rescue_shift`` round it, as one step finds nothing there."""
    import dataclasses

    from pibg.vision import dice_find
    from pibg.vision.dice_config import DEFAULT_CONFIG

    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    cx, cy = 120 + 45 / 2, 70 + 45 / 2  # the drawn die's centre
    crop, room = dice_find.view_crop(board), dice_find._room(mask)
    at = (cx + off * 30, cy + 0.2 * off * 30)
    near = dataclasses.replace(DEFAULT_CONFIG, rescue_reach=1, rescue_fine=0.0)
    assert dice_find._net_rescue(crop, *at, 30.0, mask, near, room, None) is None
    die = dice_find._net_rescue(crop, *at, 30.0, mask, DEFAULT_CONFIG, room, None)
    assert die is not None and die.value == 5 and math.hypot(die.x - cx, die.y - cy) <= 2


def test_a_flat_die_showing_its_side_is_rescued_when_the_network_is_sure() -> None:
    """A crop round a flat white six seen from the side (render set ``fourth``, rnu2_01, 72 px
    for four die edges): its dark side lies beside its face, so the outline at the centre is
    long, as a leaning die's foreshortened face is. The network is sure of the six (over
    ``net_rescue_open``): rescued; asked to be surer than it can be, turned down."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _face_blob, _net_rescue, _room, view_crop

    patch = cv2.imread(str(Path(__file__).parents[1] / "data/vision/rescue_flat_six_side.png"))
    assert patch is not None
    size, (cx, cy) = patch.shape[1] / 4, (patch.shape[1] / 2, patch.shape[0] / 2)
    crop, mask = view_crop(patch), np.full(patch.shape[:2], 255, np.uint8)
    blob = _face_blob(crop(cx, cy, DEFAULT_CONFIG.net_crop * size)[0])
    assert blob is not None and blob[0] > DEFAULT_CONFIG.rescue_aspect_max * blob[1], blob
    die = _net_rescue(crop, cx, cy, size, mask, DEFAULT_CONFIG, _room(mask), None)
    assert die is not None and (die.value, die.flat) == (6, True)
    assert math.hypot(die.x - cx, die.y - cy) < 0.4 * size  # on its face, beside the side
    # (the crop's centre lies two edges inside the mask: open_room 0 asks it of the outline)
    strict = dataclasses.replace(DEFAULT_CONFIG, net_rescue_open=1.01, open_room=0.0)
    assert _net_rescue(crop, cx, cy, size, mask, strict, _room(mask), None) is None


def test_the_rescue_looks_finer_round_the_best_of_its_grid() -> None:
    """A candidate 0.8 of an edge off a washed-out five: one step of ``rescue_shift`` round it
    leaves the crop too far off the face for the network; a finer 3 x 3 grid round the best
    place (``rescue_fine``) brings it near enough to read the five."""
    import dataclasses

    from pibg.vision import dice_find
    from pibg.vision.dice_config import DEFAULT_CONFIG

    board = _washed_five()
    mask = np.full(board.shape[:2], 255, np.uint8)
    cx, cy = 120 + 45 / 2, 70 + 45 / 2  # the drawn die's centre
    crop, room = dice_find.view_crop(board), dice_find._room(mask)
    at = (cx + 0.8 * 30, cy + 0.16 * 30)
    coarse = dataclasses.replace(DEFAULT_CONFIG, rescue_reach=1, rescue_fine=0.0)
    assert dice_find._net_rescue(crop, *at, 30.0, mask, coarse, room, None) is None
    fine = dataclasses.replace(coarse, rescue_fine=DEFAULT_CONFIG.rescue_fine)
    die = dice_find._net_rescue(crop, *at, 30.0, mask, fine, room, None)
    assert die is not None and die.value == 5 and math.hypot(die.x - cx, die.y - cy) <= 2


def _dark_board(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.full((200, 300, 3), (30, 38, 52), np.float64)
                   + rng.normal(0, 3, (200, 300, 3)), 0, 255).astype(np.uint8)


def _dark_die(value: int, face: tuple[int, int, int], pip: tuple[int, int, int], size: int,
              blur: float) -> tuple[np.ndarray, tuple[float, float]]:
    """A dark board (``_dark_board``) with one die of ``size`` pixels an edge on it, blurred
    by ``blur``, and the die's centre."""
    board = _dark_board(value)
    die = draw_die(value, size=size, angle=15.0, face=face, pip=pip, background=(30, 38, 52))
    body = ~np.all(die == np.array((30, 38, 52), np.uint8), axis=2)
    region = board[70:70 + die.shape[0], 120:120 + die.shape[1]]
    region[body] = die[body]
    centre = (120 + die.shape[1] / 2, 70 + die.shape[0] / 2)
    return cv2.GaussianBlur(board, (0, 0), blur), centre


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("face, pip", [((110, 80, 120), (60, 45, 65)),
                                       ((90, 90, 90), (50, 50, 50))])
def test_a_dark_die_with_dim_pips_on_a_dark_board_is_found(
        value: int, face: tuple[int, int, int], pip: tuple[int, int, int]) -> None:
    """A purple or grey die with pips a little darker than its face on a dark board (render
    sets fresh, rnf3; eleventh, rnb0): the pips' contrast is under the spot map's least
    response and no candidate is found; the strongest places of pips whatever their contrast
    (``faint_candidates``, off as shipped), read by the network, find it."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG

    board, _ = _dark_die(value, face, pip, 30, 1.2)
    mask = np.full(board.shape[:2], 255, np.uint8)
    pips_only = dataclasses.replace(DEFAULT_CONFIG, spot_sure=1.0)
    assert find_dice(board, die_px=30, surface_mask=mask, config=pips_only) == []
    faint = dataclasses.replace(pips_only, faint_candidates=3)
    assert [(d.value, d.flat) for d in find_dice(board, die_px=30, surface_mask=mask,
                                                 config=faint)] == [(value, True)]


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("face, pip", [((110, 80, 120), (60, 45, 65)),
                                       ((90, 90, 90), (50, 50, 50))])
def test_the_dice_finding_network_finds_a_dark_die_the_spot_map_misses(
        value: int, face: tuple[int, int, int], pip: tuple[int, int, int]) -> None:
    """The same dark dice at 16 view pixels an edge, as the renders' dice lie in pibg's
    top-down view: the spot map finds no candidate (the network switched off, ``spot_sure``
    1), and the dice-finding network (:mod:`pibg.vision.dice_spot`) finds the die by its
    shape, at its centre, for the die-face network to read."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG

    board, centre = _dark_die(value, face, pip, 16, 0.8)
    mask = np.full(board.shape[:2], 255, np.uint8)
    off = dataclasses.replace(DEFAULT_CONFIG, spot_sure=1.0)
    assert find_dice(board, die_px=16, surface_mask=mask, config=off) == []
    got = find_dice(board, die_px=16, surface_mask=mask)
    assert [(d.value, d.flat) for d in got] == [(value, True)]
    assert math.dist((got[0].x, got[0].y), centre) < 3


def test_a_dark_board_with_grain_and_blotches_shows_no_die() -> None:
    """The faint places are read by the network alone: on dark boards with a grain, noise and
    round blotches of any colour (a point's tip, a stain) it finds no die. Nor do the places
    the dice-finding network finds there (it finds the blotches: round, standing apart), at
    either die size: a blotch read as a one at 0.66 is no die under ``spot_one``."""
    import dataclasses

    from pibg.vision.dice_config import DEFAULT_CONFIG

    for seed in range(12):
        rng = np.random.default_rng(seed)
        board = _dark_board(seed).astype(np.float64)
        board[:, ::7] += 12
        for _ in range(3):
            x, y = (int(v) for v in rng.integers(20, 180, 2))
            colour = tuple(float(v) for v in rng.integers(20, 120, 3))
            cv2.circle(board, (x + 100, y), int(rng.integers(4, 12)), colour, -1)
        board = cv2.GaussianBlur(np.clip(board, 0, 255).astype(np.uint8), (0, 0), 1.2)
        mask = np.full(board.shape[:2], 255, np.uint8)
        on = dataclasses.replace(DEFAULT_CONFIG, faint_candidates=3)
        assert find_dice(board, die_px=30, surface_mask=mask, config=on) == [], seed
        for size in (16, 30):  # as shipped
            assert find_dice(board, die_px=size, surface_mask=mask) == [], (seed, size)


@pytest.mark.parametrize("value", [2, 3, 5, 6])
def test_a_die_read_at_one_pip_takes_the_value_the_network_reads_on_its_face(value: int) -> None:
    """A die the pip readers read as a one at one of its pips (a corner pip alone, the others
    lost): the network, looking round that place, reads its face, and the higher value
    stands; a die read as it reads is left as it is, a value the network reads lower is not
    lowered (centred on one pip of a two, it reads a one), and with the check switched off
    the one stands."""
    import dataclasses

    from pibg.observation import DieRead
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_find import _more_pips, view_crop

    board = np.full((160, 240, 3), (40, 90, 30), np.uint8)
    die = draw_die(value, size=30, angle=0.0, background=(40, 90, 30))
    y0, x0 = 60, 100
    board[y0:y0 + die.shape[0], x0:x0 + die.shape[1]] = die
    cx, cy = x0 + die.shape[1] / 2, y0 + die.shape[0] / 2
    crop = view_crop(board)
    at_pip = DieRead(1, cx - 0.3 * 30, cy - 0.3 * 30, True, 0.5)
    got = _more_pips(crop, at_pip, 30, DEFAULT_CONFIG)
    assert (got.value, got.x, got.y, got.flat) == (value, at_pip.x, at_pip.y, True)
    for read in (value, 6):  # read as it reads; read higher (not asked)
        die_read = DieRead(read, cx, cy, True, 0.9)
        assert _more_pips(crop, die_read, 30, DEFAULT_CONFIG) == die_read
    off = dataclasses.replace(DEFAULT_CONFIG, net_more_pips=1.0)
    assert _more_pips(crop, at_pip, 30, off) == at_pip


@pytest.mark.parametrize(("name", "value"), [("dice_pink_six_dark_board.png", 6),
                                             ("dice_pink_four_dark_board.png", 4)])
def test_a_brightened_view_leaves_the_network_what_the_camera_saw(name: str, value: int) -> None:
    """A pink die with white pips on a dark brown board (render rnq2_01, the top-down view, 16.5
    px a die edge), read with the exposure the board's dim light asks for (2.13): brightened,
    the face clips to one white square, pips and all. The die-face network scales each crop's
    lightness itself and reads the crop as the camera saw it: the die is found and read."""
    view = cv2.imread(str(Path(__file__).parents[1] / "data/vision" / name))
    assert view is not None
    mask = np.full(view.shape[:2], 255, np.uint8)
    for exposure in (1.0, 2.13):
        reads = find_dice(view, die_px=16.464, surface_mask=mask, exposure=exposure)
        assert [(d.value, d.flat) for d in reads] == [(value, True)], exposure


def test_the_rescue_reads_where_it_was_asked_when_the_outline_takes_in_a_shadow() -> None:
    """A dark green die showing a one on a lime point, its dark shadow beside it (render
    rnk4_02, the top-down view, 16 px a die edge): the region of the face's colour takes in
    the shadow, and its centre lies a fifth of an edge off the top face, where the network is
    unsure. Read where the rescue was asked as well, the one is found."""
    view = cv2.imread(str(Path(__file__).parents[1] / "data/vision/dice_dark_one_shadow.png"))
    assert view is not None
    mask = np.full(view.shape[:2], 255, np.uint8)
    reads = find_dice(view, die_px=16.0, surface_mask=mask)
    assert [(d.value, d.flat) for d in reads] == [(1, True)]
    assert math.hypot(reads[0].x - 40, reads[0].y - 40) < 0.25 * 16
