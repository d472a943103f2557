"""The live loop (``pibg run``) with a fake rig: killed half-way and restarted, the match
is resumed from its journal and the records come out whole."""

from __future__ import annotations

from pathlib import Path

from service_child import Rig

from pibg.app import demo_events, run
from pibg.effects import Effects
from pibg.events import Moved
from pibg.match import effective_events
from pibg.matfile import read_mat
from pibg.script import ButtonPress, Mishaps, Scene, observe_exact, table_script


class ExactVision:
    calibration = None

    def observe(self, scene: Scene):
        return observe_exact(scene)


def _config(tmp: Path) -> Path:
    cal = tmp / "cal.toml"
    cal.write_text("# stands in for a calibration in this test\n")
    cfg = tmp / "pibg.toml"
    cfg.write_text(f"""
[match]
length = 5
player_white = "erin"
player_black = "judy"
[vision]
calibration = "{cal}"
stable_seconds = 0.0
[records]
directory = "{tmp / 'records'}"
""")
    return cfg


def test_killed_and_restarted_service_finishes_the_match(tmp_path: Path):
    events = demo_events()
    script = table_script(events, Mishaps(illegal=0.1, hand=0.1, seed=3))
    # each scene twice: the first reading starts the stability clock, the second acts on it
    frames = [x for a in script for x in ((a,) if isinstance(a, ButtonPress) else (a, a))]
    half = len(frames) // 2
    shown: list[Effects] = []
    cfg = _config(tmp_path)
    run(cfg, printer=lambda _l: None, vision_factory=lambda _p: ExactVision(),
        rig_factory=lambda *_a, **_k: Rig(frames[:half], shown=shown))
    journal = next((tmp_path / "records").glob("*/match.jsonl"))
    before = journal.read_bytes().count(b"\n")
    # restart: the board still shows the last position, then play goes on
    last_scene = next(a for a in reversed(frames[:half]) if isinstance(a, Scene))
    rest = [last_scene, last_scene, *frames[half:]]
    run(cfg, printer=lambda _l: None, vision_factory=lambda _p: ExactVision(),
        rig_factory=lambda *_a, **_k: Rig(rest, shown=shown))
    folders = list((tmp_path / "records").glob("*/match.jsonl"))
    assert len(folders) == 1  # the same match was resumed, not a new one started
    assert journal.read_bytes().count(b"\n") > before
    mat = read_mat(journal.parent / "match.mat")
    want = [(e.player, e.result) for e in effective_events(events) if isinstance(e, Moved)]
    got = [(e.player, e.result) for e in effective_events(mat) if isinstance(e, Moved)]
    assert got == want
    assert shown and any(line.startswith("erin") for e in shown for line in e.display)


def test_frames_taken_while_things_move_are_not_read(tmp_path: Path):
    """The live loop reads a camera frame only once the view has been still for a few
    frames; frames of a moving hand never reach vision (nor the referee as a reading)."""
    import numpy as np

    from pibg.position import Position

    still = np.full((96, 128, 3), 90, np.uint8)
    rng = np.random.default_rng(1)
    moving = [rng.integers(0, 255, (96, 128, 3), dtype=np.uint8) for _ in range(4)]
    frames = [still] * 5 + moving + [still] * 5
    read: list[int] = []

    class CountingVision:
        calibration = None

        def observe(self, frame):
            read.append(int(frame.mean()))
            return observe_exact(Scene.of("start", Position.start()))

    run(_config(tmp_path), printer=lambda _l: None, vision_factory=lambda _p: CountingVision(),
        rig_factory=lambda *_a, **_k: Rig(frames))
    # the first 2 still frames settle the detector (3 quiet frames in a row), 3 are read;
    # the 4 moving frames are not, nor the 3 still frames after them that settle it again
    assert read == [90] * 3 + [90] * 2
