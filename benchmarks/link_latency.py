"""Pico link timings over a pty pair with the fake Pico (the real protocol core, no hardware).

Prints a markdown table: one command's round trip (stop-and-wait), the time from
``show(effects)`` to the device showing it (a full frame plus the display rows), and the
time from plugging the Pico back in to the display being restored (the issue asks for < 5 s).
On a real Pico add the USB latency (~1 ms per command at full speed).

    python benchmarks/link_latency.py [--trials N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from pibg.effects import RED, Effects
from pibg.hw.display import PicoDisplay
from pibg.hw.leds import PicoLedStrip
from pibg.hw.link import Link, PicoLink, SerialTransport
from pibg.hw.mock import FakePico


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.2f} | {pct(ms, 0.99):.2f} "
            f"| {max(ms):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakePico(tmp) as pico:
        transport = SerialTransport(pico.port)
        link = Link(transport)
        link.hello()
        ping = []
        for _ in range(args.trials):
            t0 = time.perf_counter()
            link.request("PING")
            ping.append(time.perf_counter() - t0)
        transport.close()

        show, replug = [], []
        with PicoLink(pico.port, heartbeat=1.0) as plink:
            leds, display = PicoLedStrip(plink), PicoDisplay(plink)
            plink.wait_synced(5)
            for i in range(args.trials // 4):
                fx = Effects.build({i % 24: RED}, display=["ILLEGAL MOVE", f"try {i}"])
                t0 = time.perf_counter()
                leds.show(fx)
                display.show(fx)
                plink.wait_synced(5)
                show.append(time.perf_counter() - t0)
            for _ in range(max(3, args.trials // 50)):
                pico.unplug()
                while plink.connected:
                    time.sleep(0.01)
                time.sleep(0.5)  # unplugged for a while: the back-off has grown
                pico.replug()
                t0 = time.perf_counter()
                plink.wait_synced(10)
                replug.append(time.perf_counter() - t0)
    print("| what | n | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    print(row("PING round trip", ping))
    print(row("show() to device synced (FRAME + 2 TXT)", show))
    print(row("replug to display restored", replug))


if __name__ == "__main__":
    main()
