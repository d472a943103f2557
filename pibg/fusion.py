"""Many readings of one still board, weighed together into one.

Pure. A camera sees a settled board many times a second, and one frame's misread (a glint on
a checker, a pip lost in noise) should not decide a turn. While the board stays still, the
referee folds each new reading into the ones before it with :func:`fuse`; a reading that
clearly shows something else (:func:`same_scene` is False: a region read confidently as
another count, a die that moved or appeared, the cube that moved) starts a new scene.

Regions are fused by the **geometric mean** of their count likelihoods, not their product:
frames of one scene are not independent (the same light, the same shadow, the same systematic
error), so ten frames must not be ten times as sure as one. A region that flickers between
two counts settles on the count most frames favour; one that every frame misreads stays as
unsure as a single frame says it is, which is what the referee's weighing of legal plays
needs. Dice are tracked by where they lie and their value is voted on, weighted by each
read's confidence; a die that any frame sees cocked counts as cocked until most frames see it
flat. The cube's read is voted on the same way.

>>> from pibg.observation import RegionRead
>>> a = RegionRead.from_mapping({2: 0.9, 3: 0.1})
>>> b = RegionRead.from_mapping({3: 0.6, 2: 0.4})
>>> fuse_region(a, 1, b).count
2
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from pibg.observation import BoardObservation, CubeRead, DieRead, RegionRead

__all__ = ["Pending", "fuse", "fuse_region", "same_scene"]

#: a count read with at least this probability, in the fused reading and in a new frame,
#: that differs between them means the board changed
SURE = 0.9
#: a die that moved more than this many image pixels is another throw (a die is ~30-60 px)
DIE_MOVED_PX = 12.0


def fuse_region(fused: RegionRead, n: int, new: RegionRead) -> RegionRead:
    """``fused`` (the geometric mean of ``n`` readings) with one more reading folded in."""
    counts = {k for k, _ in fused.likelihoods} | {k for k, _ in new.likelihoods}
    logs = {k: (n * fused.log_prob(k) + new.log_prob(k)) / (n + 1) for k in counts}
    floor_log = (n * math.log(fused.floor) + math.log(new.floor)) / (n + 1)
    top = max(logs.values())
    weights = {k: math.exp(v - top) for k, v in logs.items()}
    total = sum(weights.values())
    floor = max(math.exp(floor_log - top) / total, 1e-12)
    return RegionRead.from_mapping({k: w / total for k, w in weights.items()}, floor)


def _regions(obs: BoardObservation) -> tuple[RegionRead, ...]:
    return (*obs.points, obs.bar_white, obs.bar_black, obs.off_white, obs.off_black)


@dataclass(frozen=True, slots=True)
class _DieTrack:
    x: float
    y: float
    votes: tuple[tuple[int, float], ...]  # value -> summed confidence
    flat_votes: int  # frames that saw it flat minus frames that saw it cocked

    frames: int = 1

    def read(self) -> DieRead:
        """The value with the most confidence summed over frames; its confidence is that sum
        over all frames (frames that read another value count as 0)."""
        value, weight = max(self.votes, key=lambda vw: (vw[1], -vw[0]))
        return DieRead(value, self.x, self.y, self.flat_votes > 0, weight / self.frames)

    def add(self, d: DieRead) -> _DieTrack:
        votes = dict(self.votes)
        votes[d.value] = votes.get(d.value, 0.0) + max(d.confidence, 1e-3)
        return _DieTrack(d.x, d.y, tuple(sorted(votes.items())),
                         self.flat_votes + (1 if d.flat else -1), self.frames + 1)


def _track(d: DieRead) -> _DieTrack:
    return _DieTrack(d.x, d.y, ((d.value, max(d.confidence, 1e-3)),), 1 if d.flat else -1)


@dataclass(frozen=True, slots=True)
class Pending:
    """The readings of the scene now in view, weighed together."""

    obs: BoardObservation
    frames: int = 1
    dice: tuple[_DieTrack, ...] = ()
    cube_votes: tuple[tuple[tuple[int, str], float], ...] = ()

    @classmethod
    def first(cls, obs: BoardObservation) -> Pending:
        cube = () if obs.cube is None else (((obs.cube.value, obs.cube.owner),
                                             max(obs.cube.confidence, 1e-3)),)
        return cls(obs, 1, tuple(_track(d) for d in obs.dice), cube)


def _nearest(tracks: tuple[_DieTrack, ...], d: DieRead) -> int | None:
    best, best_i = DIE_MOVED_PX, None
    for i, t in enumerate(tracks):
        dist = math.hypot(t.x - d.x, t.y - d.y)
        if dist <= best:
            best, best_i = dist, i
    return best_i


def same_scene(pending: Pending, obs: BoardObservation) -> bool:
    """Whether ``obs`` shows the scene ``pending`` has been reading (nothing moved)."""
    for old, new in zip(_regions(pending.obs), _regions(obs), strict=True):
        if (old.count != new.count and old.confidence >= SURE and new.confidence >= SURE):
            return False
    if len(obs.dice) != len(pending.dice):
        return False
    if {_nearest(pending.dice, d) for d in obs.dice} != set(range(len(pending.dice))):
        return False
    old_cube, new_cube = pending.obs.cube, obs.cube
    if (old_cube is None) != (new_cube is None):
        return False
    return not (old_cube is not None and new_cube is not None
                and old_cube.owner != new_cube.owner)


def fuse(pending: Pending, obs: BoardObservation) -> Pending:
    """One more reading of the same scene folded in (call :func:`same_scene` first)."""
    n = pending.frames
    old = pending.obs
    regions = [fuse_region(a, n, b) for a, b in zip(_regions(old), _regions(obs), strict=True)]
    tracks = list(pending.dice)
    for d in obs.dice:
        i = _nearest(pending.dice, d)
        if i is not None:
            tracks[i] = tracks[i].add(d)
    votes = dict(pending.cube_votes)
    if obs.cube is not None:
        key = (obs.cube.value, obs.cube.owner)
        votes[key] = votes.get(key, 0.0) + max(obs.cube.confidence, 1e-3)
    cube = old.cube
    if votes and cube is not None:
        (value, _owner), weight = max(votes.items(), key=lambda kv: kv[1])
        cube = CubeRead(value, cube.owner, weight / sum(votes.values()))
    fused = replace(old, points=tuple(regions[:24]), bar_white=regions[24],
                    bar_black=regions[25], off_white=regions[26], off_black=regions[27],
                    dice=tuple(t.read() for t in tracks), cube=cube)
    return Pending(fused, n + 1, tuple(tracks), tuple(votes.items()))
