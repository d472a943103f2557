"""Reading a frame from a file without trusting it: size from the header before decoding.

A 389 KB PNG can hold a 20000 x 20000 image (1.2 GB decoded), and a cut-off or damaged JPEG
decodes to grey blocks that read as "something over the board". :func:`load_image` reads the
PNG or JPEG header first (size, colour or grey), refuses a PNG too large to decode within the
memory budget, scales a large JPEG down while decoding (libjpeg's DCT scaling:
``cv2.IMREAD_REDUCED_COLOR_*`` never holds the full image), and refuses a file that is cut
short or that the decoder reports as corrupt, naming the reason.
"""

from __future__ import annotations

import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from pibg.exc import VisionError
from pibg.vision.geometry import Array

#: The most pixels decoded at once: 4096 x 3072 (12.6 Mpx, 38 MB as BGR), so that reading a
#: frame stays within pibg's 150 MB memory budget with the vision stage's working copies.
MAX_PIXELS = 4096 * 3072

_REDUCED = ((1, cv2.IMREAD_COLOR), (2, cv2.IMREAD_REDUCED_COLOR_2),
            (4, cv2.IMREAD_REDUCED_COLOR_4), (8, cv2.IMREAD_REDUCED_COLOR_8))


class ImageFileError(VisionError, ValueError):
    """An image file that is not a readable colour frame (the message says why)."""


@dataclass(frozen=True, slots=True)
class ImageHeader:
    kind: str  # "png" or "jpeg"
    width: int
    height: int
    colour: bool


def read_header(data: bytes, name: str = "<image>") -> ImageHeader:
    """The size and colour of a PNG or JPEG from its first bytes.

    :raises ImageFileError: not a PNG or JPEG, or a header that does not parse.
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) < 33 or data[12:16] != b"IHDR":
            raise ImageFileError(f"{name}: corrupt image (a PNG without its header)")
        width, height, _depth, ctype = struct.unpack(">IIBB", data[16:26])
        return ImageHeader("png", width, height, ctype in (2, 3, 6))
    if data[:2] == b"\xff\xd8":
        pos = 2
        while pos + 4 <= len(data):
            if data[pos] != 0xFF:
                raise ImageFileError(f"{name}: corrupt image (a JPEG marker is damaged)")
            marker = data[pos + 1]
            if marker == 0xFF:  # fill byte
                pos += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                pos += 2
                continue
            (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                if pos + 10 > len(data):
                    break
                height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
                components = data[pos + 9]
                return ImageHeader("jpeg", width, height, components >= 3)
            pos += 2 + length
        raise ImageFileError(f"{name}: corrupt image (a JPEG without its frame header)")
    raise ImageFileError(f"{name}: not a PNG or JPEG image: save the frame as .png or .jpg")


def load_image(path: str | os.PathLike[str], *, max_pixels: int = MAX_PIXELS) -> Array:
    """A colour frame (BGR) from a PNG or JPEG file, checked before and after decoding.

    A JPEG larger than ``max_pixels`` is decoded at 1/2, 1/4 or 1/8 of its size, whichever
    first fits; a PNG that large is refused (its decoder holds the whole image).

    :raises ImageFileError: missing, not PNG/JPEG, cut short, corrupt, grey, or too large.
    """
    p = Path(path)
    if not p.is_file():
        raise ImageFileError(f"no image at {str(p)!r}: check the path")
    data = p.read_bytes()
    head = read_header(data, str(p))
    if head.width == 0 or head.height == 0:
        raise ImageFileError(f"{p}: corrupt image (it says it is {head.width}x{head.height})")
    if not head.colour:
        raise ImageFileError(f"{p}: not a colour image (it is greyscale): pibg reads the "
                             f"board's colours, so save the camera's frame in colour")
    tail = data[-64 * 1024:]
    if head.kind == "png" and b"IEND" not in data[-32:]:
        raise ImageFileError(f"{p}: corrupt image (the PNG is cut short)")
    if head.kind == "jpeg" and b"\xff\xd9" not in tail:
        raise ImageFileError(f"{p}: corrupt image (the JPEG is cut short)")
    pixels = head.width * head.height
    scale, flag = next(((s, f) for s, f in _REDUCED
                        if pixels <= max_pixels * s * s), (0, 0))
    if scale == 0 or (scale > 1 and head.kind == "png"):
        raise ImageFileError(
            f"{p}: image too large ({head.width}x{head.height}; at most {max_pixels:,} pixels"
            f"{'' if head.kind == 'png' else ' even at 1/8 scale'}): save it smaller")
    buf = np.frombuffer(data, np.uint8)
    del data
    img, complaints = _decode_quietly(buf, flag)
    if img is None:
        raise ImageFileError(f"{p}: corrupt image (the decoder cannot read it)")
    if complaints:
        raise ImageFileError(f"{p}: corrupt image ({complaints})")
    sample = img[::8, ::8] if img.ndim == 3 else None
    if sample is None or img.shape[2] != 3 or (
            np.array_equal(sample[..., 0], sample[..., 1]) and
            np.array_equal(sample[..., 1], sample[..., 2])):
        raise ImageFileError(f"{p}: not a colour image (every pixel is grey): pibg reads the "
                             f"board's colours, so save the camera's frame in colour")
    return np.asarray(img)


def _decode_quietly(buf: Array, flag: int) -> tuple[Array | None, str]:
    """Decode, capturing what libjpeg/libpng write to stderr (their only word on a corrupt
    file that still decodes: "Corrupt JPEG data", "Premature end of JPEG file")."""
    with tempfile.TemporaryFile() as err:
        saved = os.dup(2)
        try:
            os.dup2(err.fileno(), 2)
            img = cv2.imdecode(buf, flag)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        said = err.read(4096).decode("utf-8", "replace")
    bad = [line.strip() for line in said.splitlines()
           if any(k in line for k in ("Corrupt", "Premature end", "error", "Error"))]
    return img, "; ".join(bad)[:200]
