"""``gamebox run``: the box's one asyncio loop, from power-on to SIGTERM.

Every input is an event on the loop: the hardware's (through the
:class:`~hardware.events.EventSink`), and with the ``sim`` profile the
lines of standard input, which go through the same simulated devices a
test or the simulator uses. The loop sleeps until an event comes or the
box or the lights have something due, so an idle box uses no CPU.

Under systemd it reports ``READY=1`` once the box is listening, a
``STATUS=`` line whenever the game moves on, and ``WATCHDOG=1`` at half the
watchdog interval.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import signal
import sys
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Callable

from controller.box import DIE, Box
from controller.config import Config
from controller.journal import Journal
from controller.narration import Narrator
from controller.shows import ShowBook
from controller.siminput import SimInput
from controller.stage import DeviceStage
from controller.tags import Registry
from hardware.clock import Clock, SystemClock
from hardware.events import (
    ButtonHeld, ButtonPressed, ButtonReleased, DeviceFault, DeviceRecovered, EventSink, PuckPressed, TagGone, TagSeen,
)
from hardware.factory import Devices, build_devices
from hardware.profile import load_profile

log = logging.getLogger("gamebox.daemon")


class Notifier:
    """systemd's notify socket, when there is one (sdnotify); silent otherwise."""

    def __init__(self) -> None:
        self._socket = None
        if os.environ.get("NOTIFY_SOCKET"):
            import sdnotify

            self._socket = sdnotify.SystemdNotifier()

    def __call__(self, message: str) -> None:
        if self._socket is not None:
            self._socket.notify(message)


