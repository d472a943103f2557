"""The batched pip explanation (``dice_read._explain`` and its helpers) gives what the plain
per-subset loop it replaced gave: the same floats (bit for bit on the machine that recorded
them, to the last digit or so on another CPU), the same winner on ties."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pibg.vision import dice_read as D
from pibg.vision.dice_config import DEFAULT_CONFIG

DATA = Path(__file__).resolve().parents[1] / "data"

_LOOSE = dataclasses.replace(
    DEFAULT_CONFIG, residual_max=1.0, step_min=0.0, step_max=10.0, known_step_min=0.0,
    known_step_max=10.0, pip_step_min=0.0, pip_step_max=10.0, pip_size_ratio=100.0,
    centre_offset_max=10.0, one_offset_max=10.0, pip_area_min=0.0, known_one_area_min=0.0,
    one_area_max=10.0, pip_area_max=10.0, known_pip_area_max=10.0, unexplained_radius=10.0,
    one_alone_radius=10.0)


def _cases() -> list[dict[str, Any]]:
    with gzip.open(DATA / "explain_cases.json.gz", "rt") as f:
        cases: list[dict[str, Any]] = json.load(f)
    return cases


def _same(got: Any, want: Any) -> bool:
    """``got`` is ``want``: the same structure, integers and winners; floats equal to within
    a few units in the last place (a CPU's vector units may order a sum's terms otherwise:
    an AMD EPYC machine differed from the recording in 12 costs of the loose set, each in
    its 16th digit)."""
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(_same(g, w) for g, w in zip(got, want, strict=True)))
    if isinstance(want, float):
        return isinstance(got, float) and got == pytest.approx(want, rel=1e-13, abs=1e-13)
    return bool(got == want and type(got) is type(want))


@pytest.mark.parametrize("name", ["default", "loose"])
def test_explain_matches_the_per_subset_loop(name: str) -> None:
    # tests/data/explain_cases.json.gz: 100 random hole sets a config (a noisy layout of one
    # to six pips with stray spots, repeated ones for equal costs, or spots anywhere; areas
    # mostly whole pixel counts), each with what ``_explain`` gave as the per-subset loop of
    # commit 5903182; JSON keeps every float's bits
    cfg = {"default": DEFAULT_CONFIG, "loose": _LOOSE}[name]
    rot = D._rotations(cfg.angle_step)
    cases = [c for c in _cases() if c["config"] == name]
    assert len(cases) == 100
    found = 0
    for c in cases:
        holes = [tuple(h) for h in c["holes"]]
        got = D._explain(holes, c["size"], tuple(c["centre"]), rot, cfg, c["known"])
        assert _same(json.loads(json.dumps([dataclasses.astuple(f) for f in got])), c["fits"]), c
        assert all(type(f.cost) is float and type(f.step) is float for f in got)
        found += len(got)
    assert found > 50  # explanations found, not only empty lists


def test_row_helpers_match_numpy_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    for m in range(1, 7):
        for k in (1, 2, 7, 35):
            areas = np.floor(rng.random((k, m)) * 60.0) + 1.0
            if k == 7:
                areas = areas * rng.random((k, m))
            ra = np.sqrt(areas)
            spread = [np.std(r) / np.mean(r) for r in ra]
            assert D._size_spread(areas).tolist() == spread
            assert D._row_quantile(areas, 0.5).tolist() == [D._quantile(r, 0.5) for r in areas]
            assert D._mean(areas, 1).tolist() == [r.mean() for r in areas]
    x = rng.random((5, 4, 3, 2))
    for axis in range(4):
        assert np.array_equal(D._mean(x, axis), x.mean(axis=axis))
        assert np.array_equal(D._mean(x, axis, keepdims=True), x.mean(axis=axis, keepdims=True))


def test_layout_costs_match_the_summed_form_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    for n in range(2, 7):
        q = rng.normal(size=(4, n, 2))
        rms_q = np.sqrt((q * q).sum(axis=2).mean(axis=1))
        for placed in (rng.normal(size=(9, n, 2)), rng.normal(size=(4, 5, n, 2))):
            rms_l = rng.random(placed.shape[:-2]) + 0.5
            step = np.maximum(rms_q[:, None], 1e-9) / rms_l
            p4 = placed[None] if placed.ndim == 3 else placed
            diff = q[:, None, :, None, :] - step[:, :, None, None, None] * p4[:, :, None, :, :]
            d = np.sqrt((diff * diff).sum(axis=-1))
            want = (d.min(axis=3).mean(axis=2) + d.min(axis=2).mean(axis=2)) / 2.0 / step
            cost, got_step = D._layout_costs(q, rms_q, placed, rms_l)
            assert np.array_equal(cost, want) and np.array_equal(got_step, step)


@pytest.mark.parametrize("name", ["default", "loose"])
def test_explaining_sets_together_gives_what_each_gets_alone(name: str) -> None:
    # a crop's spots and levels are explained in one batch (``_explain_many``): every step
    # is row by row, so each set's explanations must be bit for bit those it gets alone,
    # whatever else shares the batch (sets of one to seven holes, an empty one among them)
    cfg = {"default": DEFAULT_CONFIG, "loose": _LOOSE}[name]
    rot = D._rotations(cfg.angle_step)
    cases = [c for c in _cases() if c["config"] == name]
    found = 0
    for first in range(0, len(cases), 10):
        group = cases[first:first + 10]
        size, centre, known = group[0]["size"], tuple(group[0]["centre"]), group[0]["known"]
        sets = [[tuple(h) for h in c["holes"]] for c in group] + [[]]
        together = D._explain_many(sets, size, centre, rot, cfg, known)
        alone = [D._explain(h, size, centre, rot, cfg, known) for h in sets]
        assert together == alone
        found += sum(len(f) for f in together)
    assert found > 50  # explanations found, not only empty lists
