"""``pibg doctor``: check the rig piece by piece and say how to fix what is wrong.

Each check is a function ``(Config) -> CheckResult``; :func:`run_checks` runs them in order
(configuration first) and :func:`format_report` prints one ✓/✗ line each with the fix under it.
The probes that touch hardware are injectable, so the whole doctor runs in tests::

    results = run_checks(path, probes={"camera": lambda cfg: CheckResult("camera", True, "ok")})
"""

from __future__ import annotations

import json
import math
import os
import shlex
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pibg.config import Config, default_config_path, example_path, load_config
from pibg.exc import PibgError
from pibg.hw.storage import MIN_FREE_BYTES, DiskUsage, free_bytes

OK_MARK = "✓"
BAD_MARK = "✗"


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    fix: str = ""


Probe = Callable[[Config], CheckResult]

_BUSY_HINT = "if the service is running it holds the device: sudo systemctl stop pibg"


def _busy(text: str) -> bool:
    low = text.lower()
    return "busy" in low or "lock" in low or "in use" in low


# --- the checks -------------------------------------------------------------------------------


def check_config(path: str | os.PathLike[str] | None) -> tuple[CheckResult, Config]:
    """Load the configuration; on failure the other checks run with the defaults."""
    try:
        cfg = load_config(path)
    except PibgError as exc:
        p = Path(path) if path is not None else default_config_path()
        if p.exists():
            fix = (f"edit {p} where the line above says (every key is described in "
                   f"{example_path()}); the checks below use the defaults")
        else:
            fix = (f"sudo cp {example_path()} {p}, then set the match and the players in it; "
                   f"the checks below use the defaults")
        return CheckResult("config", False, str(exc), fix), Config()
    return CheckResult("config", True, f"{cfg.source} loaded"), cfg


def check_camera(cfg: Config, *, timeout: float = 5.0, **source_kwargs: Any) -> CheckResult:
    """Open the configured source and read one frame."""
    from pibg.camera import open_source

    what = cfg.camera.source
    try:
        with open_source(cfg.camera, **source_kwargs) as cam:
            frame = cam.read(timeout=timeout)
    except PibgError as exc:
        fix = {
            "picamera2": "check the ribbon cable (contacts facing the board), "
            "`rpicam-hello --list-cameras`, user in group video",
            "opencv": "check `ls /dev/video*` and [camera] device / path",
            "folder": "check [camera] path",
            "sim": "the simulator needs pibg.sim",
        }[what]
        if "not importable" in str(exc):
            fix = "sudo apt install python3-picamera2; venv made with --system-site-packages"
        if _busy(str(exc)):
            fix = _BUSY_HINT
        return CheckResult("camera", False, f"{what}: {exc}", fix)
    h, w = frame.shape[:2]
    return CheckResult("camera", True, f"{what}: got a {w}x{h} frame")


def check_pins(cfg: Config, *, pin_factory: Any = None) -> CheckResult:
    """Claim every configured button pin through gpiozero's factory, then release them."""
    pins = cfg.buttons.pins()
    if not pins:
        return CheckResult("buttons", True, "no buttons configured")
    try:
        from gpiozero import Button, Device
        from gpiozero.exc import GPIOZeroError
    except ImportError as exc:  # pragma: no cover - gpiozero is a dependency
        return CheckResult("buttons", False, f"gpiozero missing: {exc}", "pip install gpiozero")
    claimed: list[Any] = []
    try:
        for name, pin in pins.items():
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    claimed.append(Button(pin, pull_up=True, pin_factory=pin_factory))
            except (GPIOZeroError, OSError, RuntimeError) as exc:
                factory = os.environ.get("GPIOZERO_PIN_FACTORY", "(auto)")
                tried = "; ".join(str(w.message) for w in caught)
                return CheckResult(
                    "buttons",
                    False,
                    f"{name} on GPIO{pin}: {type(exc).__name__}: {exc}"
                    + (f" ({tried})" if tried else ""),
                    f"GPIOZERO_PIN_FACTORY={factory}: on the Pi install python3-lgpio, set "
                    "GPIOZERO_PIN_FACTORY=lgpio, add the user to group gpio, run from a "
                    "writable directory; check that no other program uses the pin",
                )
        factory_name = type(pin_factory or Device.pin_factory).__name__
        stuck = [n for n, b in zip(pins, claimed, strict=True) if b.is_pressed]
    finally:
        for b in claimed:
            b.close()
    listing = ", ".join(f"{n}=GPIO{p}" for n, p in pins.items())
    if stuck:
        return CheckResult(
            "buttons",
            False,
            f"{', '.join(stuck)} reads as pressed ({listing})",
            "a button wired to 3V3 instead of GND, or a short to GND",
        )
    return CheckResult("buttons", True, f"{listing} via {factory_name}")


