"""A stand-in for the Pi service in a child process (killed with SIGKILL by the test):
``pibg.app.run`` with a scripted table for a camera and perfect readings for vision."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pibg.app import demo_events, run
from pibg.camera.base import EndOfFrames
from pibg.script import ButtonPress, Mishaps, observe_exact, table_script


class Rig:
    def __init__(self, items: list, delay: float) -> None:
        self.items, self.delay, self.pending = list(items), delay, []

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def read_frame(self, timeout: float = 1.0):
        time.sleep(self.delay)
        if self.items and isinstance(self.items[0], ButtonPress):
            self.pending.append(self.items.pop(0))
            return None
        if not self.items:
            raise EndOfFrames("no more frames")
        return self.items.pop(0)

    def button_events(self) -> list:
        out = [Ev(p.button, p.long) for p in self.pending]
        self.pending.clear()
        return out

    def show(self, effects: object) -> None:
        pass

    def tick(self) -> None:
        pass


class Ev:
    def __init__(self, button: str, long: bool) -> None:
        self.at, self.referee_button, self.long = 0.0, button, long


class Exact:
    calibration = None

    def observe(self, scene: object):
        return observe_exact(scene)  # type: ignore[arg-type]


def frames() -> list:
    script = table_script(demo_events(), Mishaps(illegal=0.1, seed=5))
    return [x for a in script for x in ((a,) if isinstance(a, ButtonPress) else (a, a))]


if __name__ == "__main__":
    config, delay = Path(sys.argv[1]), float(sys.argv[2])
    run(config, printer=lambda line: print(line, flush=True),
        vision_factory=lambda _p: Exact(),
        rig_factory=lambda *_a, **_k: Rig(frames(), delay))
