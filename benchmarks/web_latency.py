"""Web page timings: from ``LiveView.update(step)`` to the update being seen.

Feeds the steps of a replayed match (the bundled demo, perfect readings) into a
:class:`~pibg.web.LiveView` served on 127.0.0.1 and prints a markdown table of:

* ``update()`` on the caller's thread (what the main loop pays per step);
* building the snapshot JSON + board SVG once per change (paid by a server thread);
* encoding a 1280 x 960 camera frame as the page's JPEG with the regions drawn;
* update -> the SSE ``state`` event read by an HTTP client (the push);
* update -> the board redrawn in headless chromium (with ``--browser``: needs Debian's
  chromium and the playwright package; includes Playwright's own round trip).

The issue asks for < 200 ms from the referee's event to the browser.

    python benchmarks/web_latency.py [--steps N] [--browser]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pibg.app import DEMO_MISHAPS, demo_events
from pibg.referee import Step
from pibg.script import drive, table_script
from pibg.web import LiveView, WebServer


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.2f} | {pct(ms, 0.95):.2f} "
            f"| {max(ms):.2f} |")


def match_steps(limit: int) -> list[Step]:
    events = demo_events()
    steps: list[Step] = []
    drive(table_script(events, DEMO_MISHAPS), events[0].settings,  # type: ignore[attr-defined]
          on_step=steps.append)
    return steps[:limit]


class Sse:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port,
                                               timeout=10)
        self.conn.request("GET", "/api/events")
        self.response = self.conn.getresponse()  # keep it: collecting it closes the stream
        self.fp = self.response.fp

    def next_state(self) -> dict[str, Any]:
        event = ""
        while True:
            line = self.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "state":
                data: dict[str, Any] = json.loads(line[6:])
                return data


def sse_latency(steps: list[Step]) -> tuple[list[float], list[float], list[float]]:
    view = LiveView()
    update_t: list[float] = []
    push_t: list[float] = []
    build_t: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, \
            WebServer(view, records_dir=Path(tmp), host="127.0.0.1", port=0) as web:
        client = Sse(web.url)
        client.next_state()
        for step in steps:
            before = view.versions.state
            t0 = time.perf_counter()
            view.update(step)
            t1 = time.perf_counter()
            update_t.append(t1 - t0)
            if view.versions.state == before:
                continue
            snap = client.next_state()
            push_t.append(time.perf_counter() - t0)
            assert snap["version"] >= view.versions.state
        client.conn.close()
    for step in steps[:: max(1, len(steps) // 100)]:
        fresh = LiveView()
        fresh.update(step)
        t0 = time.perf_counter()
        fresh.state_json()
        build_t.append(time.perf_counter() - t0)
    return update_t, build_t, push_t


def jpeg_times(trials: int = 20) -> list[float]:
    from pibg.sim import SimScene, render, sim_corners
    from pibg.vision.geometry import START_POINTS
    from pibg.web.overlay import region_overlay

    frame = render(SimScene(START_POINTS))
    draw = region_overlay(corners=sim_corners().tolist())
    from pibg.observation import BoardObservation

    obs = BoardObservation.exact(START_POINTS)
    view = LiveView()
    view.set_overlay(draw)
    step = match_steps(1)[0]
    out = []
    for _ in range(trials):
        view.update(step, frame.copy(), obs)
        t0 = time.perf_counter()
        view.frame_jpeg()
        out.append(time.perf_counter() - t0)
    return out


def browser_latency(steps: list[Step]) -> list[float]:
    from playwright.sync_api import sync_playwright

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    view = LiveView()
    out: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, \
            WebServer(view, records_dir=Path(tmp), host="127.0.0.1", port=0) as web, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_page()
        page.goto(web.url)
        page.wait_for_function("document.body.dataset.version !== undefined")
        for step in steps:
            before = view.versions.state
            t0 = time.perf_counter()
            view.update(step)
            v = view.versions.state
            if v == before:
                continue
            page.wait_for_function(f"Number(document.body.dataset.version) >= {v}")
            out.append(time.perf_counter() - t0)
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--browser", action="store_true",
                        help="also measure the redraw in headless chromium (Playwright)")
    args = parser.parse_args()
    steps = match_steps(args.steps)
    update_t, build_t, push_t = sse_latency(steps)
    print("| what | n | median ms | p95 ms | max ms |")
    print("| --- | --- | --- | --- | --- |")
    print(row("update() on the main loop", update_t))
    print(row("snapshot JSON + SVG build", build_t))
    print(row("camera JPEG 1280x960 -> 800 wide, overlay", jpeg_times()))
    print(row("update -> SSE state event (HTTP client)", push_t))
    if args.browser:
        print(row("update -> board redrawn in chromium", browser_latency(steps)))


if __name__ == "__main__":
    main()
