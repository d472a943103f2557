"""Issue 39: config numbers that are not numbers (nan, inf) are refused like any bad value."""

from __future__ import annotations

import pytest

from pibg.config import parse_config
from pibg.exc import ConfigError


@pytest.mark.parametrize("section,key,value", [
    ("camera", "fps", "nan"), ("vision", "stable_seconds", "nan"),
    ("vision", "stable_seconds", "inf"), ("buttons", "hold_time", "-nan"),
])
def test_nan_and_inf_are_refused_naming_the_key(section: str, key: str, value: str):
    with pytest.raises(ConfigError, match=rf"\[{section}\] {key} = (nan|inf): expected a number"):
        parse_config(f"[{section}]\n{key} = {value}\n")


def test_allowed_hosts_is_a_list_of_names():
    cfg = parse_config('[web]\nallowed_hosts = ["pibg.club.lan", " board.local "]\n')
    assert cfg.web.allowed_hosts == ("pibg.club.lan", "board.local")
    assert parse_config("").web.allowed_hosts == ()
    with pytest.raises(ConfigError, match=r"\[web\] allowed_hosts = .*expected a list of names"):
        parse_config('[web]\nallowed_hosts = "pibg.club.lan"\n')
