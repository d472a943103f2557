# ruff: noqa: I001
# pibg Pico firmware (MicroPython >= 1.20 on a Raspberry Pi Pico / Pico W / Pico 2).
#
# Drives the 28-LED WS2812 strip and the 128x64 SSD1306 OLED for pibg, talking to the
# Raspberry Pi over the Pico's USB serial (the REPL's stdin/stdout). Wire protocol and command
# interpreter: protocol.py (the same file the host's tests run). Install: see hardware/README.md
# (mpremote cp hardware/pico/protocol.py hardware/pico/main.py :  then reset).
#
# Keep this file valid MicroPython: no f-strings, no annotations, no typing.
#
# Wiring (see hardware/README.md):
#   GP2  -> 74AHCT125 -> WS2812 DIN (330 ohm series resistor)
#   GP4  -> OLED SDA, GP5 -> OLED SCL (I2C0, 400 kHz), OLED at 0x3C
#   optional buttons: GP10..GP14 to GND (only if BUTTON_PINS is filled in below)

import sys
import time

import machine
import micropython
import neopixel
import select

import protocol

LED_PIN = 2
I2C_SDA = 4
I2C_SCL = 5
OLED_ADDR = 0x3C
# Buttons wired to the Pico instead of the Pi's GPIO: pin numbers, reported as EVT BTN <n>.
BUTTON_PINS = ()
STATUS_LED = protocol.N_LEDS - 1
FRAME_MS = 40


_last_ticks = time.ticks_ms()
_elapsed = 0


def now_ms():
    """Milliseconds since boot that never wrap (ticks_ms wraps after ~12 days on the rp2)."""
    global _last_ticks, _elapsed
    ticks = time.ticks_ms()
    _elapsed += time.ticks_diff(ticks, _last_ticks)
    _last_ticks = ticks
    return _elapsed


class Oled:
    """The SSD1306, or nothing if it is not fitted (the strip still works)."""

    def __init__(self):
        self.dev = None
        try:
            import ssd1306  # installed with: mpremote mip install ssd1306

            i2c = machine.I2C(0, sda=machine.Pin(I2C_SDA), scl=machine.Pin(I2C_SCL), freq=400000)
            if OLED_ADDR in i2c.scan():
                self.dev = ssd1306.SSD1306_I2C(128, 64, i2c, addr=OLED_ADDR)
        except Exception:
            self.dev = None

    def show(self, rows):
        if self.dev is None:
            return
        self.dev.fill(0)
        for i in range(len(rows)):
            # 8-pixel font: rows at y = 0, 16, 32, 48 leave a gap between lines
            self.dev.text(rows[i], 0, i * 16, 1)
        self.dev.show()


def wheel(pos):
    pos = pos % 255
    if pos < 85:
        return (255 - pos * 3, pos * 3, 0)
    if pos < 170:
        pos -= 85
        return (0, 255 - pos * 3, pos * 3)
    pos -= 170
    return (pos * 3, 0, 255 - pos * 3)


def scale(rgb, bri):
    return (rgb[0] * bri // 255, rgb[1] * bri // 255, rgb[2] * bri // 255)


def render_strip(np, dev, t):
    n = dev.n_leds
    if dev.offline(t):
        for i in range(n):
            np[i] = (0, 0, 0)
        # slow amber pulse on the status LED: "the Pi is not talking to me"
        level = (t // 8) % 64
        level = level if level < 32 else 63 - level
        np[STATUS_LED] = (level, level // 2, 0)
    elif dev.anim != "none":
        step = t // 30
        bri = dev.brightness
        for i in range(n):
            if dev.anim == "gammon":
                colour = wheel(i * 9 + step * 4)
            elif dev.anim == "backgammon":
                colour = wheel(step * 12 + i * 30)
            else:  # match: a green sweep
                colour = (0, 255, 0) if (step - i) % n < 6 else (0, 0, 0)
            np[i] = scale(colour, bri)
    else:
        for i in range(n):
            np[i] = dev.colour(i, t)
    np.write()


def main():
    micropython.kbd_intr(-1)  # a stray 0x03 on the wire must not stop the firmware
    dev = protocol.Device()
    np = neopixel.NeoPixel(machine.Pin(LED_PIN), dev.n_leds)
    oled = Oled()
    buttons = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in BUTTON_PINS]
    pressed = [False] * len(buttons)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout
    inp = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    out.write(dev.boot_event())
    buf = b""
    was_offline = None
    last_frame = 0
    while True:
        t = now_ms()
        while poll.poll(0):
            ch = inp.read(1)
            if not ch:
                break
            if isinstance(ch, str):
                ch = ch.encode()
            if ch == b"\n":
                reply = dev.handle(buf + b"\n", t)
                buf = b""
                if reply is not None:
                    out.write(reply)
            elif len(buf) < protocol.MAX_LINE + 8:
                buf += ch
            else:
                buf = b""  # an over-long line is garbage: drop it
        for i in range(len(buttons)):
            down = buttons[i].value() == 0
            if down != pressed[i]:
                pressed[i] = down
                out.write(dev.button_event(i, "DOWN" if down else "UP"))
        offline = dev.offline(t)
        if offline != was_offline or dev.text_dirty:
            oled.show(["pibg offline", "waiting for the Pi"] if offline else dev.text)
            dev.text_dirty = False
            was_offline = offline
        animated = offline or dev.anim != "none" or dev.blink_mask
        if dev.leds_dirty or (animated and t - last_frame >= FRAME_MS):
            render_strip(np, dev, t)
            dev.leds_dirty = False
            last_frame = t
        time.sleep_ms(2)


main()