def check_serial(cfg: Config, *, transport_factory: Any = None) -> CheckResult:
    """Find the Pico, open its port and say HELLO."""
    from pibg.hw.link import Link, SerialTransport, resolve_port

    try:
        path = resolve_port(cfg.serial.port)
        transport = (transport_factory or (lambda p: SerialTransport(p, cfg.serial.baud)))(path)
    except PibgError as exc:
        fix = (
            _BUSY_HINT
            if _busy(str(exc))
            else (
                "plug the Pico in with a data USB cable; `ls /dev/serial/by-id/`; "
                "user in group dialout"
            )
        )
        return CheckResult("serial", False, str(exc), fix)
    try:
        info = Link(transport).hello()
    except PibgError as exc:
        return CheckResult(
            "serial",
            False,
            f"{path}: {exc}",
            "flash the firmware: mpremote cp hardware/pico/protocol.py hardware/pico/main.py : "
            "then reset the Pico (see hardware/README.md)",
        )
    finally:
        transport.close()
    return CheckResult(
        "serial", True, f"{path}: pibg-pico firmware {info.firmware}, {info.leds} LEDs"
    )


def calibrate_command(cfg: Config) -> str:
    """The command that calibrates the rig ``cfg`` describes from its own camera."""
    config = ""
    if cfg.source is not None and cfg.source != default_config_path():
        config = f" --config {shlex.quote(str(cfg.source))}"
    return f"pibg calibrate --source camera{config} -o {shlex.quote(str(cfg.vision.calibration))}"


def check_calibration(cfg: Config) -> CheckResult:
    path = cfg.vision.calibration
    fix = (f"stop the service, set up the starting position (no dice on the board, the cube in "
           f"the middle) and run `{calibrate_command(cfg)}`")
    if not path.exists():
        return CheckResult("calibration", False, f"{path} does not exist", fix)
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return CheckResult("calibration", False, f"{path}: unreadable: {exc}", fix)
    if not text.strip():
        return CheckResult("calibration", False, f"{path} is empty", fix)
    return CheckResult("calibration", True, f"{path}")


def check_disk(
    cfg: Config,
    *,
    min_free: int = MIN_FREE_BYTES,
    usage: Callable[[str], DiskUsage] | None = None,
) -> CheckResult:
    """The records directory exists (or can be made), is writable and has room."""
    d = cfg.records.directory
    probe = d
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not os.access(probe, os.W_OK):
        return CheckResult(
            "disk",
            False,
            f"{d}: not writable by this user",
            "the service's StateDirectory=pibg makes /var/lib/pibg; "
            "for manual runs choose a [records] directory you own",
        )
    free = free_bytes(d, usage)
    mb = free // (1024 * 1024)
    if free < min_free:
        return CheckResult(
            "disk",
            False,
            f"{d}: only {mb} MB free",
            "delete old records or move [records] directory to a bigger disk",
        )
    return CheckResult("disk", True, f"{d}: {mb} MB free")


def check_dice_model(cfg: Config, *, model: os.PathLike[str] | None = None) -> CheckResult:
    """The die-face network ships in the package, loads, and reads a drawn five."""
    from pibg.vision import dice_net
    from pibg.vision.dice_read import draw_die

    path = Path(model) if model is not None else dice_net.MODEL
    fix = "reinstall pibg (pip install --force-reinstall .) to restore pibg/data/dice_net.onnx"
    try:
        value, p = dice_net.read_face(draw_die(5, size=32, angle=20.0), model=path)
    except PibgError as exc:
        return CheckResult("dice model", False, str(exc), fix)
    if value != 5:
        return CheckResult("dice model", False, f"{path}: reads a drawn five as {value}", fix)
    return CheckResult("dice model", True, f"{path.name}: reads a drawn five ({p:.2f})")


def check_spot_model(cfg: Config, *, model: os.PathLike[str] | None = None) -> CheckResult:
    """The dice-finding network ships in the package, loads, and finds a drawn die at its
    centre."""
    import numpy as np

    from pibg.vision import dice_spot
    from pibg.vision.dice_config import DEFAULT_CONFIG
    from pibg.vision.dice_read import draw_die

    path = Path(model) if model is not None else dice_spot.MODEL
    fix = "reinstall pibg (pip install --force-reinstall .) to restore pibg/data/dice_spot_net.onnx"
    view = np.full((128, 160, 3), (40, 110, 60), np.uint8)
    die = draw_die(5, size=16, angle=20.0, background=(40, 110, 60))
    view[52:52 + die.shape[0], 68:68 + die.shape[1]] = die
    centre = (68 + die.shape[1] / 2, 52 + die.shape[0] / 2)
    try:
        found = dice_spot.spots(view, DEFAULT_CONFIG.spot_sure, path)
    except PibgError as exc:
        return CheckResult("dice-finding model", False, str(exc), fix)
    if not any(math.dist((x, y), centre) <= dice_spot.STRIDE for x, y, _ in found):
        return CheckResult("dice-finding model", False, f"{path}: finds no drawn die", fix)
    return CheckResult("dice-finding model", True, f"{path.name}: finds a drawn die")


