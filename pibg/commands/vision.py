"""``pibg calibrate`` and ``pibg read``: the camera's view of the board from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from pibg.commands import add_out, need_out
from pibg.exc import CalibrationError, CameraUnavailableError
from pibg.observation import BoardObservation, RegionRead
from pibg.vision.geometry import START_POINTS, WHITE_HOMES, Array, VisionConfig


def register(sub: Any) -> None:
    cal = sub.add_parser("calibrate", help="learn the board from a frame of the starting position",
                         description="Learn a board from one frame of the starting position "
                                     "and write a TOML calibration file.")
    cal.add_argument("image", nargs="?", help="a frame of the starting position (JPEG/PNG)")
    add_out(cal, "calibration file to write (with --source camera, default: the "
                 "configuration's [vision] calibration)", old=["--output"])
    cal.add_argument("--source", choices=["file", "camera"], default="file",
                     help="file (the default: IMAGE) or camera (one frame from the configured "
                          "camera; stop the service first: it holds the camera)")
    cal.add_argument("--config", type=Path, default=None,
                     help="with --source camera: pibg.toml (default: $PIBG_CONFIG or "
                          "/etc/pibg/pibg.toml)")
    cal.add_argument("--corners", help="surface corners 'x,y;x,y;x,y;x,y' (TL;TR;BR;BL), "
                                       "if they are not found automatically")
    cal.add_argument("--white-home", choices=WHITE_HOMES,
                     help="where White's home board lies in the image (found if omitted)")
    cal.add_argument("--profile", help="board profile: standard, tournament, travel")
    cal.set_defaults(handler=run_calibrate)

    rd = sub.add_parser("read", help="read the checkers, dice and cube in a frame",
                        description="Read one frame of a calibrated board.")
    rd.add_argument("image", help="a frame (JPEG/PNG)")
    rd.add_argument("--calibration", help="calibration file from `pibg calibrate`")
    rd.add_argument("--corners", help="surface corners 'x,y;x,y;x,y;x,y' (TL;TR;BR;BL), "
                                      "to read without a calibration file")
    rd.add_argument("--white-home", choices=WHITE_HOMES,
                    help="with --corners: where White's home board lies in the image (found if "
                         "omitted only in a frame of the starting position)")
    rd.add_argument("--profile", help="with --corners: standard, tournament, travel")
    rd.add_argument("--json", action="store_true", help="print BoardObservation JSON")
    rd.set_defaults(handler=run_read)


def _image(path: str) -> Array:
    """The frame in ``path``, its size and colour checked from the header before decoding
    (:func:`pibg.vision.imagefile.load_image`)."""
    from pibg.vision.imagefile import load_image

    return load_image(path)


def _camera_frame(args: argparse.Namespace) -> tuple[Array, Path]:
    """One frame from the camera the configuration names, and where its calibration goes
    (``-o``, else the configuration's ``[vision] calibration``).

    :raises CameraUnavailableError: the camera cannot be opened or gives no frame.
    :raises ConfigError: the configuration cannot be read.
    """
    from pibg.camera import EndOfFrames, open_source
    from pibg.config import load_config

    if args.image:
        raise CalibrationError("--source camera takes no IMAGE: the frame comes from the camera")
    config = load_config(args.config)
    try:
        with open_source(config.camera) as cam:
            frame = cam.read(timeout=10.0)
    except EndOfFrames:
        raise CameraUnavailableError(f"the camera ({config.camera.source}) gave no frame: "
                                     f"run pibg doctor") from None
    out: Path = args.out or config.vision.calibration
    return np.ascontiguousarray(frame), out


def run_calibrate(args: argparse.Namespace) -> int:
    from pibg.vision.calibrate import parse_corners
    from pibg.vision.pipeline import Vision

    if args.source == "camera":
        img, out = _camera_frame(args)
    else:
        if not args.image:
            raise CalibrationError("give a frame of the starting position: "
                                   "pibg calibrate IMAGE -o F")
        img, out = _image(args.image), need_out(args, "the calibration")
    # without --corners, the board finder's
    corners = parse_corners(args.corners) if args.corners else None
    cal = Vision.from_start_frame(img, corners, args.white_home, VisionConfig(),
                                  profile=args.profile).calibration
    cal.save(out)
    print(f"calibrated: {out} (profile {cal.profile}, White's home {cal.white_home}, "
          f"checker radius {cal.checker_radius_px:.1f} px)")
    note = cal.naming_note()
    if note and not args.white_home:
        print(f"note: {note}")
    return 0


def run_read(args: argparse.Namespace) -> int:
    from pibg.vision.pipeline import Vision

    img = _image(args.image)
    if args.calibration:
        vision = Vision.from_calibration(Path(args.calibration))
    elif args.corners:
        from pibg.vision.calibrate import parse_corners

        corners = parse_corners(args.corners)
        if args.white_home:
            vision = Vision.from_corners(img, corners, args.white_home, args.profile)
        else:
            vision = _start_vision(img, corners, args.profile)
    else:
        raise CalibrationError("give --calibration FILE, or --corners and --white-home")
    obs = vision.observe(img)
    if args.json:
        print(json.dumps(obs.to_json()))
    else:
        print(ascii_board(obs))
    return 0


def _start_vision(img: Array, corners: Array, profile: str | None) -> Any:
    """Without ``--white-home`` the side is found as ``pibg calibrate`` finds it, which needs
    the starting position; any other frame is refused rather than read from a guessed side.

    :raises CalibrationError: the frame is not the starting position.
    """
    from pibg.vision.pipeline import Vision

    why = "it does not read as one"
    try:
        vision = Vision.from_start_frame(img, corners, None, VisionConfig(), profile=profile)
        obs = vision.observe(img)
        # learn() takes a frame near enough the start; only the start itself tells the side
        if obs.readable and [r.count for r in obs.points] == list(START_POINTS):
            return vision
    except CalibrationError as exc:
        why = str(exc)
    raise CalibrationError(
        f"say where White's home board lies with --white-home ({', '.join(WHITE_HOMES)}): "
        f"pibg finds the side itself only in a frame of the starting position, and this frame "
        f"is not one ({why})")


def _cell(r: RegionRead) -> str:
    n = r.count
    if n == 0:
        return "  . "
    mark = "O" if n > 0 else "X"
    doubt = "?" if r.confidence < 0.8 else " "
    return f"{abs(n):>2}{mark}{doubt}"


def ascii_board(obs: BoardObservation) -> str:
    """The board as White sees it: 13-24 on top, 12-1 below; O = White, X = Black."""
    if not obs.readable:
        return f"not readable: {obs.reason}"
    p = obs.points
    top = " ".join(_cell(p[i]) for i in range(12, 18)) + " |BAR| " + \
        " ".join(_cell(p[i]) for i in range(18, 24))
    bot = " ".join(_cell(p[i]) for i in range(11, 5, -1)) + " |BAR| " + \
        " ".join(_cell(p[i]) for i in range(5, -1, -1))
    nums_top = " ".join(f"{i:>3} " for i in range(13, 19)) + "       " + \
        " ".join(f"{i:>3} " for i in range(19, 25))
    nums_bot = " ".join(f"{i:>3} " for i in range(12, 6, -1)) + "       " + \
        " ".join(f"{i:>3} " for i in range(6, 0, -1))
    lines = [nums_top, top, "", bot, nums_bot,
             f"bar: White {obs.bar_white.count}  Black {obs.bar_black.count}    "
             f"off: White {obs.off_white.count}  Black {obs.off_black.count}"]
    dice = ", ".join(f"{d.value}{'' if d.flat else ' (cocked)'}" for d in obs.dice) or "none"
    cube = "none seen" if obs.cube is None else f"{obs.cube.value} ({obs.cube.owner})"
    lines.append(f"dice: {dice}    cube: {cube}")
    lines.append("O = White (lighter), X = Black; ? = less than 80% sure")
    return "\n".join(lines)
