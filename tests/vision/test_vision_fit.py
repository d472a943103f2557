"""A moved camera told from a changed light by the board's edges (pibg.vision.fit)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from pibg.exc import CalibrationError
from pibg.observation import BoardObservation
from pibg.sim import SimScene, render
from pibg.vision import fit as F
from pibg.vision.calibrate import Calibration
from pibg.vision.geometry import START_POINTS
from pibg.vision.pipeline import MOVED, Vision

#: A position after a few moves: checkers moved since the start frame.
LATER = (-2, 0, 0, 0, 2, 4, 0, 2, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 2)


def _moved(frame: np.ndarray, how: str) -> np.ndarray:
    h, w = frame.shape[:2]
    move = {"shifted 12 px": np.float32([[1, 0, 12], [0, 1, 0]]),
            "shifted 16 px down": np.float32([[1, 0, 0], [0, 1, 16]]),
            "turned 2 degrees": cv2.getRotationMatrix2D((w / 2, h / 2), 2.0, 1.0),
            "shifted 60 px": np.float32([[1, 0, 60], [0, 1, 0]]),
            "shifted a point": np.float32([[1, 0, -62], [0, 1, 0]]),
            "turned 8 degrees": cv2.getRotationMatrix2D((w / 2, h / 2), 8.0, 1.0),
            "15 % nearer": cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, 1.15)}[how]
    return cv2.warpAffine(frame, move, (w, h), borderMode=cv2.BORDER_REFLECT)


def _fresh(vision: Vision) -> Vision:
    return Vision(vision.calibration, vision.config)


@pytest.mark.parametrize("how", ["shifted 12 px", "shifted 16 px down", "turned 2 degrees"])
def test_a_camera_moved_a_little_is_followed(sim_vision: Vision, how: str) -> None:
    vision = _fresh(sim_vision)
    moved = _moved(render(SimScene(LATER)), how)
    # the view as calibrated no longer fits: told by the edges, not the colours
    assert vision.moved(vision.canonical(moved)) is True
    old = Vision(dataclasses.replace(sim_vision.calibration, edges=()), sim_vision.config)
    assert old.moved(old.canonical(moved)) is None
    assert vision.calibration_now is vision.calibration
    obs = vision.observe(moved)
    assert obs.readable and [r.count for r in obs.points] == list(LATER)
    # the corners moved with the camera (the page's overlay is drawn from them)
    now = np.asarray(vision.calibration_now.corners)
    assert 2.0 < np.abs(now - np.asarray(vision.calibration.corners)).max() < 40.0
    # ... and it stays followed: the next frame, the start position, is read as it is
    again = vision.observe(_moved(render(SimScene(START_POINTS)), how))
    assert again.readable and [r.count for r in again.points] == list(START_POINTS)


@pytest.mark.parametrize("how", ["shifted 60 px", "shifted a point", "turned 8 degrees",
                                 "15 % nearer"])
def test_a_camera_moved_too_far_to_follow_is_refused(sim_vision: Vision, how: str) -> None:
    obs = _fresh(sim_vision).observe(_moved(render(SimScene(LATER)), how))
    assert not obs.readable
    assert obs.reason.startswith("the calibration does not fit this frame")
    assert "calibrate again" in obs.reason


def test_a_moved_view_is_refused_where_there_is_no_frame_to_follow(sim_vision: Vision) -> None:
    vision = _fresh(sim_vision)
    obs = vision.observe_canonical(vision.canonical(_moved(render(SimScene(LATER)),
                                                           "shifted 12 px")))
    assert not obs.readable and obs.reason == MOVED


@pytest.mark.parametrize("light", ["warm", "dim", "a lamp on one side", "contrast"])
def test_a_changed_light_and_moved_checkers_are_no_moved_camera(sim_vision: Vision,
                                                                  light: str) -> None:
    frame = render(SimScene(LATER)).astype(np.float32)
    x = np.linspace(0.0, 1.0, frame.shape[1])[None, :, None]
    frame = {"warm": frame * np.array([0.7, 0.9, 1.3]),
             "dim": frame * 0.45,
             "a lamp on one side": frame * (0.5 + 0.8 * x),
             "contrast": 255.0 * (frame / 255.0) ** 1.8}[light]
    canon = sim_vision.canonical(np.clip(frame, 0, 255).astype(np.uint8))
    assert sim_vision.moved(canon) is False
    obs = sim_vision.observe_canonical(canon)
    assert obs.readable and [r.count for r in obs.points] == list(LATER)


def test_where_the_edges_fit_a_frame_whose_colours_all_changed_is_read(
        sim_vision: Vision, monkeypatch: pytest.MonkeyPatch) -> None:
    # Render rny3: a red frame under a warm light whose colour moves from frame to frame;
    # most of the board's frame and of its places change colour, as for a moved camera.
    # The colour test is made to say so here; the edges say the camera stayed.
    misfit = BoardObservation.unreadable("the calibration does not fit this frame: 40 of 84 "
                                         "places on the board's frame look unlike it")
    monkeypatch.setattr(Vision, "_rails_changed", lambda self, *a: 84)
    monkeypatch.setattr(Vision, "_over", lambda self, *a, **k: misfit)
    frame = render(SimScene(LATER))
    obs = sim_vision.observe(frame)
    assert obs.readable and [r.count for r in obs.points] == list(LATER)
    old = Vision(dataclasses.replace(sim_vision.calibration, edges=()), sim_vision.config)
    assert old.observe(frame).reason == misfit.reason


def test_the_edges_are_kept_in_the_calibration_file(sim_vision: Vision, tmp_path: Path) -> None:
    cal = sim_vision.calibration
    h, w = (d // F.CELL for d in cal.layout.size[::-1])
    assert len(cal.edges) == h and all(len(row) == w for row in cal.edges)
    path = tmp_path / "cal.toml"
    cal.save(path)
    assert Calibration.load(path).edges == cal.edges
    start = F.edge_map(sim_vision.canonical(render(SimScene(START_POINTS))))
    assert np.abs(F.decode(cal.edges) - np.minimum(start, 15 * F.LEVEL)).max() <= F.LEVEL


def test_a_map_survives_its_text() -> None:
    rng = np.random.default_rng(3)
    edges = rng.uniform(0.0, 15 * F.LEVEL, (7, 9)).astype(np.float32)
    back = F.decode(F.encode(edges))
    assert back.shape == (7, 9) and np.abs(back - edges).max() <= F.LEVEL / 2 + 1e-6
    assert F.encode(back) == F.encode(edges)


@pytest.mark.parametrize("rows,expected", [
    ('["0123", "012"]', "rows differ in length"),
    ('["01g3"]', "'g' is no hex digit"),
    ("[1, 2]", "a list of rows of hex digits"),
])
def test_a_bad_edge_map_is_one_line_naming_the_key(sim_vision: Vision, tmp_path: Path,
                                                   rows: str, expected: str) -> None:
    path = tmp_path / "cal.toml"
    text = sim_vision.calibration.to_toml()
    start = text.index("edges = [")
    end = text.index("]", start) + 1
    path.write_text(text[:start] + f"edges = {rows}" + text[end:])
    with pytest.raises(CalibrationError) as err:
        Calibration.load(path)
    message = str(err.value)
    assert "edges = " in message and expected in message and "\n" not in message
    assert f"pibg calibrate START.jpg -o {path}" in message


def test_a_calibration_without_edges_still_loads_and_reads(sim_calibration_file: Path) -> None:
    cal = Calibration.load(sim_calibration_file)
    assert cal.edges == ()
    vision = Vision(cal)
    assert vision.moved(vision.canonical(render(SimScene(START_POINTS)))) is None


def test_the_bar_tells_a_view_one_point_over() -> None:
    """Points repeat a point's width apart: a view shifted by one point fits their edges as
    well as the right one; the bar, which does not repeat, lies a point off."""
    view = np.full((240, 640, 3), 90, np.uint8)
    for x in range(0, 640, 40):  # the points: stripes a point (40 px) apart
        view[:, x:x + 20] = 170
    view[:, 300:350] = 30  # the bar, wider than a point
    ref = F.edge_map(view)
    assert F.bar_offset(ref, F.edge_map(view), 325.0, 80.0) == 0.0
    over = F.edge_map(np.roll(view, 40, axis=1))
    assert F.bar_offset(ref, over, 325.0, 80.0) == 40.0
    assert F.bar_offset(ref, F.edge_map(np.roll(view, -40, axis=1)), 325.0, 80.0) == -40.0


def test_refine_makes_a_move_good_to_a_pixel_or_two() -> None:
    rng = np.random.default_rng(5)
    view = cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (0, 0), 3.0)
    ref = F.edge_map(view)
    moved = np.roll(view, (5, 11), axis=(0, 1))  # the board now 11 px right and 5 down
    rough = F.compare(ref, F.edge_map(moved))
    assert rough.gain > 0.1
    move = F.refine(ref, moved, rough.move)
    assert abs(move[0, 2] - 11) <= 2 and abs(move[1, 2] - 5) <= 2
