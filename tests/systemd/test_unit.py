"""The service unit as systemd reads it: sandboxed, clean, and lgpio working in the directory and environment it gives.

Issue 10, item 1: ``import lgpio`` makes its notification pipe in the working
directory; a unit running in ``/`` as gamebox cannot, and gpiozero then falls
back to another pin factory without a word. These tests read the unit file
itself, so a change to it is what they check.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "gamebox.service"
NETWORK = ROOT / "systemd" / "network.conf"
SYSTEMD_UNITS = Path("/usr/lib/systemd/system")
EXPOSURE_BUDGET = 2.0

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or not SYSTEMD_UNITS.is_dir(),
    reason="systemd-analyze not installed (Debian: apt-get install systemd)",
)


def service_settings(path: Path = UNIT) -> dict[str, list[str]]:
    """The [Service] section's keys, each with every value it is given, in order."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "Service":
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def unit_environment(settings: dict[str, list[str]]) -> dict[str, str]:
    return dict(item.split("=", 1) for value in settings.get("Environment", []) for item in value.split())


def analyze_root(tmp_path: Path, *dropins: Path) -> Path:
    """A root holding the unit, its drop-ins, systemd's own units and an executable where ExecStart points."""
    root = tmp_path / "root"
    units = root / "etc/systemd/system"
    (units / "gamebox.service.d").mkdir(parents=True)
    shutil.copy(UNIT, units)
    for dropin in dropins:
        shutil.copy(dropin, units / "gamebox.service.d")
    shutil.copytree(SYSTEMD_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    program = root / service_settings()["ExecStart"][0].split()[0].lstrip("/")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return root


def exposure(root: Path) -> float:
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", f"--root={root}", "gamebox.service"],
        capture_output=True, text=True, check=False,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert "Overall exposure level for gamebox.service:" in last, result.stdout + result.stderr
    return float(last.split(":")[1].split()[0])


@needs_analyze
@pytest.mark.parametrize("dropins", [(), (NETWORK,)], ids=["as installed", "with the network drop-in"])
def test_the_unit_verifies_clean(tmp_path: Path, dropins: tuple[Path, ...]) -> None:
    root = analyze_root(tmp_path, *dropins)
    result = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "gamebox.service"], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@needs_analyze
def test_the_sandbox_exposure_is_within_budget(tmp_path: Path) -> None:
    assert exposure(analyze_root(tmp_path)) <= EXPOSURE_BUDGET


@needs_analyze
def test_the_network_drop_in_adds_internet_sockets_and_stays_within_budget(tmp_path: Path) -> None:
    plain = exposure(analyze_root(tmp_path / "plain"))
    networked = exposure(analyze_root(tmp_path / "networked", NETWORK))
    assert plain < networked <= EXPOSURE_BUDGET


def test_the_sandbox_has_no_network_no_capabilities_and_writes_only_its_directories() -> None:
    settings = service_settings()
    assert settings["RestrictAddressFamilies"] == ["AF_UNIX"]
    assert settings["CapabilityBoundingSet"] == [""]
    assert settings["NoNewPrivileges"] == ["yes"]
    assert settings["ProtectSystem"] == ["strict"]
    assert "ReadWritePaths" not in settings
    assert settings["SystemCallFilter"][0] == "@system-service"


def test_the_working_directory_is_one_the_service_user_owns() -> None:
    settings = service_settings()
    owned = {f"/run/{name}" for name in settings.get("RuntimeDirectory", [])}
    owned |= {f"/var/lib/{name}" for name in settings.get("StateDirectory", [])}
    working = settings.get("WorkingDirectory", ["/"])[-1]
    assert working in owned, f"the service starts in {working}, which the gamebox user cannot write"
    assert unit_environment(settings).get("LG_WD", working) == working


