"""The one configuration file: strict TOML loaded into frozen dataclasses.

Every key has a default, so an empty file is a valid configuration. An unknown section or key
is an error naming the key and the file (a typo must never be silently ignored, as picamera2's
``_ALLOWED_FIELDS`` does it); a bad value names the key, the value and what was expected.

>>> cfg = parse_config('[match]\\nlength = 7\\n[serial]\\nbrightness = 40\\n')
>>> cfg.match.length, cfg.serial.brightness, cfg.camera.source
(7, 40, 'picamera2')

Relative paths are taken relative to the directory of the file they appear in.
The documented example is ``pibg/data/pibg.example.toml`` (:func:`example_path`).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pibg.exc import ConfigError

#: Where the service looks when ``--config`` is not given (``ConfigurationDirectory=pibg``).
DEFAULT_CONFIG_PATH = Path("/etc/pibg/pibg.toml")
#: Environment variable that overrides :data:`DEFAULT_CONFIG_PATH`.
CONFIG_ENV = "PIBG_CONFIG"

CAMERA_SOURCES = ("picamera2", "opencv", "folder", "sim")
BAUD_RATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
#: BCM numbers usable for buttons on a 40-pin header (0/1 are the HAT EEPROM pins).
GPIO_PINS = range(2, 28)


def _spec(default: Any, **checks: Any) -> Any:
    """A dataclass field with a default and value checks kept in its metadata."""
    if isinstance(default, tuple | list | dict):
        return field(default_factory=lambda: default, metadata=checks)
    return field(default=default, metadata=checks)


@dataclass(frozen=True, slots=True)
class MatchConfig:
    #: Match length in points; 0 plays for money (unlimited games, cube rules below apply).
    length: int = _spec(0, min=0, max=99)
    crawford: bool = _spec(True)
    #: Money play only: gammons count only after a double.
    jacoby: bool = _spec(False)
    #: Money play only: the taker may redouble at once, keeping the cube.
    beaver: bool = _spec(False)
    #: Money play only: equal opening dice double the cube.
    automatic_doubles: bool = _spec(False)
    #: How many automatic doubles a game may have (0 = none).
    max_automatic_doubles: int = _spec(1, min=0, max=6)
    #: Highest cube value (0 = no limit).
    cube_limit: int = _spec(0, choices=(0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024))
    player_white: str = _spec("White", nonempty=True)
    player_black: str = _spec("Black", nonempty=True)

    def to_settings(self) -> Any:
        """The :class:`pibg.events.MatchSettings` this section describes."""
        from pibg.events import MatchSettings

        return MatchSettings(
            length=self.length,
            white=self.player_white,
            black=self.player_black,
            crawford=self.crawford,
            jacoby=self.jacoby,
            beaver=self.beaver,
            automatic_doubles=self.automatic_doubles,
            max_automatic_doubles=self.max_automatic_doubles,
            cube_limit=self.cube_limit,
        )


@dataclass(frozen=True, slots=True)
class CameraConfig:
    source: str = _spec("picamera2", choices=CAMERA_SOURCES)
    #: USB camera index for ``opencv`` (ignored when ``path`` is set).
    device: int = _spec(0, min=0, max=63)
    #: A video file (``opencv``) or an image folder (``folder``).
    path: Path | None = _spec(None)
    size: tuple[int, int] = _spec((1280, 960), min=16, max=8192)
    fps: float = _spec(5.0, min=0.5, max=60.0)
    lores_size: tuple[int, int] = _spec((320, 240), min=16, max=2048)


@dataclass(frozen=True, slots=True)
class VisionConfig:
    calibration: Path = _spec(Path("/var/lib/pibg/calibration.toml"))
    #: How long the board must look the same before a position is taken as played.
    stable_seconds: float = _spec(1.0, min=0.0, max=30.0)


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """BCM pin numbers; ``false`` leaves a button out (take/drop are optional)."""

    confirm: int | None = _spec(17, pins=True)
    undo: int | None = _spec(27, pins=True)
    double: int | None = _spec(22, pins=True)
    take: int | None = _spec(23, pins=True)
    drop: int | None = _spec(24, pins=True)
    #: Seconds a button must be held for its long-press meaning.
    hold_time: float = _spec(1.0, min=0.2, max=10.0)
    #: Edges closer together than this after an accepted edge are contact bounce.
    bounce_time: float = _spec(0.05, min=0.0, max=0.5)

    def pins(self) -> dict[str, int]:
        """The wired buttons: name -> BCM pin."""
        names = ("confirm", "undo", "double", "take", "drop")
        return {n: p for n in names if (p := getattr(self, n)) is not None}


@dataclass(frozen=True, slots=True)
class SerialConfig:
    #: Serial device of the Pico; ``auto`` finds ``/dev/serial/by-id/usb-MicroPython*``.
    port: str = _spec("auto", nonempty=True)
    baud: int = _spec(115200, choices=BAUD_RATES)
    #: LED brightness 0..255; the firmware caps it at 64 (25 %) to stay within USB power.
    brightness: int = _spec(48, min=0, max=255)


@dataclass(frozen=True, slots=True)
class RecordsConfig:
    directory: Path = _spec(Path("/var/lib/pibg/records"))


@dataclass(frozen=True, slots=True)
class WebConfig:
    enabled: bool = _spec(False)
    host: str = _spec("127.0.0.1", nonempty=True)
    port: int = _spec(8080, min=1, max=65535)
    #: Shared secret for the control endpoints; empty means read-only spectators only.
    token: str = _spec("")
    #: Further names the page may be opened by (besides addresses, localhost and this
    #: machine's name): any other ``Host`` is refused, against DNS rebinding.
    allowed_hosts: tuple[str, ...] = _spec((), names=True)


@dataclass(frozen=True, slots=True)
class Config:
    match: MatchConfig = field(default_factory=MatchConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    records: RecordsConfig = field(default_factory=RecordsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    #: The file this was loaded from (``None`` for defaults or a string).
    source: Path | None = None


_SECTIONS: dict[str, type] = {
    name: hint for name, hint in typing.get_type_hints(Config).items() if name != "source"
}

T = TypeVar("T")


def example_path() -> Path:
    """The documented example configuration shipped in the package."""
    return Path(__file__).with_name("data") / "pibg.example.toml"


def default_config_path() -> Path:
    env = os.environ.get(CONFIG_ENV)
    return Path(env) if env else DEFAULT_CONFIG_PATH


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and check a configuration file.

    :param path: the file; ``None`` means ``$PIBG_CONFIG`` or ``/etc/pibg/pibg.toml``.
    :raises ConfigError: the file is missing, is not TOML, or has an unknown key or bad value.
    """
    p = Path(path) if path is not None else default_config_path()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file (copy {example_path()})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read configuration: {exc}") from exc
    return parse_config(text, p)


