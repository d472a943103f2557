"""Every command says what it does, every option what it means, and --version answers."""

from __future__ import annotations

import argparse

import pytest

import pibg
from pibg.__main__ import build_parser, main, version


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("pibg has no sub-commands")


COMMANDS = _commands()


def test_the_commands_are_found() -> None:
    assert {"demo", "replay", "run", "calibrate", "read", "score", "stats"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_a_description(name: str) -> None:
    assert COMMANDS[name].description, f"pibg {name} --help has no description"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_help(name: str) -> None:
    missing = [a.option_strings[0] if a.option_strings else a.dest
               for a in COMMANDS[name]._actions if not a.help]
    assert not missing, f"pibg {name}: no help text for {missing}"


def test_corners_are_shown_quoted() -> None:
    for name, sub in COMMANDS.items():
        for a in sub._actions:
            if "--corners" in a.option_strings:
                assert "'x,y;x,y;x,y;x,y'" in (a.help or ""), name


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"pibg {version()}"
    assert version() == pibg.__version__