def test_lgpio_imports_with_the_units_directory_and_environment(tmp_path: Path) -> None:
    """The pipe lands in the unit's working directory: a path the service can write (the test above)."""
    if importlib.util.find_spec("lgpio") is None:  # not imported here: that would make a pipe in this directory
        pytest.skip("lgpio has no wheel for this Python (it has for CPython 3.9-3.12)")
    settings = service_settings()
    working = settings.get("WorkingDirectory", ["/"])[-1]
    here = tmp_path / working.lstrip("/")  # the unit's directory, made under tmp_path as systemd makes it
    here.mkdir(parents=True)
    env = {key: value.replace(working, str(here)) for key, value in unit_environment(settings).items()}
    result = subprocess.run(
        [sys.executable, "-c", "import lgpio"], cwd=here, env={**os.environ, **env},
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    pipes = [path.name for path in here.iterdir() if stat.S_ISFIFO(path.stat().st_mode)]
    assert pipes == [".lgd-nfy0"]


def test_gpiozero_uses_lgpio_or_fails_loudly_never_falls_back(tmp_path: Path) -> None:
    """``GPIOZERO_PIN_FACTORY=lgpio``: off a Pi that is an error naming lgpio, with no fallback tried."""
    env = {**unit_environment(service_settings()), "LG_WD": str(tmp_path)}
    assert env.get("GPIOZERO_PIN_FACTORY") == "lgpio"
    probe = (
        "import warnings\n"
        "from gpiozero import Device\n"
        "from gpiozero.exc import PinFactoryFallback\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    try:\n"
        "        print(type(Device._default_pin_factory()).__name__)\n"
        "    except Exception as error:\n"
        "        print('error', type(error).__name__)\n"
        "print('fallbacks', sum(issubclass(w.category, PinFactoryFallback) for w in seen))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env={**os.environ, **env},
        capture_output=True, text=True, check=False,
    )
    first, fallbacks = result.stdout.splitlines()
    assert fallbacks == "fallbacks 0"
    assert first == "LGPIOFactory" or first.startswith("error"), result.stdout


# The serial ports a die puck or a PN532 on a USB-UART cable appear as, by their names in /proc/devices:
# a Pico's CDC (ttyACM), FTDI/CP210x/CH340 adapters (ttyUSB, which the virtual Pi's puck is), the Pi's UARTs.
SERIAL_PORTS = {"/dev/ttyACM0": "ttyACM", "/dev/ttyUSB0": "ttyUSB", "/dev/ttyAMA0": "ttyAMA", "/dev/ttyS0": "ttyS"}


@pytest.mark.parametrize("node", SERIAL_PORTS)
def test_every_serial_port_a_profile_may_name_is_a_device_class_the_sandbox_allows(node: str) -> None:
    """Doctor, outside the sandbox, said ok for a puck on /dev/ttyUSB0 that the service could not open."""
    allowed = {value.split()[0]: value.split()[1] for value in service_settings()["DeviceAllow"]}
    assert allowed.get(f"char-{SERIAL_PORTS[node]}") == "rw", f"{node}: DeviceAllow=char-{SERIAL_PORTS[node]} rw missing"


# Device classes whose numbers a loadable driver registers (Debian's and Raspberry Pi OS's kernels): systemd
# resolves char-NAME in /proc/devices when the service starts, so the driver must be loaded by then.
MODULE_OF_CLASS = {"char-ttyUSB": "usbserial", "char-ttyACM": "cdc_acm", "char-alsa": "snd"}


@pytest.mark.parametrize("device_class", MODULE_OF_CLASS)
def test_the_driver_behind_each_allowed_class_is_loaded_at_boot(device_class: str) -> None:
    """A puck plugged in after boot was refused (EPERM) until a restart: ttyUSB was not in /proc/devices yet."""
    allowed = {value.split()[0] for value in service_settings()["DeviceAllow"]}
    loaded = {line.strip() for line in (ROOT / "systemd/modules.conf").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    assert device_class in allowed and MODULE_OF_CLASS[device_class] in loaded
    assert "systemd/modules.conf" in (ROOT / "systemd/install.sh").read_text()


def test_the_installed_config_and_the_scripts_name_the_services_state_folder(tmp_path: Path) -> None:
    """Found in the virtual Pi: ``gamebox status --config /etc/gamebox/box.toml`` run by hand has no
    ``$STATE_DIRECTORY`` and read an empty folder in the user's home while the service played a game; and
    doctor.sh without systemd (test-install.sh's root) checked a folder the service never uses."""
    import re

    from controller.config import load_config

    folder = Path("/var/lib") / service_settings()["StateDirectory"][-1]
    script = (ROOT / "systemd" / "install.sh").read_text()
    written = script.split("cat > \"$CONFIG\" <<'TOML'\n", 1)[1].split("\nTOML\n", 1)[0]
    (tmp_path / "box.toml").write_text(written)
    assert load_config(tmp_path / "box.toml").state_dir == folder
    for name in ("install.sh", "doctor.sh"):
        assert re.findall(r"^readonly STATE_DIR=(.+)$", (ROOT / "systemd" / name).read_text(), re.M) == [str(folder)]
