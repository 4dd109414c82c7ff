"""Powering the Pi off cleanly, from the unprivileged service, after a show.

logind does it: ``systemctl poweroff`` run by a user who is not root asks
logind over D-Bus, and polkit allows it for the gamebox user alone through
the rule the installer puts in place (systemd/gamebox-power-off.rules),
which allows powering off and nothing else. That works under the unit's
NoNewPrivileges=, where sudo would not. Systemd then stops the box like any
other stop (SIGTERM, the journal closed) before the power goes.
"""

from __future__ import annotations

import subprocess

COMMAND = ("systemctl", "--no-ask-password", "poweroff")
TIMEOUT = 10.0  # seconds; logind answers at once, or the bus is stuck


class PowerOffError(RuntimeError):
    """Power-off was refused or could not be asked for; ``str()`` is one line to show."""


def power_off() -> None:
    """Ask logind to power the machine off; raise :class:`PowerOffError` if it will not."""
    try:
        result = subprocess.run(COMMAND, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except FileNotFoundError:
        raise PowerOffError("power off: systemctl not found (not a systemd machine)") from None
    except subprocess.TimeoutExpired:
        raise PowerOffError(f"power off: no answer from systemctl in {TIMEOUT:.0f} s") from None
    if result.returncode != 0:
        lines = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit status {result.returncode}"
        raise PowerOffError(f"power off refused: {reason}")
