"""``[network]`` and ``[kiosk]``: off by default, and a password never shown (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, load_config


def test_a_family_box_stays_offline_and_unattended_mode_is_off() -> None:
    config = load_config(None)
    assert not config.network.enabled and not config.kiosk.enabled


def test_the_password_is_never_printed(tmp_path: Path) -> None:
    path = tmp_path / "box.toml"
    path.write_text('[network]\nenabled = true\npassword = "hunter2-secret"\nport = 99999\n')
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert "port" in str(error.value)
    path.write_text('[network]\npassword = ["hunter2-secret"]\n')
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert "network.password" in str(error.value) and "hunter2" not in str(error.value)
    path.write_text('[network]\nenabled = true\npassword = "hunter2-secret"\n')
    config = load_config(path)
    assert "hunter2" not in repr(config) and config.network.password.get_secret_value() == "hunter2-secret"


def test_a_bad_station_name_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "box.toml"
    path.write_text('[network]\nstation = "table 3/+"\n')
    with pytest.raises(ConfigError, match="network.station"):
        load_config(path)


def test_the_default_station_name_differs_from_box_to_box(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import controller.config as config

    monkeypatch.setattr(config.socket, "gethostname", lambda: "raspberrypi")  # every Pi image's name
    names = set()
    for machine_id in ("0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"):
        (tmp_path / "machine-id").write_text(machine_id + "\n")
        monkeypatch.setattr(config, "MACHINE_ID", tmp_path / "machine-id")
        names.add(load_config(None).network.station)
    assert names == {"raspberrypi-012345", "raspberrypi-fedcba"}