def parse_config(text: str, source: str | os.PathLike[str] | None = None) -> Config:
    """Parse configuration text; ``source`` names the file in errors and anchors relative paths.

    :raises ConfigError: on a TOML syntax error, an unknown key, or a bad value.
    """
    where = str(source) if source is not None else "<config>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    base = Path(source).resolve().parent if source is not None else Path.cwd()
    sections: dict[str, Any] = {}
    for name, body in data.items():
        if name not in _SECTIONS:
            known = ", ".join(f"[{s}]" for s in _SECTIONS)
            raise ConfigError(f"{where}: unknown section [{name}] (known: {known})")
        if not isinstance(body, dict):
            raise ConfigError(f"{where}: {name} must be a section [{name}], got {body!r}")
        sections[name] = _build(_SECTIONS[name], body, name, where, base)
    cfg = Config(**sections, source=Path(source) if source is not None else None)
    _check_cross(cfg, where)
    return cfg


def _check_cross(cfg: Config, where: str) -> None:
    seen: dict[int, str] = {}
    for name, pin in cfg.buttons.pins().items():
        if pin in seen:
            raise ConfigError(
                f"{where}: [buttons] {name} = {pin}: pin already used by {seen[pin]}; "
                "expected a different BCM pin for each button"
            )
        seen[pin] = name
    if cfg.match.length:
        for key in ("jacoby", "beaver", "automatic_doubles"):
            if getattr(cfg.match, key):
                raise ConfigError(
                    f"{where}: [match] {key} = true: expected false with length = "
                    f"{cfg.match.length} ({key} is a money-play option: set length = 0)"
                )
    if cfg.camera.source == "folder" and cfg.camera.path is None:
        raise ConfigError(f"{where}: [camera] source = 'folder' needs path = <image folder>")


