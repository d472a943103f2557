# ruff: noqa: UP031
"""The pibg <-> Pico line protocol: framing, CRC and the device's command core.

This one file runs in two places, so it must stay valid CPython *and* MicroPython:
on the Pico (copied there as ``protocol.py`` by ``hardware/pico/flash.sh``; the firmware
``hardware/pico/main.py`` imports it) and on the host, where ``pibg.hw.link`` uses the framing and
``pibg.hw.mock.FakePico`` runs :class:`Device` on a pty. ``hardware/pico/protocol.py`` is a
symlink to this file. Hence: no ``typing`` imports, no annotations, no f-strings, no
``dataclasses``, only ``%`` formatting and built-ins MicroPython has (no ``binascii.crc_hqx`` there:
:func:`crc16` is written out and tested against it on CPython).

Frame (ASCII, one line, at most :data:`MAX_LINE` bytes; a trailing CR is tolerated)::

    <seq> SP <CMD> [SP <args>] "*" <CRC16 as 4 upper-case hex digits> "\\n"

``seq`` is 1..9999 for host commands, echoed in the reply; 0 marks an unsolicited device event.
The CRC is CRC-16/CCITT-FALSE over everything before the last ``*``.

Host -> device (every command describes *whole* state, so repeating one is harmless)::

    HELLO <proto>              -> OK HELLO pibg-pico <fw> leds=<n> rows=<r> maxbri=<b>
    FRAME <6*n hex digits>     -> OK              all LED colours RRGGBB, before brightness
    LED <i> <RRGGBB>           -> OK              one LED
    CLR                        -> OK              all LEDs off, no blinking, no animation
    BRI <0-255>                -> OK BRI <used>   capped at MAX_BRIGHTNESS
    BLINK <mask hex> <ms>      -> OK              the set of LEDs that blink, half-period in ms
    ANIM <name>                -> OK              none | gammon | backgammon | match
    TXT <row> [text]           -> OK              one display row (printable ASCII)
    PING                       -> OK              heartbeat; also feeds the device's offline timer

Device -> host: ``<seq> OK [info]``, ``<seq> ERR <code> <message>``, and events
``0 EVT BOOT <fw>`` (after reset: the host re-sends everything) and ``0 EVT BTN <n> DOWN|UP``.

Lines that do not parse or fail the CRC are ignored, never answered (the host's retry covers
them; this also defeats ModemManager ``AT`` probes and MicroPython tracebacks on the wire).
A repeated ``seq`` is answered from the last reply without running the command again.
"""

PROTO = 1
FW = "1.0"
N_LEDS = 28
ROWS = 4
COLS = 21
MAX_BRIGHTNESS = 64
MAX_LINE = 255
OFFLINE_MS = 5000
ANIMATIONS = ("none", "gammon", "backgammon", "match")

ERR_UNKNOWN = 1
ERR_ARGS = 2
ERR_RANGE = 3


def crc16(data):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); equals ``binascii.crc_hqx(data, 0xFFFF)``."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def encode(seq, cmd, args=""):
    """One frame as bytes: ``encode(7, "PING")`` -> ``b"7 PING*XXXX\\n"``."""
    body = "%d %s" % (seq, cmd)
    if args:
        body = body + " " + args
    raw = body.encode()
    return raw + ("*%04X\n" % crc16(raw)).encode()


def decode(line):
    """``(seq, cmd, args)`` from one received line, or ``None`` if it is not a valid frame."""
    if isinstance(line, str):
        line = line.encode()
    line = line.rstrip(b"\r\n")
    if not line or len(line) > MAX_LINE:
        return None
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        return None
    body = line[:star]
    try:
        want = int(line[star + 1 :].decode(), 16)
        text = body.decode()
    except (ValueError, UnicodeError):
        return None
    if crc16(body) != want:
        return None
    parts = text.split(" ", 2)
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1]:
        return None
    args = parts[2] if len(parts) > 2 else ""
    return int(parts[0]), parts[1], args


def printable(text, width=COLS):
    """Text reduced to what the display can show: printable ASCII, at most ``width`` chars."""
    out = []
    for ch in text:
        out.append(ch if " " <= ch <= "~" else "?")
    return "".join(out)[:width]


