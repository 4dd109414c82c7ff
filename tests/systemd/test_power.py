"""controller.box.power against a stand-in ``systemctl`` on PATH: what is asked of logind, and a refusal in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.box.power import PowerOffError, power_off


def _systemctl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """A ``systemctl`` that records its arguments in tmp_path/calls, then runs ``body``."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "systemctl"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\n{body}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path / "calls"


def test_power_off_asks_systemd_to_power_off_without_prompting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _systemctl(tmp_path, monkeypatch, "exit 0")
    power_off()
    assert calls.read_text().splitlines() == ["--no-ask-password poweroff"]


def test_a_refusal_is_one_line_naming_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _systemctl(tmp_path, monkeypatch, 'echo "Call to PowerOff failed: Access denied" >&2; exit 1')
    with pytest.raises(PowerOffError) as refused:
        power_off()
    assert str(refused.value) == "power off refused: Call to PowerOff failed: Access denied"


def test_no_systemctl_is_one_line_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PowerOffError, match=r"^power off: systemctl not found \(not a systemd machine\)$"):
        power_off()
