# Types for pico_protocol.py, which stays annotation-free so that it runs on MicroPython.

PROTO: int
FW: str
N_LEDS: int
ROWS: int
COLS: int
MAX_BRIGHTNESS: int
MAX_LINE: int
OFFLINE_MS: int
ANIMATIONS: tuple[str, ...]
ERR_UNKNOWN: int
ERR_ARGS: int
ERR_RANGE: int

def crc16(data: bytes | bytearray) -> int: ...
def encode(seq: int, cmd: str, args: str = "") -> bytes: ...
def decode(line: bytes | str) -> tuple[int, str, str] | None: ...
def printable(text: str, width: int = ...) -> str: ...

class Device:
    n_leds: int
    fw: str
    leds: bytearray
    blink_mask: int
    blink_ms: int
    brightness: int
    anim: str
    text: list[str]
    leds_dirty: bool
    text_dirty: bool
    last_seq: int
    last_reply: bytes
    last_rx_ms: int | None
    commands: int
    def __init__(self, n_leds: int = ..., rows: int = ..., fw: str = ...) -> None: ...
    def boot_event(self) -> bytes: ...
    def button_event(self, n: int, what: str) -> bytes: ...
    def offline(self, now_ms: int) -> bool: ...
    def colour(self, i: int, now_ms: int) -> tuple[int, int, int]: ...
    def handle(self, line: bytes, now_ms: int = 0) -> bytes | None: ...
