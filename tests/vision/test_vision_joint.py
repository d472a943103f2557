"""Reading the whole board at once: each colour has 15 checkers."""

from __future__ import annotations

import numpy as np
import pytest

from pibg.observation import RegionRead
from pibg.vision import board as B
from pibg.vision.geometry import PROFILES, Layout, VisionConfig

K = 5


def _evidence(first_layer: dict[int, int], weak: dict[int, int]
              ) -> tuple[np.ndarray, B.SlotReading]:
    """Per-place log-odds and colour distances for signed first-layer runs (point -> count);
    ``weak`` adds barely visible checkers."""
    logits = np.full((24, K), -6.0, np.float32)
    d_e = np.zeros((24, K), np.float32)
    d_w = np.full((24, K), 50.0, np.float32)
    d_b = np.full((24, K), 50.0, np.float32)
    for runs, strength in ((first_layer, 6.0), (weak, 1.5)):
        for p, n in runs.items():
            for j in range(abs(n)):
                logits[p - 1, j] = strength
                (d_w if n > 0 else d_b)[p - 1, j] = 0.0
    return logits, B.SlotReading(d_e, d_w, d_b)


def _joint(first_layer: dict[int, int], trays: tuple[tuple[float, float], tuple[float, float]],
           weak: dict[int, int] | None = None) -> B.JointRead:
    """The whole board read at once from ``first_layer`` runs and the trays' (estimate,
    confidence) for White and Black."""
    logits, reading = _evidence(first_layer, weak or {})
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    return B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                          {B.WHITE: trays[0], B.BLACK: trays[1]})


def test_hidden_checkers_go_to_a_full_point_and_a_phantom_gives_way() -> None:
    white = {6: 5, 8: 3, 13: 5}               # 13 seen, 2 hidden on a full point
    black = {1: -2, 12: -5, 17: -3, 19: -5}   # 15 seen
    # a 16th Black checker, weakly seen: a shadow
    jr = _joint(white | black, ((0.2, 0.9), (0.1, 0.9)), weak={10: -1})
    assert jr.run[9] == 0
    assert jr.off == {B.WHITE: 0, B.BLACK: 0}
    assert jr.hidden == {B.WHITE: 2, B.BLACK: 0}
    reads = B.joint_point_reads(jr, K)
    signed = [r.count for r in reads]
    assert sum(-v for v in signed if v < 0) == 15
    assert signed[7] == 3 and signed[0] == -2
    # From above, nothing tells which full point holds the two hidden checkers: each of them
    # may hold none, one or both, and the likeliest split adds up to 15.
    for p in (5, 12):
        assert all(reads[p].prob(n) > 0.25 for n in (5, 6, 7))
        assert reads[p].prob(4) < 0.05 and reads[p].prob(8) < 0.05
    assert reads[5].count == reads[12].count == 6  # the likeliest counts add up to 15
    assert sum(v for v in signed if v > 0) == 15
    ratio = (reads[5].prob(7) * reads[12].prob(5)) / (reads[5].prob(6) * reads[12].prob(6))
    assert 0.7 < ratio < 1.0


def test_one_hidden_checker_is_as_likely_on_either_full_point() -> None:
    white = {6: 5, 13: 5, 8: 4}               # 14 seen, one hidden on the 6 or the 13
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    jr = _joint(white | black, ((0.0, 0.9), (0.0, 0.9)))
    reads = B.joint_point_reads(jr, K)
    assert reads[5].prob(6) > 0.4 and reads[5].prob(5) > 0.4
    assert reads[12].prob(6) > 0.4 and reads[12].prob(5) > 0.4
    both = reads[5].prob(6) * reads[12].prob(5), reads[5].prob(5) * reads[12].prob(6)
    assert 0.8 < min(both) / max(both) < 1.0
    assert reads[7].count == 4