def check_place_model(cfg: Config, *, model: os.PathLike[str] | None = None) -> CheckResult:
    """The checker-place network ships in the package, loads, and finds the 30 checkers of
    a drawn starting position and no others."""
    import cv2

    from pibg.sim import SimScene, render, sim_corners
    from pibg.vision import place_net
    from pibg.vision.calibrate import start_labels
    from pibg.vision.geometry import PROFILES, START_POINTS, Layout, homography

    name = "place model"
    path = Path(model) if model is not None else place_net.MODEL
    fix = "reinstall pibg (pip install --force-reinstall .) to restore pibg/data/place_net.onnx"
    lay = Layout(PROFILES["standard"])
    frame = render(SimScene(START_POINTS))
    canon = cv2.warpPerspective(frame, homography(sim_corners(), lay, "bottom-right"), lay.size)
    try:
        seen = place_net.read(canon, lay.point_slots(), lay.checker_px, path).checker > 0
    except PibgError as exc:
        return CheckResult(name, False, str(exc), fix)
    wrong = int((seen != (start_labels(lay.slots_per_point()) != 0)).sum())
    if wrong:
        return CheckResult(name, False,
                           f"{path}: {wrong} places of a drawn starting position read wrong", fix)
    return CheckResult(name, True, f"{path.name}: finds the 30 checkers of a drawn start")


def check_cube_model(cfg: Config, *, model: os.PathLike[str] | None = None) -> CheckResult:
    """The cube-face network ships in the package, loads, and reads a drawn 32."""
    import cv2
    import numpy as np

    from pibg.vision import cube

    path = Path(model) if model is not None else cube.CUBE_MODEL
    fix = "reinstall pibg (pip install --force-reinstall .) to restore pibg/data/cube_net.onnx"
    patch = np.full((128, 128, 3), 40, np.uint8)
    cv2.rectangle(patch, (40, 40), (88, 88), (225, 230, 230), -1)
    cv2.putText(patch, "32", (45, 75), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2,
                cv2.LINE_AA)
    try:
        value, conf = cube.read_cube_face(patch, path)
    except PibgError as exc:
        return CheckResult("cube model", False, str(exc), fix)
    if value != 32:
        return CheckResult("cube model", False, f"{path}: reads a drawn 32 as {value}", fix)
    return CheckResult("cube model", True, f"{path.name}: reads a drawn 32 ({conf:.2f})")


DEFAULT_ORDER = ("camera", "buttons", "serial", "calibration", "dice model",
                 "dice-finding model", "place model", "cube model", "disk")


def default_probes() -> dict[str, Probe]:
    return {
        "camera": check_camera,
        "buttons": check_pins,
        "serial": check_serial,
        "calibration": check_calibration,
        "dice model": check_dice_model,
        "dice-finding model": check_spot_model,
        "place model": check_place_model,
        "cube model": check_cube_model,
        "disk": check_disk,
    }


def run_checks(
    config_path: str | os.PathLike[str] | None,
    *,
    probes: Mapping[str, Probe] | None = None,
    skip: Iterable[str] = (),
) -> list[CheckResult]:
    """Run the configuration check, then every probe (``probes`` overrides the defaults)."""
    first, cfg = check_config(config_path)
    results = [first]
    table = default_probes()
    table.update(probes or {})
    skipped = set(skip)
    for name in DEFAULT_ORDER + tuple(k for k in table if k not in DEFAULT_ORDER):
        if name in skipped:
            continue
        try:
            results.append(table[name](cfg))
        except Exception as exc:  # a probe bug must not hide the other checks
            results.append(
                CheckResult(
                    name, False, f"check crashed: {type(exc).__name__}: {exc}", "please report this"
                )
            )
    return results


def format_report(results: Iterable[CheckResult]) -> str:
    lines = []
    for r in results:
        lines.append(f"{OK_MARK if r.ok else BAD_MARK} {r.name:<12} {r.detail}")
        if not r.ok and r.fix:
            lines.append(f"  {'':<12} fix: {r.fix}")
    return "\n".join(lines)


def exit_code(results: Iterable[CheckResult]) -> int:
    return 0 if all(r.ok for r in results) else 1
