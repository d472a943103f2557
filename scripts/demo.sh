#!/usr/bin/env bash
# The README's first command: install pibg into ./.venv and referee the bundled match.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/pibg demo "$@"