def test_the_tray_takes_what_no_full_point_can_hide() -> None:
    white = {6: 4, 8: 3}                      # no full point: 8 must be borne off
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    jr = _joint(white | black, ((6.4, 0.5), (0.0, 0.9)))
    assert jr.off[B.WHITE] == 8 and jr.hidden[B.WHITE] == 0


def test_a_full_point_may_hide_one_more_than_the_tray_leaves():
    # Every checker accounted for (the tray read as holding two): the full 6-point reads 5,
    # yet keeps a little probability for a sixth on top (the tray holding one fewer), so a
    # legal play that needs it is not ruled out by the reading.
    white = {6: 5, 8: 3, 13: 5}
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    jr = _joint(white | black, ((2.0, 0.9), (0.0, 0.9)))
    assert jr.off[B.WHITE] == 2 and jr.hidden[B.WHITE] == 0
    reads = B.joint_point_reads(jr, K)
    assert reads[5].count == 5
    assert reads[5].prob(6) == pytest.approx(B.HIDDEN_DOUBT, rel=0.05)
    # two on top (the tray's pile two too long: a leaning checker) is less likely again
    assert reads[5].prob(7) == pytest.approx(B.HIDDEN_DOUBT ** 2, rel=0.05)
    assert reads[7].prob(4) < 0.01  # a point that is not full hides nothing


def test_a_trays_pile_may_hold_fewer_than_its_length_says_but_hardly_more() -> None:
    """A pile is measured by its length, and the first checkers borne off lean or lie aslant:
    a lone leaning checker reads as a pile of three (render random:7401, frame 95). Counts
    below the reading stay possible; counts above fall off as before."""
    read = B.tray_read(3, 0.95)
    assert read.count == 3
    assert read.prob(1) > 50 * read.floor  # one leaning checker is no impossible reading
    assert read.prob(1) > read.prob(5) and read.prob(2) == pytest.approx(read.prob(4))
    assert read.prob(0) == pytest.approx(read.floor)  # a pile is never nothing
    assert B.tray_read(1, 0.95) == B.count_read(1, 0.95)


def test_a_tray_counted_one_way_by_length_and_another_by_rims_is_settled_by_the_points() -> None:
    """Render rnj1_08: a dark pile in a dark tray shows its rims and little else, so its
    length reads none and its rims 15. Black has one checker on the points, and point 20's
    places are unclear (log-odds -1). With the rims' count beside the length the rule of 15
    puts Black's other 14 in the tray; with the length alone (unsure) it stacked 5 checkers
    nothing shows on point 20 and hid 9 more under them."""
    white = {6: 5, 8: 3, 13: 5, 24: 2}
    logits, reading = _evidence(white | {19: -1}, {})
    logits[19, :] = -1.0
    reading.d_black[19, :] = 0.0
    reading.d_white[19, :] = 60.0
    _run, _colour, cum = B.counts_from_logits(logits, reading)

    def joint(black_tray: B.TrayCount) -> B.JointRead:
        return B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                              {B.WHITE: (0.0, 0.9), B.BLACK: black_tray})

    both = joint(B.TrayCount(0.0, 0.25, 15.0))
    assert both.off == {B.WHITE: 0, B.BLACK: 14} and both.run[19] == 0
    length = joint(B.TrayCount(0.0, 0.25))
    assert length.run[19] == 5 and length.hidden[B.BLACK] == 9


def test_a_run_holds_one_colour_so_a_light_empty_place_is_no_second_white_checker() -> None:
    # Point 16 holds one Black checker. Its next place is an empty point of a light colour,
    # which looks like a White checker and shows a little rim (a neighbour's): summed over a
    # run of two, the colour says White. But the first place is plainly Black, and a point
    # holds one colour: the reading is one Black checker, not two White.
    white = {6: 5, 8: 3, 13: 5}  # and two hidden on a full point
    black = {1: -2, 12: -5, 17: -3, 19: -4}
    logits, reading = _evidence(white | black, {})
    logits[15, 0], reading.d_black[15, 0], reading.d_white[15, 0] = 6.0, 0.0, 34.0
    logits[15, 1], reading.d_black[15, 1], reading.d_white[15, 1] = 3.4, 56.0, 1.0
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    jr = B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.0, 0.9), B.BLACK: (0.0, 0.9)})
    signed = [r.count for r in B.joint_point_reads(jr, K)]
    assert signed[15] == -1
    assert sum(-v for v in signed if v < 0) == 15
    assert jr.hidden == {B.WHITE: 2, B.BLACK: 0}


