"""Doctor warns about a config or key that holds a secret and every user can read (issue 19).

systemd/install.sh makes /etc/gamebox/box.toml 0640 root:gamebox, since it may
hold the broker password; a file copied in by hand may be 0644 again.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import hardware.doctor
from controller.cli import main


@pytest.fixture(autouse=True)
def no_settling(monkeypatch):
    monkeypatch.setattr(hardware.doctor, "run_doctor", functools.partial(hardware.doctor.run_doctor, settle=0))


def doctor_lines(config: Path, state: Path, capsys) -> list[str]:
    main(["doctor", "--config", str(config), "--state-dir", str(state)])
    return capsys.readouterr().out.splitlines()


def station_config(tmp_path: Path, mode: int, **extra: str) -> Path:
    config = tmp_path / "box.toml"
    lines = ['[network]', 'enabled = true', 'broker = "teacher.local"', 'username = "table-3"', 'password = "s3cret-pass"']
    config.write_text("\n".join(lines + [f'{key} = "{value}"' for key, value in extra.items()]) + "\n")
    config.chmod(mode)
    return config


def test_a_world_readable_config_with_the_broker_password_is_a_warning_with_its_fix(tmp_path, capsys):
    config = station_config(tmp_path, 0o644)
    lines = doctor_lines(config, tmp_path / "state", capsys)
    row = next(line for line in lines if line.startswith("secrets "))
    assert "WARN" in row and f"{config} holds the broker password and every user can read it" in row
    assert f"fix secrets: sudo chown root:gamebox {config} && sudo chmod 640 {config}" in lines
    assert not any("s3cret-pass" in line for line in lines)


def test_a_config_only_root_and_the_service_read_is_fine(tmp_path, capsys):
    lines = doctor_lines(station_config(tmp_path, 0o640), tmp_path / "state", capsys)
    assert not any(line.startswith("secrets ") for line in lines)
    assert lines[-1] == "All devices work."


def test_a_readable_private_key_is_a_warning_too(tmp_path, capsys):
    key = tmp_path / "station.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\n")
    key.chmod(0o644)
    lines = doctor_lines(station_config(tmp_path, 0o640, key_file=str(key), cert_file=str(key)), tmp_path / "state", capsys)
    assert any(line.startswith("secrets ") and f"{key} holds the station's private key" in line for line in lines)
