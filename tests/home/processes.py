"""The box and its family's page as the phone meets them: ``gamebox run`` on the sim profile and ``gamebox home``.

The box's standard input is its fingers (``tap``, ``hold die``); its
standard output is what it says (``say: 4``), so a test hears the pairing
code as a person beside the box would. Each process is stopped by the test
that started it, also when the test fails.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from pathlib import Path

from controller.daemon import Daemon
from controller.config import load_config
from hardware.clock import FakeClock
from tests.box.daemon_helpers import play_game_on_devices
from tests.station.brokers import GAMEBOX, PageClient, free_port, wait_until

CONFIG = 'language = "en"\nvolume = 0.5\nseed = 1\nhandover = 0.0\n'
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("RUNTIME_DIRECTORY", None)  # the socket and the paired phones are the state folder's, as outside systemd
    env.pop("STATE_DIRECTORY", None)
    return env


class BoxProcess:
    """``gamebox run --profile sim`` with a config file the page may change."""

    def __init__(self, folder: Path, config: str = CONFIG) -> None:
        self.folder, self.state, self.config = folder, folder / "state", folder / "box.toml"
        if not self.config.exists():
            self.config.write_text(config)
        self.socket = self.state / "control.sock"
        self.start()

    def start(self) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [*GAMEBOX, "run", "--profile", "sim", "--config", str(self.config), "--state-dir", str(self.state)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.folder / "box.log", "a"), text=True,
            env=_env())
        threading.Thread(target=lambda: [self.lines.append(line.strip()) for line in self.proc.stdout], daemon=True).start()
        wait_until(lambda: "ready" in self.lines or self.proc.poll() is not None, 20, "the box to start")
        assert self.proc.poll() is None, (self.folder / "box.log").read_text()[-2000:]

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def spoken_code(self) -> str:
        """Hold the die (the page asked for a code) and hear the six digits the box says."""
        start = len(self.lines)
        self.send("hold die")

        def heard() -> str | None:
            said = self.lines[start:]
            if "show: pair_code" not in said:
                return None
            digits = [line.removeprefix("say: ") for line in said[said.index("show: pair_code") + 1:]][:6]
            return "".join(digits) if len(digits) == 6 else None

        return wait_until(heard, 10, "the box to say the code")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.stdin.close()  # the end of its input: the sim box stops by itself
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


class HomeProcess:
    """``gamebox home`` on a free port, asking ``box``'s socket."""

    def __init__(self, folder: Path, box: BoxProcess, *extra: str, ca: Path | None = None) -> None:
        """``ca``: the page speaks HTTPS (``extra`` names its --cert and --key), with a certificate of this CA."""
        self.port, self.folder = free_port(), folder
        self.command = [*GAMEBOX, "home", "--socket", str(box.socket), "--state-dir", str(box.state),
                        "--http-port", str(self.port), *extra]
        self.url, self.ca = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}/", ca
        self.start()

    def start(self) -> None:
        """The page's process on its port (again, after :meth:`stop`: an update or a reboot)."""
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=open(self.folder / "home.log", "a"),
                                     text=True, env=_env())
        self.lines: list[str] = []
        threading.Thread(target=lambda: [self.lines.append(line.strip()) for line in self.proc.stdout], daemon=True).start()
        wait_until(lambda: any(line.startswith("the family's page") for line in self.lines) or self.proc.poll() is not None,
                   20, "the family's page")
        assert self.proc.poll() is None, (self.folder / "home.log").read_text()[-2000:]

    def paired_client(self, box: BoxProcess) -> PageClient:
        """A client of the page's own origin that paired with the code the box said."""
        client = PageClient(self.url, ca=self.ca)
        assert client.post("pair/begin", {})[0] == 200
        status, answer = client.post("pair", {"code": box.spoken_code()})
        assert status == 200, answer
        return client

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def games_played(state: Path, games: list[tuple[str, int, int]]) -> None:
    """Whole games played on a real daemon (bots tapping its simulated devices), so the box has a history."""

    async def play() -> None:
        clock = FakeClock(1_700_000_000.0)
        daemon = Daemon(load_config(None, state_dir=str(state), seed=1), clock=clock, stdin=False, out=lambda _l: None,
                        notify=lambda _m: None)
        task = asyncio.create_task(daemon.run())
        await daemon.ready.wait()
        try:
            for game, players, seed in games:
                assert daemon.box.new_game(game, players)
                await play_game_on_devices(daemon, clock, seed)
                daemon.box.press("die")  # back to the menu
            await daemon.durable()
        finally:
            daemon.stopping.set()
            await task

    asyncio.run(play())
