"""End to end with the camera in the loop: synthetic frames (pibg.sim) read by the vision
stage and refereed. The photoreal game of ``../shared/renders/game`` is measured by
``benchmarks/replay_renders.py`` (its dice are not read well enough yet to pass).

Slow (a few hundred frames each), so a few matches here; the golden matches all run through
the referee in ``test_replay.py`` with perfect readings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.app import open_replay_source, replay
from pibg.events import IllegalFlagged, Moved
from pibg.match import effective_events
from pibg.matfile import read_mat
from pibg.script import Mishaps, Scene, table_script


def _plays(events) -> list[tuple[str, str]]:
    return [(e.player, e.position_id) for e in effective_events(events)
            if isinstance(e, Moved)]


@pytest.mark.slow
def test_demo_match_through_sim_and_vision(tmp_path: Path):
    """The bundled match, rendered with a hand, bumps, an illegal move and cocked dice, read
    by the vision stage: the .mat written has the source's plays and score."""
    source, settings, corners = open_replay_source("sim")
    assert settings is not None
    res = replay(source, tmp_path, settings, corners=corners)
    from pibg.app import DEMO_MISHAPS, demo_events

    events = demo_events()
    assert _plays(read_mat(res.mat)) == _plays(events)
    planted = [a for a in table_script(events, DEMO_MISHAPS)
               if isinstance(a, Scene) and a.kind == "illegal"]
    assert sum(isinstance(e, IllegalFlagged) for e in res.state.events) == len(planted)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["m005_3pt.mat", "m010_3pt.mat"])
def test_golden_matches_through_sim_and_vision(shared, tmp_path: Path, name: str):
    path = shared("golden", "matches", name)
    source, settings, corners = open_replay_source(
        f"sim:{path}", mishaps=Mishaps(illegal=0.05, hand=0.1, bump=0.03, seed=9))
    assert settings is not None
    res = replay(source, tmp_path, settings, corners=corners)
    assert _plays(read_mat(res.mat)) == _plays(read_mat(path))