def test_hidden_checkers_go_to_the_full_point_whose_rims_show_a_stack() -> None:
    # Black's 1-point and 5-point are full and two Black checkers are hidden. Seen from a
    # low, wide lens the 1-point's first two rims are off their places (a stack stands
    # higher): both hidden checkers are put there. With no such sign they are shared.
    white = {6: 5, 8: 3, 13: 5, 24: 2}
    black = {1: -5, 5: -5, 12: -3}
    jr = _joint(white | black, ((0.0, 0.9), (0.0, 0.9)))
    assert jr.hidden == {B.WHITE: 0, B.BLACK: 2}
    rims = np.full(len(jr.run), 0.85)
    rims[0] = 0.25
    stacked = [r.count for r in B.joint_point_reads(jr, K, rims)]
    assert stacked[0] == -7 and stacked[4] == -5
    shared = [r.count for r in B.joint_point_reads(jr, K, np.full(len(jr.run), 0.85))]
    assert shared[0] == -6 and shared[4] == -6
    assert [r.count for r in B.joint_point_reads(jr, K)] == shared


# --- a tray's pile, measured from the tray's own end -------------------------------------------


def _tray_view(frame_rows: int, pile: int) -> tuple[np.ndarray, Layout]:
    """A top-down view whose Black tray half holds ``pile`` checkers on edge, with the
    board's frame reaching ``frame_rows`` into the tray's rectangle at its outer end (as
    corners found a little outside the playing surface leave it)."""
    layout = Layout(PROFILES["standard"])
    w, h = layout.size
    rng = np.random.default_rng(5)
    view = np.clip(90 + rng.normal(0, 2, (h, w, 3)), 0, 255).astype(np.float32)
    x0, y0, x1, _ = (int(v) for v in layout.tray_rect(False))
    view[y0:y0 + frame_rows:2, x0:x1] = 200.0  # the frame's grain: strong edges
    pitch = layout.tray_capacity_px()
    for k in range(pile):  # a light slab with a dark rim per checker
        top = y0 + frame_rows + k * pitch
        view[round(top):round(top + pitch) - 2, x0:x1] = 170.0
        view[round(top + pitch) - 2:round(top + pitch), x0:x1] = 40.0
    return view.astype(np.uint8), layout


def _pile(cfg: VisionConfig, frame_rows: int, pile: int) -> float:
    empty, layout = _tray_view(frame_rows, 0)
    view, _ = _tray_view(frame_rows, pile)
    base = B.tray_energy(layout, empty, False, 1.0)
    return B.tray_count(cfg, layout, view, base, False, 1.0)[0]


@pytest.mark.parametrize("pile", [0, 3, 7, 12, 15])
def test_tray_rims_are_counted_one_by_one(pile: int) -> None:
    """Each checker on edge shows one rim a pitch from the next: the rims are counted, and
    an empty tray (the other half, and this one with no pile) shows none."""
    view, layout = _tray_view(0, pile)
    cfg = VisionConfig()
    assert B.tray_slabs(cfg, layout, view, False, 1.0) == pile
    assert B.tray_slabs(cfg, layout, view, True, 1.0) == 0


