# A scripted session against the Pico protocol core. Runs unchanged under CPython and
# MicroPython; tests/hw/test_micropython.py compares the two outputs line by line.
import sys

import protocol as p

print(sys.implementation.name in ("cpython", "micropython"))
print(hex(p.crc16(b"123456789")))
d = p.Device()
script = [
    p.encode(1, "HELLO", "1"),
    p.encode(2, "FRAME", "FF0000" + "000000" * 26 + "00FF80"),
    p.encode(2, "FRAME", "FF0000" + "000000" * 26 + "00FF80"),
    p.encode(3, "FRAME", "00"),
    p.encode(4, "LED", "5 0A0B0C"),
    p.encode(5, "LED", "99 000000"),
    p.encode(6, "BRI", "255"),
    p.encode(7, "BLINK", "8000001 300"),
    p.encode(8, "BLINK", "zz 300"),
    p.encode(9, "ANIM", "gammon"),
    p.encode(10, "ANIM", "disco"),
    p.encode(11, "TXT", "0 ILLEGAL MOVE"),
    p.encode(12, "TXT", "1 13/7 needs a 6 *!*"),
    p.encode(13, "TXT", "7 x"),
    p.encode(14, "NOPE"),
    p.encode(15, "PING"),
    p.encode(16, "CLR"),
    b"AT+CGMI\r\n",
    b"garbage without newline",
    p.encode(17, "PING").replace(b"PING", b"PONG"),
    p.encode(0, "EVT", "BOOT 1.0"),
    p.encode(18, "PING").replace(b"\n", b"\r\n"),
]
for i, line in enumerate(script):
    print(i, d.handle(line, 1000 + i))
print(d.boot_event())
print(d.button_event(2, "DOWN"))
print(p.decode(p.encode(9999, "TXT", "3 spaces  inside")))
print(p.printable("caf\xe9 \x01ok", 8))
print(d.offline(2000), d.offline(7100), d.brightness, d.blink_mask, d.anim, d.text)
print([d.colour(i, 0) for i in (0, 5, 27)])
