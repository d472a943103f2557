#!/usr/bin/env bash
# The README's test command: install everything the tests need, then lint, type-check, test.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
need=()
command -v gnubg >/dev/null || [ -x /usr/games/gnubg ] || need+=(gnubg)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v shellcheck >/dev/null || need+=(shellcheck)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[test]"
# MicroPython (WebAssembly build from the npm registry) runs the Pico protocol in a test
if command -v npm >/dev/null && [ ! -d tests/hw/micropython/node_modules ]; then
  npm ci --prefix tests/hw/micropython --no-audit --no-fund --silent \
    || echo "MicroPython for the Pico protocol test not installed: that test will skip"
fi
ruff check pibg tests benchmarks scripts
mypy
# one worker per core, each test file kept on one worker (its module's fixtures run once)
python -m pytest -q -n auto --dist loadfile
