"""The installer and its test are shellcheck-clean, and refuse to run as anyone but root."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "systemd").glob("*.sh"))  # the installer, doctor as the service, and their tests


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed (Debian: apt-get install shellcheck)")
def test_the_scripts_are_shellcheck_clean() -> None:
    result = subprocess.run(["shellcheck", *map(str, SCRIPTS)], capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout) == (0, "")


def test_an_unknown_option_is_one_line_and_changes_nothing() -> None:
    result = subprocess.run(["bash", str(ROOT / "systemd" / "install.sh"), "--frobnicate"], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr == "install.sh: unknown option --frobnicate (use --home, --uninstall, or no option to install)\n"


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become nobody")
def test_the_installer_refuses_a_user_before_touching_anything() -> None:
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-s"]
    result = subprocess.run(nobody, input=(ROOT / "systemd" / "install.sh").read_text(), capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("install.sh: run as root")
