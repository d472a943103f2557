"""Camera sources: the protocol, each backend without a camera, the retrying wrapper."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pibg.camera import (
    EndOfFrames,
    FrameSource,
    RetryingSource,
    make_source,
    open_source,
    parse_spec,
)
from pibg.camera.opencv import OpenCVSource
from pibg.camera.picam import PiCamera2Source
from pibg.camera.replay import FolderSource, FrameListSource
from pibg.camera.sim import SimSource
from pibg.config import CameraConfig
from pibg.exc import CameraUnavailableError, ConfigError


def frame(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    img = np.zeros((size[1], size[0], 3), np.uint8)
    img[:, :, 0] = value
    img[: size[1] // 2, :, 2] = 255 - value
    return img


def test_frame_list_source_protocol_lifecycle_and_lores() -> None:
    src = FrameListSource([frame(10), frame(20)[:, :, 0]], lores_size=(16, 12))
    assert isinstance(src, FrameSource)
    with pytest.raises(CameraUnavailableError, match="not open"):
        src.read()
    with src:
        assert src.read()[0, 0, 0] == 10
        grey = src.read()  # a grey frame comes out BGR
        assert grey.shape == (48, 64, 3)
        with pytest.raises(EndOfFrames):
            src.read()
    src.close()
    src.close()
    with FrameListSource([frame(30)], loop=True, lores_size=(16, 12)) as src2:
        lores = src2.read_lores()
        assert lores is not None and lores.shape == (12, 16) and lores.dtype == np.uint8
        assert src2.read().shape == (48, 64, 3)


def test_bad_frames_are_rejected() -> None:
    with (
        FrameListSource([np.zeros((4, 4), np.float32)]) as src,
        pytest.raises(CameraUnavailableError, match="not an 8-bit image"),
    ):
        src.read()


def test_folder_source_reads_in_name_order(tmp_path: Path) -> None:
    for name, value in (("0002.png", 2), ("0010.png", 10), ("0001.png", 1)):
        cv2.imwrite(str(tmp_path / name), frame(value))
    (tmp_path / "notes.txt").write_text("ignored")
    with FolderSource(tmp_path) as src:
        assert [int(src.read()[0, 0, 0]) for _ in range(3)] == [1, 2, 10]
        with pytest.raises(EndOfFrames, match="all 3 images read"):
            src.read()
    with pytest.raises(CameraUnavailableError, match="no such folder"):
        FolderSource(tmp_path / "nope").open()
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraUnavailableError, match="no images"):
        FolderSource(tmp_path / "empty").open()


def test_opencv_source_replays_a_video_file(tmp_path: Path) -> None:
    path = tmp_path / "session.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for v in (40, 120, 200):
        writer.write(frame(v))
    writer.release()
    with OpenCVSource(path) as src:
        values = [int(src.read()[10, 10, 0]) for _ in range(3)]
        with pytest.raises(EndOfFrames):
            src.read()
    assert all(abs(a - b) < 12 for a, b in zip(values, (40, 120, 200), strict=True))


def test_opencv_source_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailableError, match="no such file"):
        OpenCVSource(tmp_path / "missing.avi").open()
    with pytest.raises(CameraUnavailableError, match="cannot open USB camera 63"):
        OpenCVSource(63).open()


def test_sim_source_with_stub_renderer() -> None:
    calls: list[Any] = []

    def render(scene: Any, size: tuple[int, int]) -> np.ndarray:
        calls.append(scene)
        return frame(scene, size)

    src = SimSource([7, frame(99)], size=(32, 24), repeat=2, render=render)
    with src:
        got = [int(src.read()[0, 0, 0]) for _ in range(4)]
        with pytest.raises(EndOfFrames):
            src.read()
    assert got == [7, 7, 99, 99] and calls == [7]  # rendered once per scene, arrays pass


def test_sim_source_with_real_renderer() -> None:
    sim = pytest.importorskip("pibg.sim")
    geometry = pytest.importorskip("pibg.vision.geometry")
    with open_source("sim", scenes=[sim.SimScene(geometry.START_POINTS)]) as cam:
        img = cam.read()
    assert img.shape == (960, 1280, 3) and img.dtype == np.uint8


class FakePicamera2:
    """Just enough of picamera2.Picamera2 for the adapter."""

    def __init__(self, *, af: bool = True, stall: bool = False) -> None:
        self.camera_controls: dict[str, Any] = {"ExposureTime": (1, 1000000)}
        if af:
            self.camera_controls["AfMode"] = (0, 2)
        self.stall = stall
        self.controls: list[dict[str, Any]] = []
        self.config: dict[str, Any] = {}
        self.state = "new"

    def create_video_configuration(self, **kw: Any) -> dict[str, Any]:
        return kw

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.append(controls)

    def start(self) -> None:
        self.state = "started"

    def capture_metadata(self) -> dict[str, Any]:
        return {
            "ExposureTime": 8000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.8, 1.5),
            "LensPosition": 3.5,
            "SensorTimestamp": 1,
        }

    def capture_array(self, name: str = "main", wait: float | None = None) -> np.ndarray:
        if self.stall:
            raise TimeoutError
        w, h = self.config[name]["size"]
        if name == "lores":  # YUV420: Y plane then the chroma planes below it
            return np.full((h * 3 // 2, w), 77, np.uint8)
        return frame(50, (w, h))

    def stop(self) -> None:
        self.state = "stopped"

    def close(self) -> None:
        self.state = "closed"


def test_picamera2_source_configures_settles_and_locks() -> None:
    fake = FakePicamera2()
    slept: list[float] = []
    src = PiCamera2Source(
        size=(640, 480),
        lores_size=(160, 120),
        fps=5,
        camera_factory=lambda n: fake,
        sleep=slept.append,
    )
    with src:
        assert fake.config["main"] == {"size": (640, 480), "format": "RGB888"}
        assert fake.config["lores"] == {"size": (160, 120), "format": "YUV420"}
        assert fake.config["controls"]["FrameDurationLimits"] == (200000, 200000)
        assert sum(slept) == pytest.approx(2.0)  # the fake never reports convergence
        locked = fake.controls[-1]
        assert locked["AeEnable"] is False and locked["AwbEnable"] is False
        assert locked["ExposureTime"] == 8000 and locked["ColourGains"] == (1.8, 1.5)
        assert locked["LensPosition"] == 3.5 and "AfMode" in locked
        assert src.read().shape == (480, 640, 3)
        lores = src.read_lores()
        assert lores is not None and lores.shape == (120, 160) and int(lores[0, 0]) == 77
    assert fake.state == "closed"
    src.close()


def test_picamera2_locks_early_once_converged() -> None:
    fake = FakePicamera2()
    states = iter(
        [{"AeState": 1, "AfState": 1}, {"AeState": 2, "AfState": 1}]
        + [{"AeState": 2, "AfState": 2}] * 20
    )
    base = fake.capture_metadata
    fake.capture_metadata = lambda: {**base(), **next(states)}  # type: ignore[method-assign]
    slept: list[float] = []
    with PiCamera2Source(camera_factory=lambda n: fake, sleep=slept.append) as src:
        assert src.settled_after == pytest.approx(0.75) and sum(slept) == pytest.approx(0.75)
        assert fake.controls[-1]["LensPosition"] == 3.5


def test_picamera2_without_autofocus_locks_no_focus() -> None:
    fake = FakePicamera2(af=False)
    with PiCamera2Source(camera_factory=lambda n: fake, sleep=lambda s: None):
        assert all("AfMode" not in c for c in fake.controls)


def test_stalled_picamera2_raises_instead_of_hanging() -> None:
    fake = FakePicamera2(stall=True)
    with (
        PiCamera2Source(camera_factory=lambda n: fake, sleep=lambda s: None) as src,
        pytest.raises(CameraUnavailableError, match=r"no frame within 0\.5 s"),
    ):
        src.read(timeout=0.5)


def test_picamera2_absent_gives_apt_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraUnavailableError, match="apt install python3-picamera2"):
        PiCamera2Source(sleep=lambda s: None).open()


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


class Flaky(FrameListSource):
    """Fails to open while ``broken`` is set; reads fail when ``fail_reads`` is set."""

    broken = False
    fail_reads = False
    opened = 0

    def _open(self) -> None:
        if Flaky.broken:
            raise CameraUnavailableError("no camera")
        Flaky.opened += 1
        super()._open()

    def _read(self, timeout: float) -> np.ndarray:
        if Flaky.fail_reads:
            raise CameraUnavailableError("ribbon loose")
        return super()._read(timeout)


def test_retrying_source_backs_off_and_recovers() -> None:
    t = FakeTime()
    statuses: list[str] = []
    Flaky.broken = Flaky.fail_reads = False
    Flaky.opened = 0
    src = RetryingSource(
        lambda: Flaky([frame(1)], loop=True),
        on_status=statuses.append,
        clock=t.clock,
        sleep=t.sleep,
        backoff=0.5,
        max_backoff=2.0,
    )
    with src:
        assert src.read()[0, 0, 0] == 1
        Flaky.fail_reads = True
        Flaky.broken = True
        with pytest.raises(CameraUnavailableError):
            src.read(timeout=3.0)
        assert src.is_down
        assert t.now <= 3.0 + 1e-9  # never blocks past the timeout
        assert statuses[0] == "camera ok" and statuses[1].startswith("camera lost: ribbon loose")
        waits = list(t.slept)
        assert waits[:3] == [0.5, 1.0, 1.5]  # back-off 0.5, 1, then cut at the deadline
        with pytest.raises(CameraUnavailableError, match="retrying in"):
            src.read(timeout=0.1)
        Flaky.broken = Flaky.fail_reads = False
        assert src.read(timeout=5.0)[0, 0, 0] == 1
        assert statuses[-1] == "camera ok" and src.reopens == 1 and not src.is_down
    assert src.status == "closed"
    src.close()


def test_retrying_source_open_does_not_raise_and_eof_passes_through() -> None:
    t = FakeTime()
    Flaky.broken, Flaky.fail_reads = True, False
    src = RetryingSource(lambda: Flaky([frame(5)]), clock=t.clock, sleep=t.sleep)
    src.open()
    assert src.is_down
    Flaky.broken = False
    assert src.read()[0, 0, 0] == 5
    with pytest.raises(EndOfFrames):
        src.read()
    src.close()


def test_specs_and_factory(tmp_path: Path) -> None:
    assert parse_spec("opencv:2") == CameraConfig(source="opencv", device=2)
    assert parse_spec("folder:/x").path == Path("/x")
    assert parse_spec("picamera2").source == "picamera2"
    with pytest.raises(ConfigError, match="camera spec 'webcam'"):
        parse_spec("webcam")
    with pytest.raises(ConfigError, match="needs path"):
        make_source("folder")
    assert isinstance(make_source("opencv:0"), OpenCVSource)
    assert isinstance(make_source(CameraConfig()), PiCamera2Source)
    cv2.imwrite(str(tmp_path / "a.png"), frame(9))
    with open_source(f"folder:{tmp_path}") as cam:
        assert cam.read()[0, 0, 0] == 9
    with pytest.raises(CameraUnavailableError):
        open_source(f"folder:{tmp_path / 'none'}")
    statuses: list[str] = []
    with open_source(f"folder:{tmp_path / 'none'}", retry=True, on_status=statuses.append):
        assert statuses and statuses[0].startswith("camera lost")
