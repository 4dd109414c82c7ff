"""Doctor's check of the box's secrets: a broker password or key that every user of the Pi can read.

systemd/install.sh makes /etc/gamebox/box.toml ``0640 root:gamebox``; a file
edited or copied by hand may not stay so. The check warns, with the command
that fixes it, and never fails the doctor: the box plays either way.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.config import Config
from hardware.doctor import Row


def secret_rows(config_path: str | Path | None, config: Config) -> list[Row]:
    """A WARN row for each file holding a secret of ``config`` that others than its owner and group can read."""
    network = config.network
    holding: list[tuple[Path, str]] = []
    if config_path is not None and network.password is not None:
        holding.append((Path(config_path), "the broker password"))
    if network.key_file is not None:
        holding.append((Path(network.key_file), "the station's private key"))
    rows = []
    for path, what in holding:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # a missing key file is the link's own fault, said when it connects
        if mode & stat.S_IROTH:
            rows.append(Row("secrets", "file", "WARN", f"{path} holds {what} and every user can read it",
                            f"sudo chown root:gamebox {path} && sudo chmod 640 {path}"))
    return rows
