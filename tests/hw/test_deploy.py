"""The systemd unit and the Pi install script, checked with the real tools where present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "pibg.service"
INSTALL = ROOT / "scripts" / "install-pi.sh"
needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed"
)


def ci_unit(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at an executable that exists here (verify checks it)."""
    text = UNIT.read_text()
    lines = [
        "ExecStart=/usr/bin/python3 -m pibg run --config /etc/pibg/pibg.toml"
        if line.startswith("ExecStart=")
        else line
        for line in text.splitlines()
    ]
    out = tmp_path / "pibg.service"
    out.write_text("\n".join(lines) + "\n")
    return out


def test_unit_settings() -> None:
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "WatchdogSec=30",
        "Restart=on-failure",
        "User=pibg",
        "SupplementaryGroups=video gpio dialout i2c",
        "StateDirectory=pibg",
        "WorkingDirectory=/var/lib/pibg",
        "Environment=GPIOZERO_PIN_FACTORY=lgpio",
        "DevicePolicy=closed",
        "DeviceAllow=char-ttyACM rw",
        "DeviceAllow=char-video4linux rw",
        "DeviceAllow=char-gpiochip rw",
    ):
        assert line in text.splitlines(), line
    settings = [ln for ln in text.splitlines() if not ln.startswith("#")]
    for banned in ("PrivateDevices=", "ProcSubset=", "PrivateUsers=", "MemoryDenyWriteExecute="):
        assert not any(ln.startswith(banned) for ln in settings), banned


@needs_analyze
def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    unit = ci_unit(tmp_path)
    res = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    # verify only *warns* about unknown keys and still exits 0: any output is a failure
    assert res.returncode == 0 and res.stderr == "" and res.stdout == "", res.stderr


@needs_analyze
def test_verify_would_catch_a_typo(tmp_path: Path) -> None:
    unit = ci_unit(tmp_path)
    unit.write_text(unit.read_text().replace("WatchdogSec=30", "WatchdogSecs=30"))
    res = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert "Unknown key" in res.stderr


@needs_analyze
def test_systemd_analyze_security_offline(tmp_path: Path) -> None:
    unit = ci_unit(tmp_path)
    res = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--threshold=45", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr
    assert "Overall exposure level for pibg.service" in res.stdout


SCRIPTS = [INSTALL, ROOT / "hardware" / "pico" / "flash.sh"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_syntax(script: Path) -> None:
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_shellcheck(script: Path) -> None:
    res = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout


def test_install_script_dry_run() -> None:
    res = subprocess.run(
        ["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True, timeout=30, check=True
    )
    out = res.stdout
    assert "python3-picamera2" in out and "python3-lgpio" in out and "gnubg" in out
    assert "venv --system-site-packages /opt/pibg/venv" in out
    assert "numpy<2 opencv-python-headless<4.12" in out
    assert "--groups video,gpio,dialout,i2c pibg" in out or "usermod" in out
    assert "systemctl enable --now pibg.service" in out
    assert "99-pibg-pico.rules" in out
    res2 = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--no-gnubg", "--no-enable"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert "gnubg" not in res2.stdout.split("== 2.")[0] and "+ systemctl enable" not in res2.stdout