def _build(cls: type[T], body: Mapping[str, Any], section: str, where: str, base: Path) -> T:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, raw in body.items():
        if key not in fields:
            raise ConfigError(
                f"{where}: unknown key [{section}] {key!r}{_did_you_mean(key, fields)}"
                f" (known: {', '.join(fields)})"
            )
        f = fields[key]
        values[key] = _convert(raw, hints[key], dict(f.metadata), f"[{section}] {key}", where, base)
    return cls(**values)


def _did_you_mean(key: str, known: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f", did you mean {close[0]!r}?" if close else ""


def _bad(where: str, key: str, raw: Any, expected: str) -> ConfigError:
    return ConfigError(f"{where}: {key} = {_toml_repr(raw)}: expected {expected}")


def _toml_repr(raw: Any) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, str):
        return repr(raw)
    return str(raw)


def _range_text(meta: Mapping[str, Any]) -> str:
    lo, hi = meta.get("min"), meta.get("max")
    if lo is not None and hi is not None:
        return f" in {lo}..{hi}"
    if lo is not None:
        return f" >= {lo}"
    return ""


def _convert(raw: Any, hint: Any, meta: Mapping[str, Any], key: str, where: str, base: Path) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if meta.get("pins"):
        if raw is False:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int) or raw not in GPIO_PINS:
            return _raise(_bad(where, key, raw, "a BCM GPIO pin number 2..27, or false"))
        return raw
    if meta.get("names"):
        if not isinstance(raw, list) or not all(isinstance(v, str) and v.strip() for v in raw):
            return _raise(_bad(where, key, raw, 'a list of names, e.g. ["pibg.club.lan"]'))
        return tuple(v.strip() for v in raw)
    if origin in (types.UnionType, typing.Union) and type(None) in args:
        inner = next(a for a in args if a is not type(None))
        if raw == "":
            return None
        return _convert(raw, inner, meta, key, where, base)
    if "choices" in meta:
        if raw not in meta["choices"] or isinstance(raw, bool):
            options = ", ".join(_toml_repr(c) for c in meta["choices"])
            return _raise(_bad(where, key, raw, f"one of {options}"))
        return raw
    if hint is bool:
        if not isinstance(raw, bool):
            return _raise(_bad(where, key, raw, "true or false"))
        return raw
    if hint is int or hint is float:
        ok = isinstance(raw, int) if hint is int else isinstance(raw, int | float)
        what = "an integer" if hint is int else "a number"
        if isinstance(raw, bool) or not ok or not math.isfinite(raw):  # nan passes < and >
            return _raise(_bad(where, key, raw, what + _range_text(meta)))
        if ("min" in meta and raw < meta["min"]) or ("max" in meta and raw > meta["max"]):
            return _raise(_bad(where, key, raw, what + _range_text(meta)))
        return hint(raw)
    if hint is str:
        if not isinstance(raw, str) or (meta.get("nonempty") and not raw.strip()):
            what = "a non-empty string" if meta.get("nonempty") else "a string"
            return _raise(_bad(where, key, raw, what))
        return raw
    if hint is Path:
        if not isinstance(raw, str) or not raw:
            return _raise(_bad(where, key, raw, "a path string"))
        p = Path(raw).expanduser()
        return p if p.is_absolute() else base / p
    if origin is tuple:
        ok = (
            isinstance(raw, list)
            and len(raw) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
            and all(meta.get("min", 0) <= v <= meta.get("max", 1 << 30) for v in raw)
        )
        if not ok:
            return _raise(_bad(where, key, raw, f"[width, height] integers{_range_text(meta)}"))
        return (raw[0], raw[1])
    raise AssertionError(f"config field {key} has unsupported type {hint}")  # pragma: no cover


def _raise(exc: ConfigError) -> Any:
    raise exc