@pytest.mark.parametrize("pile", [8, 10, 13])
def test_a_pile_longer_in_rims_than_in_length_leaves_the_tray_unsure(pile: int) -> None:
    """A band learnt as the board's frame at the tray's end (corners found outside the
    surface at calibration, rnv1) that the pile then fills cuts two or more checkers off
    the pile's length; its rims, counted one by one, say otherwise. The tray is then no
    surer than ``tray_unsure``, so the points and the rule of 15 settle the count; without
    the rims' count the short length stood as a sure one."""
    cfg = VisionConfig()
    empty, layout = _tray_view(24, 0)
    base = B.tray_energy(layout, empty, False, 1.0)
    view, _ = _tray_view(0, pile)
    est, conf, rims = B.tray_count(cfg, layout, view, base, False, 1.0)
    assert est < pile - 1.5 and conf <= cfg.tray_unsure
    assert (rims is not None) == (round(est) == 0)  # kept where the length shows none
    blind = VisionConfig(tray_slab_disagree=99.0)
    assert B.tray_count(blind, layout, view, base, False, 1.0)[1] >= cfg.tray_clear - 0.1
    # learnt right, the length and the rims agree and the count stays as sure as it was
    right = B.tray_count(cfg, layout, view, B.tray_energy(layout, _tray_view(0, 0)[0], False,
                                                          1.0), False, 1.0)
    assert abs(right[0] - pile) < cfg.tray_slab_disagree and right[1] > cfg.tray_unsure


@pytest.mark.parametrize("pile", [3, 5])
def test_a_pile_whose_length_shows_none_keeps_its_rims_count(pile: int) -> None:
    """A pile the length misses whole (here a band of the frame learnt into the empty tray
    that the pile then fills; render rnj1_08, a dark pile in a dark tray) but whose rims are
    counted: the count of its rims is kept beside the length's none, for the rule of 15 to
    choose between. A pile the length does see keeps its length alone."""
    cfg = VisionConfig()
    empty, layout = _tray_view(40, 0)
    base = B.tray_energy(layout, empty, False, 1.0)
    view, _ = _tray_view(0, pile)
    est, conf, rims = B.tray_count(cfg, layout, view, base, False, 1.0)
    assert round(est) == 0 and conf <= cfg.tray_unsure and rims == pile
    seen, _ = _tray_view(0, 8)
    assert B.tray_count(cfg, layout, seen, base, False, 1.0).other is None


def test_a_pile_by_length_with_no_rims_leaves_the_tray_unsure() -> None:
    """Rough rows along the empty tray (a lamp's light raking its grain, rnw4_07) make a
    pile's worth of edges, but no rims a pitch apart: the tray is unsure, not a pile of 7."""
    cfg = VisionConfig()
    empty, layout = _tray_view(0, 0)
    base = B.tray_energy(layout, empty, False, 1.0)
    view = empty.copy()
    x0, y0, x1, _ = (int(v) for v in layout.tray_rect(False))
    view[y0:y0 + int(8 * layout.tray_capacity_px()):2, x0:x1] = 200
    est, conf, rims = B.tray_count(cfg, layout, view, base, False, 1.0)
    assert est > 5 and B.tray_slabs(cfg, layout, view, False, 1.0) == 0
    assert conf <= cfg.tray_unsure and rims is None


@pytest.mark.parametrize("pile", [3, 7, 12])
@pytest.mark.parametrize("frame_rows", [6, 14])
def test_tray_pile_counts_from_the_trays_own_end(pile: int, frame_rows: int) -> None:
    """The frame's edge inside the tray's rectangle (learnt from the empty tray) is not part
    of the pile: the count is the one the tray gives with its end where it should be."""
    cfg = VisionConfig()
    assert abs(_pile(cfg, frame_rows, pile) - _pile(cfg, 0, pile)) < 0.2


def test_frame_inside_the_tray_would_count_as_a_checker() -> None:
    """Without looking for the frame's edge (a ratio out of reach), a band of frame a pitch
    and a half deep reads as one checker more or worse: what the trim is for."""
    import dataclasses

    cfg = dataclasses.replace(VisionConfig(), tray_frame_ratio=1e9)
    assert _pile(cfg, 14, 3) - _pile(cfg, 0, 3) > 1.0