@dataclass
class Daemon:
    """The box wired to its devices, its journal and the loop."""

    config: Config
    clock: Clock = field(default_factory=SystemClock)
    stdin: bool | None = None  # None: read standard input when the readers are simulated
    out: Callable[[str], None] = print
    notify: Callable[[str], None] = field(default_factory=Notifier)

    def __post_init__(self) -> None:
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self._held: set[str] = set()
        self._status = ""

    async def run(self) -> int:
        """Run until SIGTERM/SIGINT (or end of standard input in sim mode); return the exit code."""
        loop = asyncio.get_running_loop()
        self.sink = EventSink(loop)
        profile = load_profile(self.config.profile)
        self.devices: Devices = build_devices(profile, self.sink, self.clock)
        for button in self.devices.buttons.values():  # the config tunes what the profile wired
            if self.config.hold_seconds is not None:
                button.hold_time = self.config.hold_seconds
            if self.config.debounce_ms is not None and hasattr(button, "bounce_time"):
                button.bounce_time = self.config.debounce_ms / 1000
        state = self.config.state_dir
        self.journal = Journal(state / "journal.sqlite")
        self.registry = Registry(state / "tags.sqlite")
        self.stage = DeviceStage.for_devices(self.devices, ShowBook.load(), self.clock, self.config)
        self.box = Box(self.config, self.journal, self.registry, self.stage, self.clock, power_off=_power_off())
        self.box.listeners.append(self._acknowledge)
        self.rooms: list[Any] = []  # the kiosk and the station link: told of every event, polled like the box
        if self.config.kiosk.enabled:
            from controller.kiosk import Kiosk
            self.rooms.append(Kiosk(self.config.kiosk, self.box, self.clock.monotonic))
        if self.config.network.enabled:
            from controller.station import StationLink
            self.rooms.append(StationLink(self.config.network, self.box, self.sink.post, self.devices))
        for sig in (signal.SIGTERM, signal.SIGINT):
            with suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stopping.set)
        if any(reader.driver == "sim" for reader in self.devices.readers.values()):  # say in words what the box does
            self.stage.listeners.append(Narrator(self.out, lambda: self.stage.language))
        tasks = []
        try:
            self.devices.start(self.stage.sounds)
            if self.devices.speaker is not None:
                self.devices.speaker.volume = self.box.volume
            if self.box.start():
                digest = hashlib.sha1(self.box.engine.to_json().encode()).hexdigest()
                self.out(f"resumed {self.box.game_id} {self.box.seq} {digest}")
            self.stage.tick()
            self.notify("READY=1")
            self.out("ready")
            self.ready.set()
            self._report_status()
            tasks.append(asyncio.create_task(self._pump()))
            simulated = any(reader.driver == "sim" for reader in self.devices.readers.values())
            if self.stdin or (self.stdin is None and simulated):
                tasks.append(asyncio.create_task(self._read_stdin()))
            watchdog = int(os.environ.get("WATCHDOG_USEC", "0"))
            if watchdog:
                tasks.append(asyncio.create_task(self._watchdog(watchdog / 2e6)))
            await self.stopping.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for room in getattr(self, "rooms", []):
                if hasattr(room, "close"):
                    await room.close()
            self.notify("STOPPING=1")
            self.devices.stop()
            self.journal.close()
            self.registry.close()
            self.out("stopped")
        return 0

    # -- the loop ----------------------------------------------------------------------
    async def _pump(self) -> None:
        """Hand each event to the box; between events sleep until something is due."""
        next_event: asyncio.Task | None = None
        while True:
            deadlines = (self.box.next_deadline(), self.stage.next_deadline(), *(r.next_deadline() for r in self.rooms))
            due = [d for d in deadlines if d is not None]
            if next_event is None:
                next_event = asyncio.create_task(self.sink.get())
            if due:
                timer = asyncio.create_task(self.clock.sleep(max(0.0, min(due) - self.clock.monotonic())))
                await asyncio.wait({next_event, timer}, return_when=asyncio.FIRST_COMPLETED)
                timer.cancel()
            else:
                await asyncio.wait({next_event})
            try:
                if next_event.done():
                    event, next_event = next_event.result(), None
                    self._handle(event)
                    for room in self.rooms:
                        room.saw(event)
                self.box.poll()
                for room in self.rooms:
                    room.poll()
                self.stage.tick()
                self._report_status()
            except Exception:  # a bug must cost one input, never the box
                log.exception("internal error; the box carries on")

    def _handle(self, event: Any) -> None:
        box = self.box
        if isinstance(event, TagSeen):
            box.tap(event.reader, event.uid, event.text)
        elif isinstance(event, TagGone):
            box.removed(event.reader, event.uid)
        elif isinstance(event, ButtonPressed):
            self._held.discard(event.button)
            box.down(event.button)
        elif isinstance(event, ButtonHeld):
            self._held.add(event.button)
            box.hold(event.button)
        elif isinstance(event, ButtonReleased):
            box.up(event.button)
            if event.button not in self._held:
                box.press(event.button)
            self._held.discard(event.button)
        elif isinstance(event, PuckPressed):
            box.press(DIE)
        elif isinstance(event, DeviceFault):
            box.fault(event.device, event.message)
        elif isinstance(event, DeviceRecovered):
            box.recovered(event.device)

    def _acknowledge(self, action: dict[str, Any], _outcome: Any) -> None:
        """One line per action once it is in the journal: scripts and tests wait for it."""
        self.out(f"accepted {self.box.seq - 1}")

    def _report_status(self) -> None:
        status = self.box.status_line()
        if status != self._status:
            self._status = status
            self.notify(f"STATUS={status}")

    async def _watchdog(self, every: float) -> None:
        while True:
            self.notify("WATCHDOG=1")
            await self.clock.sleep(every)

    async def _read_stdin(self) -> None:
        """Play standard input; at its end, let what it started finish (a call window), then stop."""
        await SimInput(self.devices, self.clock, self.out).read_stdin()
        await self.clock.sleep(0.2)  # the pump takes what is queued
        while self.box.pending is not None:
            await self.clock.sleep(0.05)
        self.stopping.set()


def _power_off() -> Callable[[], None] | None:
    """The Pi's shutdown when the box runs as its systemd service (the installer's polkit rule allows it there).

    Elsewhere None, and the box answers that it cannot: a developer's PC
    running the simulator is never switched off by a card.
    """
    if not os.environ.get("INVOCATION_ID"):
        return None
    from controller.power import power_off

    return power_off


def run(config: Config, stdin: bool | None = None) -> int:
    """Run the daemon in a fresh loop (the ``gamebox run`` command)."""
    level = os.environ.get("GAMEBOX_LOG", "INFO").upper()
    logging.basicConfig(level=getattr(logging, level, logging.INFO), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    daemon = Daemon(config, stdin=stdin, out=lambda line: print(line, flush=True))
    return asyncio.run(daemon.run())


