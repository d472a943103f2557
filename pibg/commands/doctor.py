"""``pibg doctor``: check camera, buttons, serial link, calibration, disk and configuration."""

from __future__ import annotations

import argparse
import sys

from pibg.doctor import DEFAULT_ORDER, exit_code, format_report, run_checks


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the rig (camera, buttons, Pico, calibration, disk, config)",
        description="Check each part of the rig and print ✓ or ✗ with how to fix it. "
        "Exit status 1 if anything is wrong. Stop the service first "
        "(sudo systemctl stop pibg): it holds the camera and the serial port.",
    )
    p.add_argument(
        "--config",
        metavar="PATH",
        help="configuration file (default: $PIBG_CONFIG or /etc/pibg/pibg.toml)",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=DEFAULT_ORDER,
        help="leave a check out (repeatable)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    results = run_checks(args.config, skip=args.skip)
    print(format_report(results), file=sys.stdout, flush=True)
    return exit_code(results)
