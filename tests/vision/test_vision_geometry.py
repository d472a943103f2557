"""The canonical view's geometry, checked against independent formulas."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pibg.vision.geometry import (
    PROFILES,
    WHITE_HOMES,
    Layout,
    camera_centre,
    canonical_corner_order,
    homography,
    lift,
    profile_for_aspect,
    to_image,
)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_points_are_one_point_width_apart_and_mirror(name: str) -> None:
    lay = Layout(PROFILES[name])
    xs = [lay.point_x(p) for p in range(1, 25)]
    for a, b in ((1, 2), (7, 8), (13, 14), (19, 20)):
        assert abs(abs(xs[a - 1] - xs[b - 1]) - lay.u) < 1e-6
    # Point p and point 25 - p face each other across the board.
    for p in range(1, 13):
        assert xs[p - 1] == pytest.approx(xs[24 - p])
    # The bar separates 6 from 7 by one point width plus the bar.
    assert xs[5] - xs[6] == pytest.approx(lay.u * (1 + PROFILES[name].bar))


def test_slots_run_from_the_base_towards_the_middle() -> None:
    lay = Layout(PROFILES["standard"])
    k = lay.slots_per_point()
    assert k == 5
    ys = [lay.slot_centre(1, j)[1] for j in range(k)]
    assert all(a > b for a, b in itertools.pairwise(ys))  # bottom row: upwards
    ys = [lay.slot_centre(24, j)[1] for j in range(k)]
    assert all(a < b for a, b in itertools.pairwise(ys))  # top row: downwards
    assert max(lay.slot_centre(1, k - 1)[1], lay.slot_centre(24, k - 1)[1]) > 0
    assert lay.slot_centre(1, k - 1)[1] > lay.centre_y > lay.slot_centre(24, k - 1)[1]


@pytest.mark.parametrize("home", WHITE_HOMES)
def test_homography_sends_white_home_to_the_bottom_right(home: str) -> None:
    lay = Layout(PROFILES["standard"])
    corners = np.array([[100, 80], [900, 90], [880, 700], [120, 690]], float)
    h = homography(corners, lay, home)  # type: ignore[arg-type]
    canon = lay.surface_corners()
    order = canonical_corner_order(home)  # type: ignore[arg-type]
    back = to_image(np.linalg.inv(h), canon)
    for i, j in enumerate(order):
        assert np.allclose(back[j], corners[i], atol=1e-3)


def test_profile_for_aspect_picks_the_nearest_shape() -> None:
    for p in PROFILES.values():
        assert profile_for_aspect(p.aspect).name == p.name


def test_die_is_three_quarters_of_a_checker() -> None:
    lay = Layout(PROFILES["standard"])
    assert lay.die_px == pytest.approx(0.75 * lay.checker_px)


@pytest.mark.parametrize(("tilt", "towards"), [(6.0, 0.0), (12.0, 135.0), (3.0, 250.0)])
def test_camera_centre_from_the_homography_alone(tilt: float, towards: float) -> None:
    # A pinhole (focal 985 px, principal point at the centre of 1280 x 960) 700 units above
    # the board at (300, 220), tilted: the board point below it is found from the homography.
    f, (w, h) = 985.0, (1280, 960)
    k = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    a, b = np.radians(tilt), np.radians(towards)
    axis = np.array([np.cos(b), np.sin(b), 0.0])
    skew = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    tilt_r = np.eye(3) + np.sin(a) * skew + (1 - np.cos(a)) * skew @ skew
    down = np.diag([1.0, -1.0, -1.0])  # looking straight down at the board
    rot = tilt_r @ down
    centre = np.array([300.0, 220.0, 700.0])
    t = -rot @ centre
    board_to_image = k @ np.column_stack([rot[:, 0], rot[:, 1], t])
    got = camera_centre(np.linalg.inv(board_to_image), (w, h))
    assert got is not None
    assert got == pytest.approx((300.0, 220.0, 700.0), abs=0.5)


def test_lift_moves_raised_points_away_from_the_point_below_the_camera() -> None:
    camera = (300.0, 200.0, 700.0)
    pts = np.array([[300.0, 200.0], [400.0, 200.0], [300.0, 50.0]])
    got = lift(pts, camera, 7.0)
    assert got[0] == pytest.approx([300.0, 200.0])            # straight below: not moved
    assert got[1] == pytest.approx([400.0 + 100.0 * 7.0 / 693.0, 200.0])
    assert got[2] == pytest.approx([300.0, 50.0 - 150.0 * 7.0 / 693.0])
    assert lift(pts, None, 7.0) == pytest.approx(pts)          # camera unknown: as they are