def test_two_readings_as_likely_are_named_and_one_is_taken_whole() -> None:
    # White has 14 checkers plainly seen and Black 14; points 10 and 20 hold one checker
    # each whose colour nothing tells (as when light colours clip). One must be White and
    # the other Black: either way is as likely. Each point's likeliest option alone says
    # White on both, 16 White checkers; the reading taken is one of the two whole, and the
    # point it differs on from the other is named.
    white = {6: 4, 8: 3, 13: 4, 24: 3}
    black = {1: -3, 12: -4, 17: -3, 19: -4}
    logits, reading = _evidence(white | black, {})
    for p in (9, 19):
        logits[p, 0], reading.d_white[p, 0], reading.d_black[p, 0] = 6.0, 20.0, 20.0
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    jr = B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.0, 0.9), B.BLACK: (0.0, 0.9)})
    assert {int(jr.colour[9]), int(jr.colour[19])} == {B.WHITE, B.BLACK}
    assert jr.off == {B.WHITE: 0, B.BLACK: 0} and jr.hidden == {B.WHITE: 0, B.BLACK: 0}
    assert len(jr.ties) == 1 and jr.ties[0] in (9, 19)


def test_a_colour_with_checkers_outside_its_home_has_borne_none_off_unless_plainly() -> None:
    """A colour bears off only once all its checkers are home. White's 15th checker not seen
    (stacked on point 6's five), with White checkers still on points 8 and 13, and the tray
    read as almost one (the shadow under the frame's lip deepened by the light: renders
    rnu2_04, rnf3_03, rnt1_09): the checker is on the board, not borne off. With White all
    home, the same tray is one checker borne off; a tray plainly showing two is believed
    even with a checker back (hit during the bear-off)."""
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    jr = _joint({6: 5, 8: 4, 13: 5} | black, ((0.9, 0.8), (0.0, 0.9)))
    assert jr.off[B.WHITE] == 0 and jr.hidden[B.WHITE] == 1
    home = {2: 3, 3: 3, 4: 2, 5: 5, 6: 1}  # 14 seen, all home, point 5 full
    jr = _joint(home | black, ((0.9, 0.8), (0.0, 0.9)))
    assert jr.off[B.WHITE] == 1 and jr.hidden[B.WHITE] == 0
    jr = _joint({6: 5, 8: 3, 13: 5} | black, ((2.0, 0.9), (0.0, 0.9)))
    assert jr.off[B.WHITE] == 2 and jr.hidden[B.WHITE] == 0
    # the bar is outside home too: a checker on it (row 25, White's side) bars the tray
    logits, reading = _evidence({6: 5, 4: 5, 5: 3} | black, {})  # 13 seen, all home
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    bar = np.full((2, K), -6.0, np.float32)
    bar[0, 0] = 6.0
    bar_read = B.SlotReading(np.zeros((2, K), np.float32), np.where(bar > 0, 0.0, 50.0)
                             .astype(np.float32), np.full((2, K), 50.0, np.float32))
    bar_cum = B.counts_from_logits(bar, bar_read)[2]
    all_cum, all_read = B.with_bar(cum, reading, bar_cum, bar_read)
    jr = B.joint_counts(VisionConfig(), all_cum, all_read, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.9, 0.8), B.BLACK: (0.0, 0.9)})
    assert int(jr.run[24]) == 1 and jr.off[B.WHITE] == 0 and jr.hidden[B.WHITE] == 1


