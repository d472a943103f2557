"""A stand-in for the Pi service in a child process (killed with SIGKILL by the test):
``pibg.app.run`` with a scripted table for a camera and perfect readings for vision."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pibg.app import demo_events, run
from pibg.camera.base import EndOfFrames
from pibg.events import Moved, Rolled
from pibg.journal import read_events
from pibg.match import effective_events
from pibg.script import ButtonPress, Mishaps, Scene, observe_exact, table_script


class Rig:
    """A stand-in rig: frames are scenes (or images); presses come in order between them;
    what it is asked to show is kept in ``shown``."""

    def __init__(self, items: list, delay: float = 0.0, shown: list | None = None) -> None:
        self.items, self.delay, self.pending = list(items), delay, []
        self.shown = shown if shown is not None else []

    def __enter__(self) -> Rig:
        return self

    def __exit__(self, *exc: object) -> None:
        print("rig closed", flush=True)

    def read_frame(self, timeout: float = 1.0):
        time.sleep(self.delay)
        if self.items and isinstance(self.items[0], ButtonPress):
            self.pending.append(self.items.pop(0))
            return None  # no frame this turn: the loop handles the press first
        if not self.items:
            raise EndOfFrames("no more frames")
        return self.items.pop(0)

    def button_events(self) -> list:
        out = [Ev(p.button, p.long) for p in self.pending]
        self.pending.clear()
        return out

    def show(self, effects: object) -> None:
        self.shown.append(effects)

    def tick(self) -> None:
        pass


class Ev:
    def __init__(self, button: str, long: bool) -> None:
        self.at, self.referee_button, self.long = 0.0, button, long


class Exact:
    calibration = None

    def observe(self, scene: object):
        return observe_exact(scene)  # type: ignore[arg-type]


def frames(moves_done: int = 0, rolled: bool = False) -> list:
    """The table's scenes, each seen twice. After a restart (``moves_done`` plays recorded,
    and a roll after them if ``rolled``) the table goes on from the board as it stands: the
    scene after the last recorded play, or the dice of the recorded roll still down.
    (Replaying from the start would show positions that recur across games, like the board
    after an opening 3-1, which the resumed referee would rightly take for its own.)"""
    script = table_script(demo_events(), Mishaps(illegal=0.1, seed=5))
    if moves_done:
        seen = 0
        for i, a in enumerate(script):
            if isinstance(a, Scene) and a.kind == "moved":
                seen += 1
                if seen == moves_done:
                    script = script[i:]
                    break
        if rolled:
            script = script[next(i for i, a in enumerate(script)
                                 if isinstance(a, Scene) and a.kind == "roll"):]
    return [x for a in script for x in ((a,) if isinstance(a, ButtonPress) else (a, a))]


def _recorded(config: Path) -> tuple[int, bool]:
    """How many plays the journal holds, and whether a roll was recorded after them."""
    from pibg.config import load_config

    journals = list(Path(load_config(config).records.directory).glob("*/match.jsonl"))
    if not journals:
        return 0, False
    events = [e for e in effective_events(read_events(journals[0]))
              if isinstance(e, (Moved, Rolled))]
    return (sum(isinstance(e, Moved) for e in events),
            bool(events) and isinstance(events[-1], Rolled))


if __name__ == "__main__":
    config, delay = Path(sys.argv[1]), float(sys.argv[2])
    done, rolled = _recorded(config) if sys.argv[3:] == ["--resume"] else (0, False)
    run(config, printer=lambda line: print(line, flush=True),
        vision_factory=lambda _p: Exact(),
        rig_factory=lambda *_a, **_k: Rig(frames(done, rolled), delay))
