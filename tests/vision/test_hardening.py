"""Issue 39 (junk input): damaged calibration files, frames of another size and image files
that are cut short, grey, corrupt or huge each give one line naming the problem."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from pibg.__main__ import main
from pibg.exc import CalibrationError
from pibg.sim import SimScene, render
from pibg.vision.calibrate import Calibration
from pibg.vision.geometry import START_POINTS
from pibg.vision.imagefile import ImageFileError, load_image
from pibg.vision.pipeline import Vision

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key,value,expected", [
    ("distortion", "50", "distortion = 50"),
    ("distortion", "nan", "distortion = nan"),
    ("image_size", '"1280x960"', "image_size = '1280x960'"),
    ("image_size", "[0, 960]", "image_size = [0, 960]"),
    ("corners", "[[100.0, 100.0], [100.0, 100.0], [100.0, 100.0], [100.0, 100.0]]",
     "corners = "),
    ("corners", "[[100.0, 100.0], [900.0, 100.0], [100.0, 700.0], [900.0, 700.0]]",
     "convex"),
    ("checker_radius_px", "inf", "checker_radius_px = inf"),
])
def test_a_bad_calibration_value_is_one_line_naming_the_key(
        sim_calibration_file: Path, tmp_path: Path, key: str, value: str, expected: str):
    text = sim_calibration_file.read_text()
    text, n = re.subn(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
    if not n:
        text = f"{key} = {value}\n" + text
    bad = tmp_path / "cal.toml"
    bad.write_text(text)
    with pytest.raises(CalibrationError) as err:
        Calibration.load(bad)
    message = str(err.value)
    assert expected in message and "pibg calibrate" in message and "\n" not in message


def test_a_binary_calibration_file_is_one_line(tmp_path: Path, capsys):
    bad = tmp_path / "cal.toml"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary")
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), render(SimScene(START_POINTS)))
    assert main(["read", str(frame), "--calibration", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not text" in err and err.count("\n") == 1


def test_a_frame_of_another_size_is_refused_with_the_reason(sim_vision: Vision):
    frame = render(SimScene(START_POINTS))
    h, w = frame.shape[:2]
    crop = np.ascontiguousarray(frame[: h * 15 // 16, : w * 15 // 16])
    obs = sim_vision.observe(crop)
    assert not obs.readable
    assert f"but the calibration is for {w}x{h}" in obs.reason
    assert sim_vision.observe(frame).readable


@pytest.fixture(scope="module")
def frame_files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("frames")
    img = render(SimScene(START_POINTS))
    files = {"png": d / "f.png", "jpg": d / "f.jpg"}
    cv2.imwrite(str(files["png"]), img)
    cv2.imwrite(str(files["jpg"]), img)
    data = files["jpg"].read_bytes()
    files["cut"] = d / "cut.jpg"
    files["cut"].write_bytes(data[: len(data) * 2 // 3])
    files["cutpng"] = d / "cut.png"
    files["cutpng"].write_bytes(files["png"].read_bytes()[:-5000])
    files["corrupt"] = d / "corrupt.jpg"
    mid = len(data) // 2
    files["corrupt"].write_bytes(data[:mid] + b"\xff\xd0" * 200 + data[mid + 400:])
    files["grey"] = d / "grey.png"
    cv2.imwrite(str(files["grey"]), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    files["greyjpg"] = d / "grey.jpg"
    cv2.imwrite(str(files["greyjpg"]), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    files["text"] = d / "notes.jpg"
    files["text"].write_text("not an image")
    return files


@pytest.mark.parametrize("name,reason", [
    ("cut", "corrupt image (the JPEG is cut short)"),
    ("cutpng", "corrupt image"),
    ("corrupt", "corrupt image"),
    ("grey", "not a colour image"),
    ("greyjpg", "not a colour image"),
    ("text", "not a PNG or JPEG"),
])
def test_pibg_read_names_a_bad_image_file(frame_files: dict[str, Path], name: str,
                                          reason: str, capsys):
    code = main(["read", str(frame_files[name]), "--corners", "10,10;100,10;100,100;10,100"])
    err = capsys.readouterr().err
    assert code == 2 and reason in err and "over the board" not in err


def test_good_files_still_load(frame_files: dict[str, Path]):
    for kind in ("png", "jpg"):
        assert load_image(frame_files[kind]).shape == (960, 1280, 3)


def test_a_large_jpeg_is_scaled_while_decoding_and_a_large_png_refused(
        frame_files: dict[str, Path]):
    img = load_image(frame_files["jpg"], max_pixels=400 * 300)
    assert img.shape == (240, 320, 3)  # 1/4: the first scale that fits
    with pytest.raises(ImageFileError, match="too large"):
        load_image(frame_files["png"], max_pixels=400 * 300)


def _huge_png(path: Path, side: int) -> None:
    """A valid all-black side x side RGB PNG, written row by row (a few hundred KB)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    comp = zlib.compressobj(9)
    row = b"\x00" * (1 + 3 * side)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" +
                     chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
                     chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def test_a_20000_pixel_square_png_is_refused_within_the_memory_budget(tmp_path: Path):
    big = tmp_path / "big.png"
    _huge_png(big, 20000)
    # the peak of this process's own memory (VmHWM): getrusage's ru_maxrss keeps the peak of
    # the process it was forked from across exec, a whole pytest run's
    code = ("import re, sys\n"
            "from pibg.__main__ import main\n"
            "rc = main(['read', sys.argv[1], '--corners', '10,10;100,10;100,100;10,100'])\n"
            "status = open('/proc/self/status').read()\n"
            "print(int(re.search(r'VmHWM:\\s+(\\d+)', status).group(1)) // 1024)\n"
            "sys.exit(rc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(big)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 2 and "too large (20000x20000" in done.stderr
    assert int(done.stdout.split()[-1]) < 150  # MB, the whole process