def test_a_fifth_checker_hit_stands_on_a_full_row_of_the_bar() -> None:
    """A bar's side holds four checkers in a row on most boards; a fifth hit goes on top of
    them, as on a full point (renders rnn2_09, rnr2_04: five White checkers on the bar, the
    fifth read as borne off). With the tray plainly empty, White's fifteenth checker is on
    the bar's full row, and the bar reads five."""
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    logits, reading = _evidence({13: 4, 8: 3, 6: 3} | black, {})  # 10 White seen
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    places = 4
    bar = np.full((2, places), -6.0, np.float32)
    bar[0, :] = 6.0  # White's side: four in a row
    bar_read = B.SlotReading(np.zeros((2, places), np.float32),
                             np.where(bar > 0, 0.0, 50.0).astype(np.float32),
                             np.full((2, places), 50.0, np.float32))
    bar_cum = B.counts_from_logits(bar, bar_read)[2]
    all_cum, all_read = B.with_bar(cum, reading, bar_cum, bar_read)
    assert B.full_from(all_cum)[:24] == (B.stacks_on(K),) * 24
    assert B.full_from(all_cum)[24:] == (places, places)
    jr = B.joint_counts(VisionConfig(), all_cum, all_read, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.0, 0.9), B.BLACK: (0.0, 0.9)})
    assert int(jr.run[24]) == 4 and jr.colour[24] == B.WHITE and jr.full(24, K)
    assert jr.off[B.WHITE] == 0 and jr.hidden[B.WHITE] == 1
    reads = B.joint_point_reads(jr, K)
    assert reads[24].count == 5
    # a side with fewer than its row holds no more on top
    assert not jr.full(25, K)


def test_a_reading_with_one_best_way_names_no_ties() -> None:
    white = {6: 5, 8: 3, 13: 5, 24: 2}
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    assert _joint(white | black, ((0.0, 0.9), (0.0, 0.9))).ties == ()


def test_a_six_place_point_of_five_may_hold_more_on_top() -> None:
    """On a board with six places a point (a tournament board), players stack the sixth
    checker on five as often as they line it up: five in a row may hide more, so a checker
    missing from the rule of 15 is not pushed into a tray that plainly shows none."""
    k = 6
    logits = np.full((24, k), -6.0, np.float32)
    d_e = np.zeros((24, k), np.float32)
    d_w = np.full((24, k), 50.0, np.float32)
    d_b = np.full((24, k), 50.0, np.float32)
    # White 14 seen (a sixth on point 6 stacked), Black 15
    for p, n in {6: 5, 8: 3, 13: 4, 24: 2, 1: -2, 12: -5, 17: -3, 19: -5}.items():
        for j in range(abs(n)):
            logits[p - 1, j] = 6.0
            (d_w if n > 0 else d_b)[p - 1, j] = 0.0
    reading = B.SlotReading(d_e, d_w, d_b)
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    jr = B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.0, 0.9), B.BLACK: (0.0, 0.9)})
    assert jr.off == {B.WHITE: 0, B.BLACK: 0}
    assert jr.hidden == {B.WHITE: 1, B.BLACK: 0}
    assert B.joint_point_reads(jr, k)[5].count == 6


def test_a_full_points_first_layer_read_one_shorter_hides_one_more_on_top() -> None:
    """14 White checkers on a six-place point (as render rpc1_03's 13), its sixth place as
    likely empty as not under the stack: a first layer of five hides nine, one of six hides
    eight. Both are 14 on the point, which is what it reads, not five."""
    k = 6
    logits = np.full((24, k), -6.0, np.float32)
    d_e = np.zeros((24, k), np.float32)
    d_w = np.full((24, k), 50.0, np.float32)
    d_b = np.full((24, k), 50.0, np.float32)
    for p, n in {24: 6, 18: 1, 2: -1, 3: -1, 4: -3, 6: -1, 10: -1, 22: -3, 23: -5}.items():
        for j in range(abs(n)):
            logits[p - 1, j] = 6.0
            (d_w if n > 0 else d_b)[p - 1, j] = 0.0
    logits[23, 5] = 0.0  # the sixth place: no telling
    reading = B.SlotReading(d_e, d_w, d_b)
    _run, _colour, cum = B.counts_from_logits(logits, reading)
    jr = B.joint_counts(VisionConfig(), cum, reading, {B.WHITE: 0, B.BLACK: 0},
                        {B.WHITE: (0.0, 0.9), B.BLACK: (0.0, 0.9)})
    assert jr.off == {B.WHITE: 0, B.BLACK: 0}
    assert jr.run[23] in (5, 6) and jr.hidden[B.WHITE] == 14 - int(jr.run[23])
    reads = B.joint_point_reads(jr, k)
    assert reads[23].count == 14
    assert reads[23].prob(14) > 0.7 and reads[23].prob(5) < 0.01 and reads[23].prob(6) < 0.01


