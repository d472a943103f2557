"""The strict TOML configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from pibg.config import (
    Config,
    ConfigError,
    example_path,
    load_config,
    parse_config,
)


def test_defaults_and_empty_file() -> None:
    cfg = parse_config("")
    assert cfg == Config()
    assert cfg.match.length == 0 and cfg.camera.source == "picamera2"
    assert cfg.buttons.pins() == {"confirm": 17, "undo": 27, "double": 22, "take": 23, "drop": 24}


def test_example_file_loads_and_documents_every_key() -> None:
    path = example_path()
    cfg = load_config(path)
    assert cfg.source == path and cfg.match.length == 7
    text = path.read_text()
    for section in ("match", "camera", "vision", "buttons", "serial", "records", "web"):
        assert f"[{section}]" in text
        for key in type(getattr(cfg, section)).__dataclass_fields__:
            assert f"{key} =" in text, f"[{section}] {key} is not documented in the example"


def test_unknown_key_is_one_line_error_naming_key_and_file(tmp_path: Path) -> None:
    f = tmp_path / "pibg.toml"
    f.write_text("[camera]\nsorce = 'opencv'\n")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    msg = str(err.value)
    assert "\n" not in msg
    assert str(f) in msg and "'sorce'" in msg and "did you mean 'source'" in msg


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[cammera]\n", "unknown section [cammera]"),
        (
            "[serial]\nbrightness = 300\n",
            "[serial] brightness = 300: expected an integer in 0..255",
        ),
        ("[camera]\nsource = 'usb'\n", "[camera] source = 'usb': expected one of 'picamera2'"),
        ("[match]\njacoby = 1\n", "[match] jacoby = 1: expected true or false"),
        ("[match]\nlength = 'seven'\n", "[match] length = 'seven': expected an integer"),
        ("[buttons]\nundo = 40\n", "[buttons] undo = 40: expected a BCM GPIO pin number"),
        ("[buttons]\nundo = 17\n", "pin already used by confirm"),
        ("[camera]\nsize = [640]\n", "[camera] size = [640]: expected [width, height]"),
        ("[camera]\nfps = true\n", "[camera] fps = true: expected a number"),
        ("[web]\nhost = ''\n", "[web] host = '': expected a non-empty string"),
        ("[camera]\nsource = 'folder'\n", "needs path"),
        ("[match]\nlength = \n", "not valid TOML"),
        ("match = 3\n", "match must be a section"),
    ],
)
def test_bad_values(text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=r"^/etc/pibg/pibg\.toml: ") as err:
        parse_config(text, "/etc/pibg/pibg.toml")
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_values_convert(tmp_path: Path) -> None:
    cfg = parse_config(
        "[camera]\nsource='folder'\npath='frames'\nfps=2\nsize=[640,480]\n"
        "[buttons]\ntake=false\ndrop=false\n[vision]\ncalibration='/x/cal.json'\n",
        tmp_path / "pibg.toml",
    )
    assert cfg.camera.path == tmp_path / "frames"
    assert cfg.camera.fps == 2.0 and isinstance(cfg.camera.fps, float)
    assert cfg.camera.size == (640, 480)
    assert cfg.buttons.pins() == {"confirm": 17, "undo": 27, "double": 22}
    assert cfg.vision.calibration == Path("/x/cal.json")


def test_missing_file_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")
    f = tmp_path / "c.toml"
    f.write_text("[web]\nport = 9000\n")
    monkeypatch.setenv("PIBG_CONFIG", str(f))
    assert load_config().web.port == 9000


def test_config_is_frozen() -> None:
    cfg = Config()
    with pytest.raises(AttributeError):
        cfg.match.length = 3  # type: ignore[misc]


def test_match_section_builds_match_settings() -> None:
    settings = parse_config("[match]\nlength = 0\njacoby = true\nbeaver = true\n").match
    s = settings.to_settings()
    assert s.money and s.jacoby and s.beaver and s.max_automatic_doubles == 1
    example = load_config(example_path()).match.to_settings()
    assert example.length == 7 and example.crawford and not example.jacoby


def test_money_options_with_a_match_length_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"\[match\] jacoby = true: expected false with length"):
        parse_config("[match]\nlength = 5\njacoby = true\n", "/etc/pibg/pibg.toml")
