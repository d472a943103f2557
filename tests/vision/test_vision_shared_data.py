"""Reading the rendered reference frames (skipped without ../shared)."""

from __future__ import annotations

import json

import cv2
import numpy as np

from pibg.vision.pipeline import Vision
from tests.conftest import shared_path


def test_dev0_session_reads_mostly_right() -> None:
    root = shared_path("renders", "dev")
    start = root / "dev0_00_start.jpg"
    corners = json.loads((root / "dev0_00_start.json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(cv2.imread(str(start)), np.asarray(corners))
    right = total = 0
    for i in range(1, 16):
        spec = json.loads((root / f"dev0_{i:02d}.json").read_text())["spec"]
        if spec["hand"]:
            continue
        obs = vision.observe(cv2.imread(str(root / f"dev0_{i:02d}.jpg")))
        got = obs.signed_points() if obs.readable else ()
        right += sum(a == b for a, b in zip(got, spec["points"], strict=False))
        total += 24
    assert right / total > 0.95