def test_the_networks_stacked_places_tell_which_full_point_hides_the_checkers() -> None:
    """Two full White points and two White checkers hidden: from the counts alone each point
    holds one (every split as likely, the even one a hair ahead); where the checker-place
    network sees both stacked on point 13's places, the likeliest reading puts them there,
    with the other splits still possible (the referee's legal plays have the last word)."""
    white = {6: 5, 8: 3, 13: 5}
    black = {1: -2, 12: -5, 17: -3, 19: -5}
    jr = _joint(white | black, ((0.0, 0.9), (0.0, 0.9)))
    assert jr.hidden[B.WHITE] == 2
    even = B.joint_point_reads(jr, K)
    assert even[5].count == even[12].count == 6
    stacked = np.full((24, K), 0.1)
    stacked[12, :2] = 0.9
    told = B.joint_point_reads(jr, K, stacked=stacked)
    assert told[12].count == 7 and told[5].count == 5
    assert told[5].prob(6) > 0.03 and told[12].prob(6) > 0.03
    assert sum(r.count for r in told if r.count > 0) == 15


def test_an_empty_tray_half_learnt_too_smooth_is_no_full_pile(monkeypatch) -> None:
    """Render rnt0 (``tests/data/vision/rnt0_tray.json``: the empty tray's profiles learnt at
    calibration, and Black's half of an empty tray in a later frame): at calibration Black's
    half showed the tray's smooth dark wall, its inside a fifth as rough as White's half;
    once the camera had moved a little, the tray's own grain measured against it read as 15
    checkers, and 8 of 11 frames were refused. Each half's empty profile is floored at three
    quarters of the other half's: the tray reads empty, a pile still counts."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "data" / "vision" /
                       "rnt0_tray.json").read_text())
    cfg, layout = VisionConfig(), Layout(PROFILES[data["profile"]])
    learnt = np.asarray(data["tray_bg"], np.float32)
    frame = np.asarray(data["frame_black"], np.float32)
    monkeypatch.setattr(B, "tray_energy", lambda *a, **k: frame)
    assert B.tray_count(cfg, layout, np.zeros(1), learnt[1], False, 1.0)[0] == 15.0
    floored = B.tray_floor(learnt)
    assert B.tray_count(cfg, layout, np.zeros(1), floored[1], False, 1.0)[0] == 0.0
    assert np.array_equal(floored[0], learnt[0])  # the rougher half is left as it is
    monkeypatch.undo()
    empty, lay = _tray_view(0, 0)
    view, _ = _tray_view(0, 7)
    halves = np.stack([B.tray_energy(lay, empty, True, 1.0)[:200],
                       B.tray_energy(lay, empty, False, 1.0)[:200]])
    pile = B.tray_count(cfg, lay, view, halves[1], False, 1.0)[0]
    assert pile > 5 and B.tray_count(cfg, lay, view, B.tray_floor(halves)[1], False, 1.0)[0] == pile


def test_an_alternative_mixed_in_is_kept_possible_never_read_instead():
    a = RegionRead.from_mapping({-10: 0.8, -9: 0.1, -11: 0.1})
    m = B.mixed(a, RegionRead.certain(-5), 0.2)
    assert m.count == -10 and m.prob(-5) == pytest.approx(0.2)
    assert m.prob(-10) == pytest.approx(0.64)
    # where the alternative would outweigh the reading, the reading stands alone
    close = RegionRead.from_mapping({0: 0.5, 1: 0.5})
    assert B.mixed(close, RegionRead.certain(1), 0.2) == close
