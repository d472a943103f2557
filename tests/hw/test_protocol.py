"""The shared wire protocol: framing, CRC, the device core, MicroPython compatibility."""

from __future__ import annotations

import ast
import binascii
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pibg.hw import pico_protocol as proto

ROOT = Path(__file__).resolve().parents[2]


def test_crc_check_value_and_binascii() -> None:
    assert proto.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=300))
def test_crc_equals_binascii_crc_hqx(data: bytes) -> None:
    assert proto.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@given(
    st.integers(0, 9999),
    st.sampled_from(["PING", "FRAME", "TXT", "OK", "ERR"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=150),
)
def test_encode_decode_round_trip(seq: int, cmd: str, args: str) -> None:
    args = args.strip()
    frame = proto.encode(seq, cmd, args)
    assert frame.endswith(b"\n")
    decoded = proto.decode(frame)
    assert decoded is not None
    assert decoded[0] == seq and decoded[1] == cmd
    assert decoded[2] == (args.split(" ", 0)[0] if args else "")


def test_decode_tolerates_crlf_and_rejects_garbage() -> None:
    good = proto.encode(5, "PING")
    assert proto.decode(good.replace(b"\n", b"\r\n")) == (5, "PING", "")
    corrupted = good.replace(b"PING", b"PINH")
    assert proto.decode(corrupted) is None
    for junk in (
        b"AT+CGMI\r\n",
        b"\n",
        b"Traceback (most recent call last):\n",
        b"*0000\n",
        b"x PING*1234\n",
        b"\xff\xfe*12\n",
        b"1 PING*ZZZZ\n",
        b"A" * 400 + b"\n",
    ):
        assert proto.decode(junk) is None


def test_device_hello_frame_and_errors() -> None:
    dev = proto.Device()
    assert proto.decode(dev.handle(proto.encode(1, "HELLO", "1"))) == (
        1,
        "OK",
        "HELLO pibg-pico 1.0 leds=28 rows=4 maxbri=64",
    )
    frame = "FF0000" + "000000" * 26 + "00FF00"
    assert proto.decode(dev.handle(proto.encode(2, "FRAME", frame)))[1] == "OK"
    assert dev.leds[:3] == b"\xff\x00\x00" and dev.leds[-3:] == b"\x00\xff\x00"
    assert proto.decode(dev.handle(proto.encode(3, "FRAME", "00")))[1:] == (
        "ERR",
        "2 FRAME needs 168 hex digits",
    )
    assert proto.decode(dev.handle(proto.encode(4, "LED", "28 FFFFFF")))[1] == "ERR"
    assert proto.decode(dev.handle(proto.encode(5, "NOPE")))[2].startswith("1 unknown")
    assert proto.decode(dev.handle(proto.encode(6, "BRI", "255")))[2] == "BRI 64"
    assert dev.brightness == proto.MAX_BRIGHTNESS
    assert proto.decode(dev.handle(proto.encode(7, "BLINK", "8000001 300")))[1] == "OK"
    assert dev.blink_mask == (1 << 27) | 1
    assert proto.decode(dev.handle(proto.encode(8, "TXT", "1 ILLEGAL *MOVE*")))[1] == "OK"
    assert dev.text[1] == "ILLEGAL *MOVE*"
    assert proto.decode(dev.handle(proto.encode(9, "ANIM", "gammon")))[1] == "OK"
    assert proto.decode(dev.handle(proto.encode(10, "TXT", "9 x")))[1] == "ERR"
    assert dev.handle(b"AT\r\n") is None


def test_device_repeated_seq_is_answered_from_cache() -> None:
    dev = proto.Device()
    first = dev.handle(proto.encode(7, "LED", "0 010203"))
    dev.leds[0] = 99  # if the command ran again it would overwrite this
    assert dev.handle(proto.encode(7, "LED", "0 010203")) == first
    assert dev.leds[0] == 99 and dev.commands == 1


def test_device_offline_timer_and_colours() -> None:
    dev = proto.Device()
    assert dev.offline(0)
    dev.handle(proto.encode(1, "FRAME", "FF8000" + "000000" * 27), now_ms=1000)
    dev.handle(proto.encode(2, "BRI", "64"), now_ms=1000)
    assert not dev.offline(5000) and dev.offline(6001)
    assert dev.colour(0, 0) == (64, 32, 0)
    dev.handle(proto.encode(3, "BLINK", "1 400"), now_ms=1000)
    assert dev.colour(0, 0) == (64, 32, 0) and dev.colour(0, 400) == (0, 0, 0)


def test_hardware_protocol_is_the_package_module() -> None:
    link = ROOT / "hardware" / "pico" / "protocol.py"
    assert link.resolve() == Path(proto.__file__).resolve()


def _micropython_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    problems = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.JoinedStr):
            problems.append(f"{where}: f-string")
        elif isinstance(node, ast.AnnAssign) or (
            isinstance(node, ast.FunctionDef)
            and (node.returns or any(a.annotation for a in node.args.args))
        ):
            problems.append(f"{where}: annotation")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            bad = [n for n in names if n in ("typing", "dataclasses", "__future__", "enum")]
            if bad:
                problems.append(f"{where}: imports {bad}")
        elif isinstance(node, ast.NamedExpr | ast.Match):
            problems.append(f"{where}: {type(node).__name__}")
    return problems


def test_protocol_and_firmware_avoid_what_micropython_lacks() -> None:
    for name in ("protocol.py", "main.py"):
        assert _micropython_problems(ROOT / "hardware" / "pico" / name) == []
