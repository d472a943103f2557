"""Reading the rendered reference frames (skipped without ../shared)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pibg.vision.pipeline import Vision
from tests.conftest import ROOT, shared_path


def test_dev0_session_reads_mostly_right() -> None:
    root = shared_path("renders", "dev")
    start = root / "dev0_00_start.jpg"
    corners = json.loads((root / "dev0_00_start.json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(cv2.imread(str(start)), np.asarray(corners))
    right = total = 0
    for i in range(1, 16):
        spec = json.loads((root / f"dev0_{i:02d}.json").read_text())["spec"]
        if spec["hand"]:
            continue
        obs = vision.observe(cv2.imread(str(root / f"dev0_{i:02d}.jpg")))
        got = obs.signed_points() if obs.readable else ()
        right += sum(a == b for a, b in zip(got, spec["points"], strict=False))
        total += 24
    assert right / total > 0.95


def _session(name: str) -> tuple[Vision, list[tuple[str, dict[str, Any]]]]:
    root = shared_path("renders", "dev")
    corners = json.loads((root / f"{name}_00_start.json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(cv2.imread(str(root / f"{name}_00_start.jpg")),
                                     np.asarray(corners))
    frames = sorted(p for p in root.glob(f"{name}_[0-9][0-9].json") if "_00" not in p.name)
    return vision, [(str(p.with_suffix(".jpg")), json.loads(p.read_text())["spec"])
                    for p in frames]


def _regions(obs) -> list[int]:  # type: ignore[no-untyped-def]
    return [*obs.signed_points(), obs.bar_white.count, obs.bar_black.count,
            obs.off_white.count, obs.off_black.count]


@pytest.mark.parametrize(("name", "floor"), [("dev0", 364), ("dev1", 364), ("dev2", 388),
                                              ("dev3", 364)])
def test_every_dev_session_counts_its_regions(name: str, floor: int) -> None:
    # Points, bar and trays of every frame without a hand; an unreadable frame counts as all
    # wrong. The floors are the counts read when this test was written (regions right of 28
    # per frame), so a change that loses any region fails.
    vision, frames = _session(name)
    right = 0
    for path, spec in frames:
        if spec["hand"]:
            continue
        obs = vision.observe(cv2.imread(path))
        if obs.readable:
            truth = [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
                     spec["off"]["white"], spec["off"]["black"]]
            right += sum(a == b for a, b in zip(_regions(obs), truth, strict=True))
    assert right >= floor


def test_a_lamp_shadow_lengthening_the_tray_does_not_void_the_frame() -> None:
    # dev2_05: under a desk lamp, Black's pile of 12 in the tray measures 14 (its end face and
    # shadow); the 24 points, read clearly, leave 12, and the frame is read, not refused.
    vision, frames = _session("dev2")
    path, spec = next(f for f in frames if f[0].endswith("dev2_05.jpg"))
    obs = vision.observe(cv2.imread(path))
    assert obs.readable, obs.reason
    assert obs.off_black.count == spec["off"]["black"] == 12
    assert list(obs.signed_points()) == spec["points"]



def test_the_cubes_shadow_on_the_point_beside_it_is_no_checker() -> None:
    # dev1_14: Black owns the cube, on the bar's end beside point 18's empty first place; its
    # shadow across that place made a rim, and a checker taken from point 24's eleven kept
    # the count at 15.
    vision, frames = _session("dev1")
    for path, _ in frames[:13]:  # the frames before it: the dice stage settles its size
        vision.observe(cv2.imread(path))
    path, spec = next(f for f in frames if f[0].endswith("dev1_14.jpg"))
    obs = vision.observe(cv2.imread(path))
    assert obs.cube is not None and obs.cube.owner == "black"
    assert list(obs.signed_points()) == spec["points"]
    assert spec["points"][17] == 0 and spec["points"][23] == 11

def test_a_die_where_a_runs_next_checker_would_stand_is_read_as_the_die() -> None:
    # dev2_11: a flat five lies where the fifth checker of White's four on the 20-point would
    # stand, its outline crossing that place's circle. Counted as the fifth checker (the rule
    # of 15 then took one from the 21-point), it was masked from the dice search and the roll
    # was missed; the place searched as free surface shows the die.
    vision, frames = _session("dev2")
    path, spec = next(f for f in frames if f[0].endswith("dev2_11.jpg"))
    obs = vision.observe(cv2.imread(path))
    assert list(obs.signed_points()) == spec["points"]
    assert sorted((d.value, d.flat) for d in obs.dice) == [(5, True), (5, True)]


def _vision_accuracy() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "vision_accuracy", ROOT / "benchmarks" / "vision_accuracy.py")
    assert spec is not None
    bench = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = bench  # its dataclasses look themselves up there
    spec.loader.exec_module(bench)
    return bench


def test_real_tournament_boards_read_from_their_corners() -> None:
    # photos/boards: real frames read with --corners/--white-home (no starting position), the
    # way benchmarks/vision_accuracy.py scores them. 172 of the 181 labelled points were read
    # right when this was written (162 before the rim search went wider on rough calibrations).
    root = shared_path("photos", "boards")
    _lines, right, total, _dice, _dice_total = _vision_accuracy().run_photos(root.parents[1])
    assert total == 181
    assert right >= 170


def test_real_tournament_dice_smaller_than_the_renders_are_read() -> None:
    # The tournament photos' dice are 0.34 checker diameters across, the renders' 0.42.
    # Looked for at 0.42 only, a two's pips lay too close together for a two and a three's
    # corners for a three: 7 of the 13 flat dice labelled were read.
    root = shared_path("photos", "boards")
    _lines, _right, _total, dice, dice_total = _vision_accuracy().run_photos(root.parents[1])
    assert dice_total == 13
    assert dice >= 12


def test_real_boards_in_a_dim_light_are_read() -> None:
    # The same photos in light scaled to 0.45 (`--light 0.45`): White's checkers are learnt
    # at a lightness of about 50, and "like neither board nor checker" shrank with its square
    # to 2 of 30, under what the photos' own noise reaches: four of the eight frames were
    # reported as a hand (78 of 181 points read). It now shrinks no further than 0.15 of 30
    # (``unexplained_floor``): 169.
    root = shared_path("photos", "boards")
    bench = _vision_accuracy()
    bench._STYLE = bench.restyle.Restyle("bgr", 0.45)
    _lines, right, total, _dice, _dice_total = bench.run_photos(root.parents[1])
    assert total == 181
    assert right >= 165


def _dimmed(path: Path, light: float) -> Any:
    """The frame at ``path`` with its values scaled by ``light``, as the benchmarks'
    ``--light`` reads it."""
    frame = _vision_accuracy().restyle.Restyle("bgr", light).imread(str(path))
    assert frame is not None, path
    return frame


def _dimmed_session(name: str, light: float) -> tuple[Vision, Path]:
    """A session calibrated on its start frame dimmed to ``light``, and its frames' folder
    (``name``: "dev0" to "dev3", or "m023g1" for the game)."""
    root = (shared_path("renders", "game", "frames") if name == "m023g1"
            else shared_path("renders", "dev"))
    start = root / (f"{name}_000" if name == "m023g1" else f"{name}_00_start")
    corners = json.loads(start.with_suffix(".json").read_text())["gt"]["board_corners"]
    return Vision.from_start_frame(_dimmed(start.with_suffix(".jpg"), light),
                                   np.asarray(corners)), root


def test_an_arm_in_a_slightly_dimmer_light_is_still_a_hand() -> None:
    # Game frame 039 in light scaled to 0.8: an arm over the points, no rail changed. White
    # is learnt at 186: with the bound on "like neither board nor checker" shrinking only
    # below 185, it stayed at 30 while every distance shrank, 2 places passed it and the arm
    # was read as a position; shrinking below 200, 9 do (7 needed). (dev3_07's arm at 0.9,
    # the case that showed it, passes by a narrower margin: 7 of 7.)
    vision, root = _dimmed_session("m023g1", 0.8)
    assert not vision.observe(_dimmed(root / "m023g1_039.jpg", 0.8)).readable


def test_one_edge_sample_does_not_make_a_checker_in_a_darker_light() -> None:
    # dev1_08 and dev1_10 in light scaled to 0.8: an empty place by the frame showed one
    # edge sample more of a circle's weakest arc (0.62 for 0.5) and, with the ring
    # evidence's spread floored at 0.08, outweighed a clearly empty colour.
    vision, root = _dimmed_session("dev1", 0.8)
    for name in ("dev1_08", "dev1_10"):
        spec = json.loads((root / f"{name}.json").read_text())["spec"]
        obs = vision.observe(_dimmed(root / f"{name}.jpg", 0.8))
        assert list(obs.signed_points()) == spec["points"], name


def test_white_checkers_clipped_in_a_brighter_light_are_no_hand() -> None:
    # dev1_01 and dev1_04 in light scaled to 1.15: brighter again than the start frame, White's
    # checkers top out at 254 in two channels; divided by the frame's gains they read 40
    # darker and blue, and 7 and 10 places "like neither board nor checker" made a hand.
    vision, root = _dimmed_session("dev1", 1.15)
    for name in ("dev1_01", "dev1_04"):
        spec = json.loads((root / f"{name}.json").read_text())["spec"]
        obs = vision.observe(_dimmed(root / f"{name}.jpg", 1.15))
        assert obs.readable, (name, obs.reason)
        assert list(obs.signed_points()) == spec["points"], name


@pytest.mark.parametrize("name", ["dev0_14", "dev3_08"])
def test_checkers_in_a_changed_light_plainly_their_colour_are_no_hand(name: str) -> None:
    # Read with red and blue swapped (`--channels rgb`): the light changed since the start
    # frame leaves 8 and 9 checkers past the bound of "like neither board nor checker" (1.1
    # to 1.5 times it), but each 5 to 13 times nearer its own colour than the next class; an
    # arm's places lie between classes (1 to 4 times). Counted, they made a hand.
    root = shared_path("renders", "dev")
    swap = _vision_accuracy().restyle.Restyle("rgb", 1.0)
    session = name.split("_")[0]
    corners = json.loads((root / f"{session}_00_start.json").read_text())["gt"]["board_corners"]
    vision = Vision.from_start_frame(swap.imread(str(root / f"{session}_00_start.jpg")),
                                     np.asarray(corners))
    spec = json.loads((root / f"{name}.json").read_text())["spec"]
    obs = vision.observe(swap.imread(str(root / f"{name}.jpg")))
    assert obs.readable, obs.reason
    assert list(obs.signed_points()) == spec["points"]


def test_an_arm_reaching_in_is_reported_with_the_board_found_automatically() -> None:
    # m023g1_054: an arm crosses the frame. Calibrated on the corners found automatically it
    # changes five places of the frame and five checker places look like neither board nor
    # checker (six with the labelled corners): not readable, rather than a wrong count.
    from pibg.vision.calibrate import locate_board
    from pibg.vision.geometry import VisionConfig

    frames = shared_path("renders", "game", "frames")
    start = cv2.imread(str(frames / "m023g1_000.jpg"))
    corners, on_rims = locate_board(VisionConfig(), start)
    vision = Vision.from_start_frame(start, corners, corners_on_rims=on_rims)
    obs = vision.observe(cv2.imread(str(frames / "m023g1_054.jpg")))
    assert not obs.readable
    assert "hand or arm" in (obs.reason or "")


@pytest.mark.parametrize("start", ["dev/dev0_00_start", "dev/dev1_00_start",
                                   "dev/dev2_00_start", "dev/dev3_00_start",
                                   "game/frames/m023g1_000"])
def test_the_board_is_found_automatically_in_every_start_frame(start: str) -> None:
    # No markers, no corners given: the checkers of the starting position find the board.
    # dev1's dark checkers on a dark board need the looser circle pass (they were not found
    # before it). Within 12 pixels of the labelled corners (about a third of a checker).
    from pibg.vision.calibrate import find_board
    from pibg.vision.geometry import VisionConfig

    path = shared_path("renders", *start.split("/")[:-1]) / (start.split("/")[-1] + ".jpg")
    label = np.asarray(json.loads(path.with_suffix(".json").read_text())["gt"]["board_corners"])
    corners = find_board(VisionConfig(), cv2.imread(str(path)))
    assert float(np.abs(corners - label).max()) < 12.0


def test_rims_are_looked_for_at_a_checkers_height_on_the_boards_own_corners() -> None:
    # dev3: on the labelled corners (the board's own) the start's checkers' rims stand out
    # best a checker's height up, lifted away from the point below the camera; the corners
    # found automatically are fitted to those rims, so there they need no lift. Either way
    # every frame of the session is read right but for at most one.
    from pibg.vision.calibrate import locate_board
    from pibg.vision.geometry import VisionConfig

    root = shared_path("renders", "dev")
    start = cv2.imread(str(root / "dev3_00_start.jpg"))
    label = json.loads((root / "dev3_00_start.json").read_text())["gt"]["board_corners"]
    own = Vision.from_start_frame(start, np.asarray(label))
    corners, on_rims = locate_board(VisionConfig(), start)
    assert on_rims
    found = Vision.from_start_frame(start, corners, corners_on_rims=on_rims)
    assert own.calibration.rim_lift == pytest.approx(0.23)
    assert found.calibration.rim_lift == 0.0
    _vision, frames = _session("dev3")
    for vision in (own, found):
        wrong = 0
        for path, spec in frames:
            obs = vision.observe(cv2.imread(path))
            truth = [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
                     spec["off"]["white"], spec["off"]["black"]]
            wrong += obs.readable == spec["hand"] or (obs.readable and _regions(obs) != truth)
        assert wrong <= 1


def test_on_the_board_finders_corners_every_dev0_frame_is_read_right() -> None:
    # dev0: the start frame's rims alone would have put the rims a checker's height above
    # the finder's corners, which are fitted to the rims already; lifted twice, a lone
    # checker's rim was missed (dev0_14). Taken as on the rims, every frame is read right.
    from pibg.vision.calibrate import locate_board
    from pibg.vision.geometry import VisionConfig

    root = shared_path("renders", "dev")
    start = cv2.imread(str(root / "dev0_00_start.jpg"))
    corners, on_rims = locate_board(VisionConfig(), start)
    vision = Vision.from_start_frame(start, corners, corners_on_rims=on_rims)
    assert vision.calibration.rim_lift == 0.0
    _own, frames = _session("dev0")
    for path, spec in frames:
        obs = vision.observe(cv2.imread(path))
        truth = [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
                 spec["off"]["white"], spec["off"]["black"]]
        assert obs.readable != spec["hand"]
        assert not obs.readable or _regions(obs) == truth, path


def test_a_black_checker_with_half_its_rim_seen_is_counted_on_the_corners_found() -> None:
    # dev1_04, calibrated on the corners the board finder fits to the rims: point 6's third
    # Black checker shows half its rim (4 of its weakest arc's 8 samples on an edge) and
    # plainly Black's colour, which now nearly outweighs a half-seen rim, so that the rule of
    # 15 tips it (VisionConfig.colour_clip 7; at 6 it read two checkers and one in the tray).
    from pibg.vision.calibrate import locate_board
    from pibg.vision.geometry import VisionConfig

    root = shared_path("renders", "dev")
    start = cv2.imread(str(root / "dev1_00_start.jpg"))
    corners, on_rims = locate_board(VisionConfig(), start)
    vision = Vision.from_start_frame(start, corners, corners_on_rims=on_rims)
    spec = json.loads((root / "dev1_04.json").read_text())["spec"]
    obs = vision.observe(cv2.imread(str(root / "dev1_04.jpg")))
    assert obs.readable, obs.reason
    assert _regions(obs) == [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
                             spec["off"]["white"], spec["off"]["black"]]


def test_a_die_cocked_where_a_checker_would_stand_is_a_die_not_a_checker() -> None:
    # dev2_08: the four leans on point 5's checker, its foot on point 6's first place. It
    # was read as a White checker there (point 6 at 1, White's tray one short). While the
    # throw's other die (the two) lies flat, the place is now searched for a die cocked
    # there too, and the four is reported, not flat.
    vision, _frames = _session("dev2")
    root = shared_path("renders", "dev")
    spec = json.loads((root / "dev2_08.json").read_text())["spec"]
    obs = vision.observe(cv2.imread(str(root / "dev2_08.jpg")))
    assert obs.readable, obs.reason
    assert _regions(obs) == [*spec["points"], spec["bar"]["white"], spec["bar"]["black"],
                             spec["off"]["white"], spec["off"]["black"]]
    cocked = [d for d in obs.dice if not d.flat]
    assert len(cocked) == 1
    assert abs(cocked[0].x - 673) < 15 and abs(cocked[0].y - 633) < 15


def test_checkers_at_the_base_of_half_a_sides_points_do_not_colour_its_empty_points() -> None:
    # photos/boards frame0, read from its corners: Black's checkers stand at the base of three
    # of the six red points of the top row, so the base's median over the six was half red,
    # half black; White's colour, learnt from the places far from it, took in the red ones,
    # and the empty red 18-point read as one White checker (and by the rule of 15 the White
    # checker on the 2-point as none). Every point is read right now.
    truth, got = _photo_from_corners("frame0.jpg")
    assert got == truth


def _photo_from_corners(image: str) -> tuple[list[int | None], list[int]]:
    """A ``photos/boards`` frame's labelled points and its points as read from its corners
    (``pibg read --corners``: the colours found in the frame itself)."""
    root = shared_path("photos", "boards")
    labels = json.loads((root / "labels.json").read_text())
    entry = next(e for e in labels if e["image"] == image)
    frame = cv2.imread(str(root / image))
    vision = Vision.from_corners(frame, np.asarray(entry["corners"], float), entry["white_home"])
    return _vision_accuracy()._photo_truth(entry), list(vision.observe(frame).signed_points())


def test_a_side_covered_at_the_base_takes_its_empty_colour_from_the_other_side() -> None:
    # photos/boards frame4, read from its corners: checkers stand at the base of every point
    # of one colour on one side, and the empty colour learnt there was a checker's, so
    # Black's two on the 12-point read as none. The other side's points of that colour
    # give the paint now.
    truth, got = _photo_from_corners("frame4.jpg")
    assert truth[11] == -2
    assert got[11] == -2
