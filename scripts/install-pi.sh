#!/usr/bin/env bash
# Install pibg as a service on Raspberry Pi OS Bookworm (Pi 4 or Pi 5).
#
#   sudo scripts/install-pi.sh            # from a checkout of pibg
#   sudo scripts/install-pi.sh --no-gnubg --no-enable
#
# What it does (each step is safe to run again):
#   1. apt: python3-picamera2 (never from pip: libcamera has no wheels), python3-lgpio,
#      python3-venv, and gnubg (optional, for analysis hooks);
#   2. a venv in /opt/pibg/venv with --system-site-packages so it sees apt's picamera2,
#      with numpy<2 and opencv<4.12 pinned: apt's picamera2/simplejpeg are built against
#      numpy 1.x and opencv-python>=4.12 would pull numpy 2 ("numpy.dtype size changed");
#   3. the system user pibg in groups video, gpio, dialout, i2c;
#   4. /etc/pibg/pibg.toml from the example (kept if it exists);
#   5. a udev rule for the Pico (keeps ModemManager's AT probes off it);
#   6. the systemd unit, enabled and started.
# Check the result with:  sudo -u pibg /opt/pibg/venv/bin/pibg doctor --config /etc/pibg/pibg.toml
set -euo pipefail

PREFIX=${PIBG_PREFIX:-/opt/pibg}
VENV="$PREFIX/venv"
CONF_DIR=/etc/pibg
UNIT_DIR=/etc/systemd/system
SERVICE_USER=pibg
WITH_GNUBG=1
ENABLE=1
DRY_RUN=0

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    echo "options: --no-gnubg  --no-enable  --dry-run  --help"
}

for arg in "$@"; do
    case "$arg" in
        --no-gnubg) WITH_GNUBG=0 ;;
        --no-enable) ENABLE=0 ;;
        --dry-run) DRY_RUN=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option $arg" >&2; usage >&2; exit 2 ;;
    esac
done

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

run() {
    echo "+ $*"
    if [ "$DRY_RUN" -eq 0 ]; then
        "$@"
    fi
}

if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install-pi.sh: run as root (sudo $0)" >&2
    exit 1
fi

if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    . /etc/os-release
    if [ "${VERSION_CODENAME:-}" != "bookworm" ]; then
        echo "install-pi.sh: warning: written for Raspberry Pi OS Bookworm, this is ${PRETTY_NAME:-unknown}" >&2
    fi
fi

echo "== 1. system packages"
packages=(python3-picamera2 python3-lgpio python3-venv python3-pip)
if [ "$WITH_GNUBG" -eq 1 ]; then
    packages+=(gnubg)
fi
run apt-get update
run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"

echo "== 2. virtual environment in $VENV"
run mkdir -p "$PREFIX"
if [ ! -x "$VENV/bin/python" ]; then
    run python3 -m venv --system-site-packages "$VENV"
fi
run "$VENV/bin/pip" install --upgrade pip
# The pins that keep the venv binary-compatible with apt's picamera2 (numpy 1.x).
run "$VENV/bin/pip" install "numpy<2" "opencv-python-headless<4.12" "$SRC"

echo "== 3. service user $SERVICE_USER"
for group in video gpio dialout i2c; do
    if ! getent group "$group" >/dev/null; then
        run groupadd --system "$group"
    fi
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --no-create-home --home-dir /var/lib/pibg --shell /usr/sbin/nologin \
        --groups video,gpio,dialout,i2c "$SERVICE_USER"
else
    run usermod --append --groups video,gpio,dialout,i2c "$SERVICE_USER"
fi

echo "== 4. configuration in $CONF_DIR"
run install -d -m 0755 "$CONF_DIR"
if [ ! -e "$CONF_DIR/pibg.toml" ]; then
    run install -m 0644 "$SRC/pibg/data/pibg.example.toml" "$CONF_DIR/pibg.toml"
else
    echo "keeping existing $CONF_DIR/pibg.toml"
fi

echo "== 5. udev rule for the Pico (no ModemManager probing, /dev/pibg-pico)"
run install -m 0644 "$SRC/hardware/udev/99-pibg-pico.rules" /etc/udev/rules.d/99-pibg-pico.rules
run udevadm control --reload-rules
run udevadm trigger --subsystem-match=tty

echo "== 6. systemd unit"
unit="$SRC/systemd/pibg.service"
if [ "$PREFIX" != /opt/pibg ]; then
    tmp_unit=$(mktemp)
    sed "s|/opt/pibg|$PREFIX|g" "$unit" >"$tmp_unit"
    unit=$tmp_unit
fi
run install -m 0644 "$unit" "$UNIT_DIR/pibg.service"
run systemctl daemon-reload
if [ "$ENABLE" -eq 1 ]; then
    run systemctl enable --now pibg.service
    echo "pibg is running: journalctl -u pibg -f"
else
    echo "installed, not enabled: sudo systemctl enable --now pibg"
fi
echo "check the rig with: sudo -u $SERVICE_USER $VENV/bin/pibg doctor --config $CONF_DIR/pibg.toml"
