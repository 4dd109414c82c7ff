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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from controller.box.box import DIE, Box
from controller.box.tags import Registry
from controller.config import Config
from controller.siminput import SimInput
from controller.stage.narration import Narrator
from controller.stage.shows import ShowBook
from controller.stage.stage import DeviceStage
from controller.storage.journal import Journal, NameLost
from controller.storage.lock import StateLock
from controller.storage.store import StoreError
from controller.storage.syncer import SyncProcess
from hardware.clock import Clock, SystemClock
from hardware.events import (
    ButtonHeld, ButtonPressed, ButtonReleased, DeviceFault, DeviceRecovered, EventSink, PuckPressed, TagGone, TagSeen,
)
from hardware.factory import Devices, build_devices
from hardware.profile import load_profile

log = logging.getLogger("gamebox.daemon")

IDLE_CHECKPOINT = 30.0  # seconds without an accepted action before the journal's log is folded into the file
RETRY_STORAGE = 1.0  # seconds between two tries of a journal that could not sync
CHECK_LOG_EVERY = 64  # syncs between two looks at the journal's log length (checkpoint when long)


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


class Daemon:
    """The box wired to its devices, its journal and the loop.

    Everything it holds is made here, storage first: a journal or a state
    folder that cannot be used is one :class:`StoreError` line before any
    device is touched. :meth:`run` only starts, runs and stops these parts.
    """

    def __init__(self, config: Config, clock: Clock | None = None, stdin: bool | None = None,
                 out: Callable[[str], None] = print, notify: Callable[[str], None] | None = None,
                 fsync: Callable[[int], None] | None = None, fsync_delay: float = 0.0) -> None:
        """``stdin``: None reads standard input when the readers are simulated.

        The journal is made durable by a child process (:class:`SyncProcess`,
        ``fsync_delay`` seconds slower for the bench); an ``fsync`` callable
        runs on a worker thread instead (tests make it fail or hang).
        """
        self.config = config
        self.clock: Clock = clock or SystemClock()
        self.stdin = stdin
        self.out = out
        self.notify = notify or Notifier()
        state = config.state_dir
        self.lock = StateLock(state, "run")
        self.lock.acquire()  # one box per state directory: a second one stops here, naming the first
        try:
            self.journal = Journal(state / "journal.sqlite", fsync=fsync or os.fsync)
        except BaseException:
            self.lock.release()
            raise
        try:
            self.registry = Registry(state / "tags.sqlite")
            self.sink = EventSink()
            self.devices: Devices = build_devices(load_profile(config.profile), self.sink, self.clock)
            self.stage = DeviceStage.for_devices(self.devices, ShowBook.load(), self.clock, config)
            self.box = Box(config, self.journal, self.registry, self.stage, self.clock, power_off=_power_off())
            self.stage.speak(self.box.language)  # the language a card chose last time, kept in the journal
        except BaseException:
            self.journal.close()
            if hasattr(self, "registry"):
                self.registry.close()
            self.lock.release()
            raise
        _tune_buttons(self.devices, config)
        self.box.listeners.append(self._accepted)
        if any(reader.driver == "sim" for reader in self.devices.readers.values()):  # say in words what the box does
            self.stage.listeners.append(Narrator(self.out, lambda: self.stage.language))
        self.rooms: list[Any] = []  # the kiosk and the station link: told of every event, polled like the box
        if config.kiosk.enabled:
            from controller.box.kiosk import Kiosk
            self.rooms.append(Kiosk(config.kiosk, self.box, self.clock.monotonic))
        self.stopping = asyncio.Event()
        self.ready = asyncio.Event()
        self.storage_fault: str | None = None  # why the journal cannot make actions durable; play waits
        self._unsynced: list[int] = []  # seqs recorded but not yet durable, so not yet "accepted"
        self._marked_game: int | None = None  # the game of the last action recorded: the acknowledged mark's
        self._game_ended = False
        self._folded = True  # the journal's log holds nothing the file does not
        self._syncs = 0
        self._wake_syncer = asyncio.Event()
        self._durable = asyncio.Event()  # set while every recorded action is durable and acknowledged
        self._durable.set()
        self._disk = ThreadPoolExecutor(1, thread_name_prefix="journal-disk")  # checkpoints, an injected fsync
        self._sync_process = SyncProcess(self.journal.path, fsync_delay) if fsync is None else None
        self._held: set[str] = set()
        self._status = ""

    async def run(self) -> int:
        """Run until SIGTERM/SIGINT (or end of standard input in sim mode); return the exit code."""
        loop = asyncio.get_running_loop()
        self.sink.bind(loop)
        if self.config.network.enabled:  # the station link starts its own task: made on the running loop
            from controller.station import StationLink
            self.rooms.append(StationLink(self.config.network, self.box, self.sink.post, self.devices))
        for sig in (signal.SIGTERM, signal.SIGINT):
            with suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stopping.set)
        tasks = []
        try:
            self.devices.start(self.stage.sounds)
            if self.devices.speaker is not None:
                self.devices.speaker.volume = self.box.volume
            if self.box.start():
                digest = hashlib.sha1(self.box.engine.to_json().encode()).hexdigest()
                self.out(f"resumed {self.box.game_id} {self.box.seq} {digest}")
            if self.journal.report_recovery():  # what the journal lost before this start: logged, shown, said aloud
                self.stage.show("device_fault", device="journal")
                self.stage.show("journal_lost")
            self.stage.tick()
            self.notify("READY=1")
            self.out("ready")
            self.ready.set()
            self._report_status()
            tasks.append(asyncio.create_task(self._pump(), name="the input pump"))
            tasks.append(asyncio.create_task(self._syncer(), name="the journal's syncer"))
            simulated = any(reader.driver == "sim" for reader in self.devices.readers.values())
            if self.stdin or (self.stdin is None and simulated):
                tasks.append(asyncio.create_task(self._read_stdin(), name="standard input"))
            watchdog = int(os.environ.get("WATCHDOG_USEC", "0"))
            if watchdog:
                tasks.append(asyncio.create_task(feed_watchdog(self.notify, self.clock, watchdog / 2e6), name="the watchdog"))
            code = await until_stopped(self.stopping, tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for room in self.rooms:
                if hasattr(room, "close"):
                    await room.close()
            self.notify("STOPPING=1")
            self.devices.stop()
            saved = await self._last_sync(loop)
            if self._sync_process is not None:
                await self._sync_process.close()
            self._disk.shutdown(wait=True)
            self.journal.close()
            self.registry.close()
            self.lock.release()
            self.out("stopped")
        return code if saved else 1

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
                if self.storage_fault is None:
                    self.box.poll()
                for room in self.rooms:
                    room.poll()
                self.stage.tick()
                self._report_status()
            except StoreError as exc:  # a state file that cannot be read or written: a fault, not a crash
                self.box.fault("journal" if "journal" in str(exc) else "tags", str(exc))
            except Exception:  # a bug must cost one input, never the box
                log.exception("internal error; the box carries on")

    def _handle(self, event: Any) -> None:
        box = self.box
        if any(getattr(room, "took", lambda _event: False)(event) for room in self.rooms):  # a pairing, an enrolment
            return
        if self.storage_fault is not None and isinstance(event, (TagSeen, ButtonReleased, ButtonHeld, PuckPressed)):
            self.stage.show("device_fault", device="journal")  # play waits until the journal writes again
            return
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

    # -- durability --------------------------------------------------------------------
    def _accepted(self, _action: dict[str, Any], _outcome: Any) -> None:
        """The box recorded an action (its show starts now); the syncer makes it durable, then says so."""
        self._unsynced.append(self.box.seq - 1)
        self._marked_game = self.box.game_id
        self._durable.clear()
        self._game_ended = self._game_ended or bool(self.box.engine and self.box.engine.over)
        self._wake_syncer.set()

    async def _make_durable(self, loop: asyncio.AbstractEventLoop) -> None:
        """fsync what was recorded (in the child process, or an injected fsync on the disk worker) and write the
        acknowledged mark; then make sure the journal's path still names the file written, or nothing counts."""
        if self.storage_fault is not None:
            await self._find_journal_again()
        self.journal.check_named()  # no mark written into a folder that is not the journal's
        mark = self.journal.mark(self._marked_game)
        try:
            if self._sync_process is not None:
                await self._sync_process.sync(mark)
            else:
                await loop.run_in_executor(self._disk, self.journal.sync, mark)
        except StoreError:
            self.journal.check_named()  # a folder gone is the cause to name, not the fsync's "no such file"
            raise
        self.journal.check_named()

    async def _find_journal_again(self) -> None:
        """A journal whose folder was deleted or unmounted is written again once the folder is back (and no other
        box took it): everything it holds, acknowledged or not, is still in the open file."""
        try:
            self.journal.check_named()
            return
        except NameLost:
            pass
        self.journal.folder_back()
        if not self.lock.held():  # deleted with the folder: taken again, unless another box started there meanwhile
            self.lock.acquire(create=False)
        self.journal.relink()
        if self._sync_process is not None:
            await self._sync_process.close()  # its -wal lost its name too: the next sync opens the new one

    async def _syncer(self) -> None:
        """Print ``accepted N`` once action N is durable; a failed sync is a storage fault and play waits."""
        loop = asyncio.get_running_loop()
        while True:
            woken = asyncio.create_task(self._wake_syncer.wait())
            idle = asyncio.create_task(self.clock.sleep(IDLE_CHECKPOINT))
            try:
                await asyncio.wait({woken, idle}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                woken.cancel()
                idle.cancel()
            self._wake_syncer.clear()
            batch = list(self._unsynced)
            if not batch and self._folded:
                continue  # idle, and nothing new since the log was last folded in
            ended, self._game_ended = self._game_ended or not batch, False  # a game's end or idle: fold it in
            try:
                await self._make_durable(loop)
                self._syncs += 1
                if ended or self._syncs % CHECK_LOG_EVERY == 0:  # fold the log into the file: end, idle or long
                    await loop.run_in_executor(self._disk, self.journal.checkpoint, ended)
            except StoreError as exc:
                self._storage_failed(str(exc))
                await self.clock.sleep(RETRY_STORAGE)
                self._wake_syncer.set()
                continue
            del self._unsynced[:len(batch)]
            self._folded = ended
            if self.storage_fault is not None:
                log.info("journal %s: writing works again; play goes on", self.journal.path)
                self.storage_fault = None
                self.box.recovered("journal")
            for seq in batch:
                self.out(f"accepted {seq}")
            if not self._unsynced:
                self._durable.set()

    async def durable(self) -> None:
        """Wait until every action recorded so far is durable and its ``accepted N`` printed."""
        await self._durable.wait()

    def _storage_failed(self, why: str) -> None:
        if self.storage_fault is None:
            self.storage_fault = why
            self.box.fault("journal", why)  # one log line naming the file, and the fault show

    async def _last_sync(self, loop: asyncio.AbstractEventLoop) -> bool:
        """At a stop: make what was recorded durable and say so; False, said in one line, when it cannot be."""
        if not self._unsynced and self.storage_fault is None:
            return True
        try:
            await self._make_durable(loop)  # a journal whose folder is back by now is written again first
        except Exception as exc:  # a disk's refusal, a folder still gone, the error that stopped the syncer
            log.error("%s; the box stops without it: %s not saved", self.storage_fault or exc, _not_saved(self.box))
            return False
        for seq in self._unsynced:
            self.out(f"accepted {seq}")
        self._unsynced.clear()
        return True

    def _report_status(self) -> None:
        status = self.box.status_line()
        if status != self._status:
            self._status = status
            self.notify(f"STATUS={status}")

    async def _read_stdin(self) -> None:
        """Play standard input; at its end, let what it started finish (a call window), then stop."""
        await SimInput(self.devices, self.clock, self.out).read_stdin()
        await self.clock.sleep(0.2)  # the pump takes what is queued
        while self.box.pending is not None:
            await self.clock.sleep(0.05)
        self.stopping.set()


async def feed_watchdog(notify: Callable[[str], None], clock: Clock, every: float) -> None:
    """Tell systemd the box is alive, twice per watchdog period (a loop that hangs stops telling it)."""
    while True:
        notify("WATCHDOG=1")
        await clock.sleep(every)


async def until_stopped(stopping: asyncio.Event, tasks: list[asyncio.Task]) -> int:
    """Wait until ``stopping`` is set; 1 when one of ``tasks`` died first.

    A task that dies in silence leaves a box that looks alive: the watchdog
    is still fed while no action is ever acknowledged again. So its
    traceback is logged and the daemon ends with an error; systemd starts it
    again and the game resumes from the journal.
    """
    stop = asyncio.create_task(stopping.wait())
    running = {stop, *tasks}
    try:
        while not stopping.is_set():
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done - {stop}:
                if not task.cancelled() and task.exception() is not None:
                    log.critical("%s stopped on an error; the box stops so that it is started again",
                                 task.get_name(), exc_info=task.exception())
                    return 1
        return 0
    finally:
        stop.cancel()


def _not_saved(box: Box) -> str:
    """What a box that stops without its journal loses, in words."""
    return "its games are" if box.game_id is None else f"game {box.game_id} ({box.seq} actions) is"


def _tune_buttons(devices: Devices, config: Config) -> None:
    """The config tunes what the profile wired: the hold time and the debounce of every button."""
    for button in devices.buttons.values():
        if config.hold_seconds is not None:
            button.hold_time = config.hold_seconds
        if config.debounce_ms is not None and hasattr(button, "bounce_time"):
            button.bounce_time = config.debounce_ms / 1000


def _power_off() -> Callable[[], None] | None:
    """The Pi's shutdown when the box runs as its systemd service (the installer's polkit rule allows it there).

    Elsewhere None, and the box answers that it cannot: a developer's PC
    running the simulator is never switched off by a card.
    """
    if not os.environ.get("INVOCATION_ID"):
        return None
    from controller.box.power import power_off

    return power_off


def run(config: Config, stdin: bool | None = None, config_path: Path | None = None) -> int:
    """Run the daemon in a fresh loop (the ``gamebox run`` command), with the control socket the family's page
    talks to (``config_path``: the file it keeps settings in)."""
    from controller.control.server import run_daemon

    level = os.environ.get("GAMEBOX_LOG", "INFO").upper()
    logging.basicConfig(level=getattr(logging, level, logging.INFO), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    daemon = Daemon(config, stdin=stdin, out=lambda line: print(line, flush=True))
    return asyncio.run(run_daemon(daemon, config_path))


