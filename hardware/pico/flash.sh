#!/usr/bin/env bash
# Copy the pibg firmware onto a Pico that already runs MicroPython (see hardware/README.md).
#   hardware/pico/flash.sh            # the first Pico mpremote finds
#   hardware/pico/flash.sh /dev/ttyACM0
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v mpremote >/dev/null; then
    echo "flash.sh: mpremote not found: pip install mpremote" >&2
    exit 1
fi
connect=()
if [ $# -ge 1 ]; then
    connect=(connect "$1")
fi
mpremote "${connect[@]}" mip install ssd1306
# -L: protocol.py is a symlink to pibg/hw/pico_protocol.py; copy the file itself
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -L "$here/protocol.py" "$tmp/protocol.py"
mpremote "${connect[@]}" cp "$tmp/protocol.py" :protocol.py
mpremote "${connect[@]}" cp "$here/main.py" :main.py
mpremote "${connect[@]}" reset
echo "pibg firmware installed; the status LED pulses amber until pibg connects."
