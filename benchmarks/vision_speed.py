"""Vision speed and memory, single-threaded, against a warpPerspective of the same frame.

    python benchmarks/vision_speed.py [--frame IMG --start START_IMG --corners ...] [-n 30]

Without arguments the synthetic board (``pibg.sim``) is used, so it runs anywhere. Prints:
one ``Vision.observe`` of a 1280x960 frame against one ``cv2.warpPerspective`` of that frame
to 1280x960 (target: <= 3x), the motion detector per low-res frame (target: <= 1 ms), and
the process's peak RSS while reading (target: <= 150 MB): on Linux the peak is reset once
the frames are in memory and the board calibrated, so rendering the synthetic frames does
not count; the whole run's peak is printed beside it.

    python benchmarks/vision_speed.py --renders [DIR]

times every game frame of the photoreal renders (default ``../shared/renders``) instead:
each camera set-up calibrated from its ``_00_start`` frame and its frames read once in
order (as a game streams them: the dice stage settles which die size to look for), then
each frame read ``-n`` times against a warp of it. Prints each set-up's median and the
whole set's median, 90th percentile and worst ratio. The synthetic frame above is one
easy throw (two large dice, both read at once); real-sized dice, a die leaning or cocked,
or one die of a throw missing send the dice stage down its slower paths.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

# single-threaded, as the target asks (OpenCV below, numpy's BLAS here: before numpy loads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pibg.sim import SimScene, render, sim_corners
from pibg.vision.calibrate import parse_corners
from pibg.vision.geometry import START_POINTS
from pibg.vision.motion import MotionDetector
from pibg.vision.pipeline import Vision

#: The homography of the reference warp (a slight tilt and shift: every output pixel is
#: interpolated, as in a real top-down warp).
_WARP = np.array([[1.0, 0.02, 3.0], [0.01, 1.0, 2.0], [1e-5, 1e-5, 1.0]])


def _reset_peak_rss() -> bool:
    """Start the kernel's peak-RSS count (VmHWM) afresh (Linux); False where it cannot."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_rss_mb() -> float | None:
    """The peak RSS since the last reset (Linux's VmHWM), in MB; None where not known."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return None


def _best(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def renders_table(root: Path, n: int, profile: int = 0) -> int:
    """Time every ``dev`` frame of the renders under ``root`` (see the module's doc); with
    ``profile``, then read every frame once more under cProfile and print that many of the
    functions taking the most time (cumulative), to see where the time goes."""
    import cProfile
    import json
    import pstats

    starts = sorted((root / "dev").glob("dev*_00_start.jpg"))
    if not starts:
        print(f"no renders under {root}/dev (expected devN_00_start.jpg and devN_NN.jpg); "
              "pass --renders DIR", file=sys.stderr)
        return 2
    ratios: list[float] = []
    prof: cProfile.Profile | None = None
    print(f"{'set-up':8s} {'frames':>6s} {'median ms':>10s} {'median x warp':>14s} "
          f"{'worst x warp':>13s}")
    for start in starts:
        setup = start.name.split("_")[0]
        gt = json.loads(start.with_suffix(".json").read_text())["gt"]
        vision = Vision.from_start_frame(cv2.imread(str(start)),
                                         np.asarray(gt["board_corners"], np.float64))
        names = sorted((root / "dev").glob(f"{setup}_[0-9][0-9].jpg"))
        frames = [cv2.imread(str(f)) for f in names]
        for frame in frames:
            vision.observe(frame)
        ms, mine = [], []
        for frame in frames:
            warp = _best(lambda f=frame: cv2.warpPerspective(f, _WARP, (1280, 960)), n)
            read = _best(lambda f=frame, v=vision: v.observe(f), n)
            ms.append(read * 1e3)
            mine.append(read / warp)
        ratios += mine
        print(f"{setup:8s} {len(frames):6d} {statistics.median(ms):10.2f} "
              f"{statistics.median(mine):14.2f} {max(mine):13.2f}")
        if profile:
            prof = prof or cProfile.Profile()
            prof.enable()
            for frame in frames:
                vision.observe(frame)
            prof.disable()
    ratios.sort()
    print(f"all {len(ratios)} frames: median {statistics.median(ratios):.2f} x warp, "
          f"90th percentile {ratios[int(0.9 * (len(ratios) - 1))]:.2f}, worst {ratios[-1]:.2f}; "
          f"{sum(r <= 3.0 for r in ratios)} of {len(ratios)} within 3x")
    if prof is not None:
        print(f"\nwhere the time goes, every frame read once more under cProfile (its overhead "
              f"included), the {profile} costliest functions:")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(profile)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frame", help="a frame to read (default: a synthetic mid-game frame)")
    ap.add_argument("--start", help="starting-position frame to calibrate from")
    ap.add_argument("--corners", help="surface corners of the start frame 'x,y;x,y;x,y;x,y'")
    ap.add_argument("-n", type=int, default=30, help="repetitions (median is reported)")
    ap.add_argument("--renders", nargs="?", type=Path,
                    const=Path(__file__).resolve().parents[2] / "shared" / "renders",
                    help="time every frame of the renders instead (default ../shared/renders)")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="with --renders: also print the N functions taking the most time")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.renders is not None:
        return renders_table(args.renders, min(args.n, 5), args.profile)
    if args.frame and args.start and args.corners:
        start = cv2.imread(args.start)
        frame = cv2.imread(args.frame)
        vision = Vision.from_start_frame(start, parse_corners(args.corners))
        source = args.frame
    else:
        start = render(SimScene(START_POINTS))
        pts = [0, -2, 0, 0, -2, 4, 2, 2, 0, 0, 0, -4, 3, 0, 0, 0, -2, 0, -5, 2, 0, 0, 0, 2]
        frame = render(SimScene(pts, dice=(5, 3), seed=5))
        vision = Vision.from_start_frame(start, sim_corners())
        source = "pibg.sim frame"
    frame = cv2.resize(frame, (1280, 960)) if frame.shape[:2] != (960, 1280) else frame
    empty = None if args.frame and args.start and args.corners else render(SimScene(pts, seed=6))
    whole_run_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    reset = _reset_peak_rss()
    warp = _best(lambda: cv2.warpPerspective(frame, _WARP, (1280, 960)), args.n)
    vision.observe(frame)  # warm up
    read = _best(lambda: vision.observe(frame), args.n)
    vision_nodice = Vision(vision.calibration, vision.config, read_dice=False)
    read_nodice = _best(lambda: vision_nodice.observe(frame), args.n)
    # The dice stage alone, on this frame and (sim) on the same position without dice.
    dice_ms = read - read_nodice
    empty_ms = None
    if empty is not None:
        empty_ms = _best(lambda: vision.observe(empty), args.n) - _best(
            lambda: vision_nodice.observe(empty), args.n)
    lores = cv2.resize(frame, (320, 240))
    det = MotionDetector()
    motion = _best(lambda: det.update(lores), max(args.n, 200))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    reading_mb = _peak_rss_mb() if reset else None
    print(f"frame: {source}, 1280x960, cv2 threads: {cv2.getNumThreads()}")
    print(f"warpPerspective 1280x960:       {warp * 1e3:7.2f} ms")
    print(f"Vision.observe (with dice):     {read * 1e3:7.2f} ms = {read / warp:5.2f} x warp "
          f"(target <= 3x)")
    print(f"Vision.observe (no dice stage): {read_nodice * 1e3:7.2f} ms = "
          f"{read_nodice / warp:5.2f} x warp")
    print(f"dice stage, this frame:         {dice_ms * 1e3:7.2f} ms")
    if empty_ms is not None:
        print(f"dice stage, same frame no dice: {empty_ms * 1e3:7.2f} ms")
    print(f"motion detector, 320x240 in:    {motion * 1e3:7.3f} ms (target <= 1 ms)")
    if reading_mb is not None:
        print(f"peak RSS while reading:         {reading_mb:7.1f} MB (target <= 150 MB)")
        print(f"peak RSS, whole run:            {max(rss_mb, whole_run_mb):7.1f} MB "
              "(with the frames rendered and the board calibrated)")
    else:
        print(f"peak RSS, whole run:            {rss_mb:7.1f} MB (target <= 150 MB while "
              "reading; this platform cannot reset the peak, so it counts everything)")
    if not args.frame:
        print("(one easy synthetic throw: frames of real-looking boards read slower; "
              "time them with --renders)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
