"""Readings of one still board weighed together (pibg.fusion), and the referee using them."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as hs

from pibg.events import IllegalFlagged, Moved, Rolled
from pibg.fusion import Pending, fuse, fuse_region, same_scene
from pibg.observation import BoardObservation, CubeRead, DieRead, RegionRead
from pibg.position import Position
from pibg.referee import Frame, Mode, step
from pibg.rules import resolve
from pibg.script import Scene, observe_exact
from tests.test_referee import _turn_state

START = Position.start()


def _obs(pos: Position = START, dice: tuple[DieRead, ...] = (), **regions: RegionRead
         ) -> BoardObservation:
    o = observe_exact(Scene.of("x", pos))
    pts = list(o.points)
    for name, r in regions.items():
        pts[int(name[1:]) - 1] = r
    return BoardObservation(tuple(pts), o.bar_white, o.bar_black, o.off_white, o.off_black,
                            dice, o.cube)


def test_geometric_mean_not_product():
    a = RegionRead.from_mapping({2: 0.8, 3: 0.2})
    fused = fuse_region(a, 1, a)
    # the same reading twice is exactly as sure as once (frames are not independent)
    assert fused.count == 2 and math.isclose(fused.confidence, 0.8, rel_tol=1e-9)


def test_flicker_settles_on_what_most_frames_say():
    two = RegionRead.from_mapping({2: 0.7, 3: 0.3})
    three = RegionRead.from_mapping({3: 0.6, 2: 0.4})
    r, n = two, 1
    for new in (three, two, two):
        r, n = fuse_region(r, n, new), n + 1
    assert r.count == 2 and 0.5 < r.confidence < 0.7


@given(hs.lists(hs.floats(0.01, 0.99), min_size=2, max_size=6))
def test_fused_probabilities_sum_to_one(ps: list[float]):
    r, n = RegionRead.from_mapping({1: ps[0], 2: 1 - ps[0]}), 1
    for p in ps[1:]:
        r, n = fuse_region(r, n, RegionRead.from_mapping({1: p, 4: 1 - p})), n + 1
    assert math.isclose(sum(p for _, p in r.likelihoods), 1.0, rel_tol=1e-6)
    assert r.floor < min(p for _, p in r.likelihoods) or len(r.likelihoods) == 3


def test_a_sure_change_is_a_new_scene():
    p = Pending.first(_obs())
    assert same_scene(p, _obs(p6=RegionRead.from_mapping({5: 0.6, 4: 0.4})))
    assert not same_scene(p, _obs(p6=RegionRead.certain(4)))


def test_dice_tracked_by_place_and_voted():
    d = (DieRead(5, 700, 480, True, 0.9), DieRead(3, 780, 480, True, 0.9))
    p = Pending.first(_obs(dice=d))
    misread = (DieRead(6, 702, 481, True, 0.4), DieRead(3, 779, 480, True, 0.9))
    assert same_scene(p, _obs(dice=misread))
    p = fuse(p, _obs(dice=misread))
    p = fuse(p, _obs(dice=misread))
    assert sorted(x.value for x in p.obs.dice) == [3, 5]  # 0.9 outweighs 2 x 0.4
    moved = (DieRead(5, 760, 300, True), DieRead(3, 780, 480, True))
    assert not same_scene(p, _obs(dice=moved))
    assert not same_scene(p, _obs(dice=d[:1]))


def test_cocked_until_most_frames_see_it_flat():
    cocked = (DieRead(4, 700, 480, True), DieRead(2, 780, 480, False))
    flat = (DieRead(4, 700, 480, True), DieRead(2, 780, 480, True))
    p = fuse(Pending.first(_obs(dice=cocked)), _obs(dice=flat))
    assert not all(x.flat for x in p.obs.dice)  # a tie stays cocked
    p = fuse(p, _obs(dice=flat))
    assert all(x.flat for x in p.obs.dice)


def test_cube_moving_is_a_new_scene():
    a = BoardObservation.exact(START.signed(), cube=CubeRead(1, "center"))
    b = BoardObservation.exact(START.signed(), cube=CubeRead(2, "black"))
    assert not same_scene(Pending.first(a), b)


def test_referee_outvotes_one_misread_frame():
    """One frame misreads a point with some confidence; the frames around it read it right.
    Without fusion the held misread would be judged; with it the legal play is recorded."""
    st, t = _turn_state((3, 1))
    good = resolve(START, (3, 1), "8/5 6/5").result
    right = observe_exact(Scene.of("x", good))
    pts = list(right.points)
    pts[4] = RegionRead.from_mapping({0: 0.8, 2: 0.2})  # the 5-point read as empty
    wrong = BoardObservation(tuple(pts), right.bar_white, right.bar_black, right.off_white,
                             right.off_black, (), right.cube)
    evs = []
    for dt, obs in ((0.0, right), (0.4, wrong), (0.8, right), (1.2, right)):
        res = step(st, Frame(t + dt, obs))
        st = res.state
        evs += res.events
    assert st.mode is Mode.TO_ROLL
    assert [str(e.play) for e in evs if isinstance(e, Moved)] == ["8/5 6/5"]
    assert not any(isinstance(e, IllegalFlagged) for e in evs)


def test_referee_roll_voted_over_frames():
    """The roll is read from the frames of the dice at rest, not from one frame."""
    from pibg.events import MatchSettings
    from pibg.referee import RefereeConfig, new_match

    st = new_match(MatchSettings(length=3), RefereeConfig(stable_seconds=1.0)).state
    start = observe_exact(Scene.of("start", START))
    for dt in (0, 1.1):
        st = step(st, Frame(dt, start)).state
    good = (DieRead(5, 700, 480, True, 0.9), DieRead(3, 780, 480, True, 0.9))
    bad = (DieRead(6, 701, 480, True, 0.4), DieRead(3, 780, 481, True, 0.9))
    frames = [good, bad, good, bad, good]
    evs = []
    for i, dice in enumerate(frames):
        obs = BoardObservation.exact(START.signed(), dice=dice)
        res = step(st, Frame(3 + 0.3 * i, obs))
        st = res.state
        evs += res.events
    assert st.mode is Mode.MOVING and st.dice is not None
    assert sorted((st.dice.a, st.dice.b)) == [3, 5]
    assert not any(isinstance(e, Rolled) for e in evs)  # the opening roll waits for the move
