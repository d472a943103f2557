"""The calibration page's endpoints: frame, corners, check and save (token)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pibg.exc import CalibrationError
from pibg.observation import BoardObservation
from pibg.web.calibration import Corners, VisionCalibration, as_corners

from .conftest import TOKEN, Serve, get_json, request

CORNERS = [(10.0, 10.0), (150.0, 12.0), (148.0, 110.0), (12.0, 108.0)]


class FakeCalibration:
    def __init__(self) -> None:
        self.saved: list[Corners] = []
        self.checked: list[Corners | None] = []

    def frame(self) -> np.ndarray[Any, Any] | None:
        return np.full((120, 160, 3), 80, np.uint8)

    def corners(self) -> tuple[Corners | None, str]:
        return list(CORNERS), "detected"

    def save(self, corners: Corners) -> str:
        if corners[0][0] < 0:
            raise CalibrationError("this frame does not look like the starting position")
        self.saved.append(corners)
        return "saved"

    def check(self, corners: Corners | None) -> BoardObservation:
        self.checked.append(corners)
        return BoardObservation.exact([1] + [0] * 22 + [-1], bar=(0, 0), off=(14, 14))


def test_calibration_endpoints(serve: Serve) -> None:
    fake = FakeCalibration()
    web = serve(calibration=fake, token=TOKEN)
    status, info = get_json(web, "/api/calibration")
    assert status == 200
    assert info == {"corners": [list(c) for c in CORNERS], "source": "detected",
                    "image_size": [160, 120]}
    status, headers, body = request(web, "/api/calibration/frame.jpg")
    assert status == 200 and headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8"
    status, read = get_json(web, "/api/calibration/check?corners=1,2;3,4;5,6;7,8")
    assert status == 200
    assert read["points"][0] == 1 and read["points"][23] == -1
    assert 'data-count="1"' in read["svg"]
    assert fake.checked == [[(1.0, 2.0), (3.0, 4.0), (5.0, 6.0), (7.0, 8.0)]]
    status, data = get_json(web, "/api/calibration/check?corners=1,2;3")
    assert status == 422 and "four" in data["error"]


def test_saving_needs_the_token_and_good_corners(serve: Serve) -> None:
    fake = FakeCalibration()
    body = b'{"corners": [[10, 10], [150, 12], [148, 110], [12, 108]]}'
    web = serve(calibration=fake)
    status, data = get_json(web, "/api/calibration", method="POST", body=body)
    assert status == 403 and "token" in data["error"]
    web = serve(calibration=fake, token=TOKEN)
    status, data = get_json(web, "/api/calibration", method="POST", body=body)
    assert status == 401
    auth = {"X-Pibg-Token": TOKEN}
    for bad, code in [(b'{"corners": [[1, 2]]}', 422), (b'{"corner": 1}', 400),
                      (b'[1, 2]', 400), (b'{"corners": [[1, 2], [3, "x"], [5, 6], [7, 8]]}', 422),
                      (b'{"corners": [[-5, 10], [150, 12], [148, 110], [12, 108]]}', 422)]:
        status, data = get_json(web, "/api/calibration", method="POST", body=bad, headers=auth)
        assert status == code, bad
        assert data["error"]
    assert fake.saved == []
    status, data = get_json(web, "/api/calibration", method="POST", body=body, headers=auth)
    assert status == 200 and data == {"ok": True, "message": "saved"}
    assert fake.saved == [CORNERS]


@pytest.mark.parametrize("value", [[[1, 2], [3, 4], [5, 6]], "1,2;3,4", [[1, 2, 3]] * 4,
                                   [[float("nan"), 1]] * 4, None, 5])
def test_bad_corners_are_refused(value: Any) -> None:
    with pytest.raises(CalibrationError):
        as_corners(value)


def test_vision_calibration_learns_and_saves_from_a_start_frame(tmp_path: Path) -> None:
    from pibg.sim import SimScene, render, sim_corners
    from pibg.vision.calibrate import Calibration
    from pibg.vision.geometry import START_POINTS

    frame = render(SimScene(START_POINTS))
    learnt: list[Any] = []
    path = tmp_path / "cal" / "calibration.toml"
    cal = VisionCalibration(lambda: frame, path, on_saved=learnt.append,
                            default_corners=sim_corners().tolist())
    corners, source = cal.corners()
    assert source in ("detected", "default") and corners is not None
    with pytest.raises(CalibrationError, match="no calibration saved"):
        cal.check(None)
    message = cal.save(as_corners(sim_corners().tolist()))
    assert "saved" in message and path.is_file() and len(learnt) == 1
    assert Calibration.load(path).corners == learnt[0].corners
    assert cal.corners()[1] == "saved"
    obs = cal.check(None)
    assert obs.readable and obs.signed_points() == START_POINTS


def test_detected_corners_saved_unmoved_are_taken_as_on_the_rims(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The finder's corners sit on the checkers' rims: saved as detected, the calibration is
    told so (no rim lift); moved by hand, they are the board's own."""
    import pibg.vision.pipeline as pipeline
    from pibg.sim import SimScene, render
    from pibg.vision.geometry import START_POINTS

    frame = render(SimScene(START_POINTS))
    seen: list[bool] = []
    real = pipeline.learn

    def learn(*args: Any, corners_on_rims: bool = False, **kw: Any) -> Any:
        seen.append(corners_on_rims)
        return real(*args, corners_on_rims=corners_on_rims, **kw)

    monkeypatch.setattr(pipeline, "learn", learn)
    cal = VisionCalibration(lambda: frame, tmp_path / "calibration.toml")
    corners, source = cal.corners()
    assert source == "detected" and corners is not None
    cal.save(corners)
    cal.save([(x + 3.0, y) for x, y in corners])
    assert seen == [True, False]
