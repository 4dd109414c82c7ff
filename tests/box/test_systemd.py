"""Under systemd: READY=1, STATUS= lines, WATCHDOG=1 at half the interval, a clean stop on SIGTERM (issue 4)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_notify_watchdog_status_and_a_clean_sigterm(tmp_path: Path) -> None:
    address = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(10)
    env = dict(os.environ, NOTIFY_SOCKET=address, WATCHDOG_USEC="200000", GAMEBOX_LOG="ERROR", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--state-dir", str(tmp_path / "state")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    try:
        messages: list[str] = []

        def until(predicate) -> None:
            while not predicate():
                messages.extend(sock.recv(4096).decode().splitlines())

        until(lambda: "READY=1" in messages)
        until(lambda: messages.count("WATCHDOG=1") >= 3)
        assert "STATUS=menu: choosing floppy-ears" in messages
        proc.stdin.write("tap control-game-pirates\ntap control-players-2\n")
        proc.stdin.flush()
        until(lambda: "STATUS=pirates: awaiting start_card" in messages)
        proc.send_signal(signal.SIGTERM)
        # The stop itself does not wait on anything (the unit's TimeoutStopSec=2 would
        # SIGKILL it); the timeout here only keeps a hang from hanging the suite.
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0 and out.splitlines()[-1] == "stopped"
        until(lambda: "STOPPING=1" in messages)
        wal = tmp_path / "state" / "journal.sqlite-wal"
        assert not wal.exists() or wal.stat().st_size == 0, "the journal was closed (checkpointed)"
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