class Device:
    """The Pico's command interpreter, free of hardware: the firmware renders its state.

    ``handle(line, now_ms)`` returns the reply bytes (or ``None`` for an ignored line) and marks
    ``leds_dirty`` / ``text_dirty`` for the firmware's render loop.
    """

    def __init__(self, n_leds=N_LEDS, rows=ROWS, fw=FW):
        self.n_leds = n_leds
        self.fw = fw
        self.leds = bytearray(3 * n_leds)
        self.blink_mask = 0
        self.blink_ms = 400
        self.brightness = MAX_BRIGHTNESS // 2
        self.anim = "none"
        self.text = [""] * rows
        self.leds_dirty = True
        self.text_dirty = True
        self.last_seq = -1
        self.last_reply = b""
        self.last_rx_ms = None
        self.commands = 0

    def boot_event(self):
        return encode(0, "EVT", "BOOT " + self.fw)

    def button_event(self, n, what):
        return encode(0, "EVT", "BTN %d %s" % (n, what))

    def offline(self, now_ms):
        """True when the host has been silent for :data:`OFFLINE_MS` (or never spoke)."""
        if self.last_rx_ms is None:
            return True
        return now_ms - self.last_rx_ms > OFFLINE_MS

    def colour(self, i, now_ms):
        """LED ``i`` as (r, g, b) after brightness and blinking: what the strip should show."""
        if self.blink_mask & (1 << i) and (now_ms // self.blink_ms) % 2:
            return (0, 0, 0)
        b = self.brightness
        k = 3 * i
        return (self.leds[k] * b // 255, self.leds[k + 1] * b // 255, self.leds[k + 2] * b // 255)

    def handle(self, line, now_ms=0):
        frame = decode(line)
        if frame is None:
            return None
        seq, cmd, args = frame
        if seq == 0:
            return None
        self.last_rx_ms = now_ms
        if seq == self.last_seq and self.last_reply:
            return self.last_reply
        reply = self._run(cmd, args)
        self.commands += 1
        self.last_seq = seq
        self.last_reply = encode(seq, reply)
        return self.last_reply

    def _run(self, cmd, args):
        try:
            method = getattr(self, "_cmd_" + cmd)
        except AttributeError:
            return "ERR %d unknown command %s" % (ERR_UNKNOWN, printable(cmd, 16))
        try:
            return method(args)
        except (ValueError, IndexError):
            return "ERR %d bad arguments for %s" % (ERR_ARGS, cmd)

    def _cmd_HELLO(self, args):
        return "OK HELLO pibg-pico %s leds=%d rows=%d maxbri=%d" % (
            self.fw,
            self.n_leds,
            len(self.text),
            MAX_BRIGHTNESS,
        )

    def _cmd_PING(self, args):
        return "OK"

    def _cmd_FRAME(self, args):
        if len(args) != 6 * self.n_leds:
            return "ERR %d FRAME needs %d hex digits" % (ERR_ARGS, 6 * self.n_leds)
        data = bytearray(3 * self.n_leds)
        for k in range(3 * self.n_leds):
            data[k] = int(args[2 * k : 2 * k + 2], 16)
        if data != self.leds:
            self.leds = data
            self.leds_dirty = True
        return "OK"

    def _cmd_LED(self, args):
        idx, rgb = args.split(" ")
        i = int(idx)
        if not 0 <= i < self.n_leds or len(rgb) != 6:
            return "ERR %d LED index 0..%d and RRGGBB" % (ERR_RANGE, self.n_leds - 1)
        for c in range(3):
            self.leds[3 * i + c] = int(rgb[2 * c : 2 * c + 2], 16)
        self.leds_dirty = True
        return "OK"

    def _cmd_CLR(self, args):
        self.leds = bytearray(3 * self.n_leds)
        self.blink_mask = 0
        self.anim = "none"
        self.leds_dirty = True
        return "OK"

    def _cmd_BRI(self, args):
        value = int(args)
        if not 0 <= value <= 255:
            return "ERR %d BRI 0..255" % ERR_RANGE
        value = min(value, MAX_BRIGHTNESS)
        if value != self.brightness:
            self.brightness = value
            self.leds_dirty = True
        return "OK BRI %d" % value

    def _cmd_BLINK(self, args):
        mask_hex, ms = args.split(" ")
        mask = int(mask_hex, 16)
        period = int(ms)
        if mask >> self.n_leds or not 50 <= period <= 5000:
            return "ERR %d BLINK mask of %d LEDs, 50..5000 ms" % (ERR_RANGE, self.n_leds)
        if mask != self.blink_mask or period != self.blink_ms:
            self.blink_mask = mask
            self.blink_ms = period
            self.leds_dirty = True
        return "OK"

    def _cmd_ANIM(self, args):
        if args not in ANIMATIONS:
            return "ERR %d ANIM one of %s" % (ERR_RANGE, " ".join(ANIMATIONS))
        if args != self.anim:
            self.anim = args
            self.leds_dirty = True
        return "OK"

    def _cmd_TXT(self, args):
        parts = args.split(" ", 1)
        row = int(parts[0])
        if not 0 <= row < len(self.text):
            return "ERR %d TXT row 0..%d" % (ERR_RANGE, len(self.text) - 1)
        text = printable(parts[1] if len(parts) > 1 else "")
        if text != self.text[row]:
            self.text[row] = text
            self.text_dirty = True
        return "OK"
