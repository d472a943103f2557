"""A wide lens: its barrel distortion is found at calibration and undone when reading."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from pibg.sim import SimScene, render, sim_corners
from pibg.vision.calibrate import Calibration
from pibg.vision.geometry import START_POINTS, distort, undistort
from pibg.vision.pipeline import Vision

K = -0.15


def _through_lens(frame: np.ndarray, k: float) -> np.ndarray:
    h, w = frame.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    src = undistort(np.stack([xs, ys], -1), k, (w, h))
    return np.asarray(cv2.remap(frame, src[..., 0].astype(np.float32),
                                src[..., 1].astype(np.float32), cv2.INTER_LINEAR))


def test_distort_and_undistort_are_inverse() -> None:
    pts = np.array([[100.0, 80.0], [640.0, 480.0], [1200.0, 100.0], [300.0, 900.0]])
    back = distort(undistort(pts, K, (1280, 960)), K, (1280, 960))
    assert np.allclose(back, pts, atol=1e-3)


def test_a_bulging_lens_is_learnt_and_read_through(tmp_path: Path) -> None:
    start = render(SimScene(START_POINTS))
    h, w = start.shape[:2]
    corners = distort(sim_corners(), K, (w, h))
    vision = Vision.from_start_frame(_through_lens(start, K), corners)
    assert abs(vision.calibration.distortion - K) <= 0.05
    pts = [2, 2, 2, 3, 3, 3, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, -2, -3, -3, -3, -2, -1, 0]
    scene = SimScene(tuple(pts), seed=5)
    assert vision.observe(_through_lens(render(scene), K)).signed_points() == tuple(pts)
    # The distortion survives the calibration file.
    path = tmp_path / "cal.toml"
    vision.calibration.save(path)
    assert Calibration.load(path).distortion == round(vision.calibration.distortion, 4)


def test_distort_is_the_radial_formula_bit_for_bit() -> None:
    # distort takes x^2 + y^2 as two products and a sum; the crops through a bent lens must
    # be the very pixels of the formula squared and summed over the last axis
    rng = np.random.default_rng(7)
    for shape in ((5184, 2), (72, 72, 2), (1, 2)):
        pts = rng.uniform(-100.0, 1400.0, shape)
        c = np.array([639.5, 479.5])
        r2 = (((pts - c) / 800.0) ** 2).sum(-1, keepdims=True)
        assert np.array_equal(distort(pts, K, (1280, 960)), c + (pts - c) * (1.0 + K * r2))
