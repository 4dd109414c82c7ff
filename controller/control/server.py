"""The box daemon's local control socket: what the family's page shows and does, asked of the box itself.

The daemon keeps no network. It listens on a Unix socket in its runtime
folder (the state folder outside systemd), mode 0660: only its own user and
group may connect. A request is one line of JSON, ``{"op": ..., "args":
{...}}``, at most :data:`MAX_REQUEST` bytes, whole within
:data:`IDLE_SECONDS`; at most :data:`MAX_CONNECTIONS` are open at once.
Each request is checked against its op's model, then waits in the box's
event queue like a tap (:class:`ControlRequest`) and is carried out by the
pump between two inputs, through the box's own rooms: a setting changed
here is the same change a control card makes. The answer is one line,
``{"ok": true, ...}`` or ``{"ok": false, "error": "why"}``.

Some inputs are taken before the box sees them: a pairing's (the pairing
card, or the next hold of the die once a page asked, makes the box say a
code) and a walk's through a deck (:mod:`controller.control.walks`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import os
import shutil
import tempfile
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from controller.box.box import DIE
from controller.control import keep, settings
from controller.control.ops import (
    MAX_REQUEST, Card, ConfigSet, Deck, EnrolBegin, Limit, Nothing, PairCheck, Refused, Restore,
)
from controller.control.pairing import Pairing
from controller.control.walks import Walks
from controller.report import game_status, status_lines
from controller.storage.lock import StateLock
from hardware.doctor import Row, likely_fix
from hardware.events import ButtonHeld, ButtonReleased, TagSeen

log = logging.getLogger("gamebox.control")

SOCKET_NAME = "control.sock"
MAX_CONNECTIONS = 8
IDLE_SECONDS = 30.0  # a connection that sends no whole request this long is closed
ANSWER_SECONDS = 20.0  # the pump answers between two inputs; a backup takes longest
RESTART = 75  # the daemon's exit code after a restore: systemd (Restart=on-failure) starts it again
FAULTS_KEPT = 20
PAIR_CARD = "control-pair"


def socket_path(state_dir: Path) -> Path:
    """systemd's RuntimeDirectory when set (the page's unit reaches it there), else the state folder."""
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    return Path(runtime.split(":")[0]) / SOCKET_NAME if runtime else Path(state_dir) / SOCKET_NAME


@dataclass
class ControlRequest:
    """A request from the socket, waiting in the box's event queue like a tap."""

    op: str
    args: BaseModel
    answer: asyncio.Future = field(repr=False)


class FaultLog(logging.Handler):
    """The last warnings and errors the box logged, in its own words, for the page's Health part."""

    def __init__(self, wall: Callable[[], float]) -> None:
        super().__init__(logging.WARNING)
        self.wall = wall
        self.kept: deque[dict[str, Any]] = deque(maxlen=FAULTS_KEPT)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.kept.append({"at": self.wall(), "level": record.levelname.lower(), "where": record.name,
                              "words": record.getMessage()[:500]})
        except Exception:  # a log line that cannot be formatted is not worth a fault of its own
            pass


class ControlRoom:
    """The socket, and the ops it carries out in the daemon's pump (a room like the kiosk and the station link)."""

    def __init__(self, daemon: Any, config_path: Path | None = None, wall: Callable[[], float] = time.time) -> None:
        self.daemon, self.box, self.config_path, self.wall = daemon, daemon.box, config_path, wall
        self.path = socket_path(daemon.config.state_dir)
        self.pairing = Pairing(daemon.clock.monotonic)
        self.walks = Walks(daemon.box, daemon.devices)
        self.faults = FaultLog(wall)
        self.restore_from: Path | None = None  # a checked backup, put in place once the box has stopped
        self._taken_hold: str | None = None  # the button whose hold a pairing took: its release is no press
        self._server: asyncio.AbstractServer | None = None
        self._open = 0
        self._full_told = False
        self.ops: dict[str, tuple[type[BaseModel], Callable[[Any], Any]]] = {
            "view": (Nothing, self.view), "history": (Limit, self.history), "doctor": (Nothing, self.doctor),
            "config.get": (Nothing, self.config_get), "config.set": (ConfigSet, self.config_set),
            "pair.begin": (Nothing, self.pair_begin),
            "pair.state": (Nothing, lambda _a: {"armed_for": round(self.pairing.armed_left(), 1)}),
            "pair.check": (PairCheck, self.pair_check),
            "cards": (Deck, lambda a: self.walks.cards(a.deck)),
            "enrol.begin": (EnrolBegin, lambda a: self.walks.begin(a.deck, a.card, a.write)),
            "enrol.state": (Nothing, lambda _a: self.walks.state()), "enrol.stop": (Nothing, lambda _a: self.walks.stop()),
            "enrol.forget": (Card, lambda a: self.walks.forget(a.card)), "backup": (Nothing, self.backup),
            "restore": (Restore, self.restore),
        }

    # -- the socket ----------------------------------------------------------------------
    async def start(self) -> None:
        """Listen (a socket left by a box that died is replaced: the state lock says no other box runs here)."""
        self.path.unlink(missing_ok=True)
        self._server = await asyncio.start_unix_server(self._connection, path=str(self.path), limit=MAX_REQUEST)
        os.chmod(self.path, 0o660)
        logging.getLogger("gamebox").addHandler(self.faults)
        log.info("control socket %s", self.path)

    async def close(self) -> None:
        logging.getLogger("gamebox").removeHandler(self.faults)
        if self._server is not None:
            self._server.close()
            self.path.unlink(missing_ok=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._open >= MAX_CONNECTIONS:
            if not self._full_told:
                log.warning("control socket: %d connections open; more are turned away", self._open)
                self._full_told = True
            await _answer(writer, {"ok": False, "error": "busy: too many connections"})
            writer.close()
            return
        self._open += 1
        try:
            while True:
                try:
                    line = await asyncio.wait_for(reader.readline(), IDLE_SECONDS)
                except (asyncio.LimitOverrunError, ValueError):
                    await _answer(writer, {"ok": False, "error": f"a request is at most {MAX_REQUEST} bytes"})
                    return
                if not line:
                    return
                await _answer(writer, await self.ask(line))
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            self._open -= 1
            self._full_told = self._full_told and self._open >= MAX_CONNECTIONS
            writer.close()

    async def ask(self, line: bytes) -> dict[str, Any]:
        """One request line, checked, then carried out by the pump; the answer as a dictionary."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or set(request) - {"op", "args"}:
                raise ValueError("a request is {\"op\": ..., \"args\": {...}}")
            op = request.get("op")
            if op not in self.ops:
                raise ValueError(f"no op {str(op)[:40]!r} (ops: {', '.join(self.ops)})")
            model, _ = self.ops[op]
            args = model.model_validate(request.get("args") or {})
        except ValidationError as exc:
            problem = exc.errors()[0]
            return {"ok": False, "error": f"{'.'.join(map(str, problem['loc'])) or 'args'}: {problem['msg']}"}
        except (ValueError, RecursionError) as exc:
            return {"ok": False, "error": str(exc) if not isinstance(exc, json.JSONDecodeError) else "not JSON"}
        answer: asyncio.Future = asyncio.get_running_loop().create_future()
        self.daemon.sink.post(ControlRequest(op, args, answer))
        try:
            result = await asyncio.wait_for(answer, ANSWER_SECONDS)
            if asyncio.iscoroutine(result):
                result = await asyncio.wait_for(result, ANSWER_SECONDS)
        except asyncio.TimeoutError:
            return {"ok": False, "error": "the box did not answer in time"}
        except Refused as exc:
            return {"ok": False, "error": str(exc), **exc.more}
        return {"ok": True, **result}

    # -- what the daemon's pump calls ----------------------------------------------------------
    def took(self, event: Any) -> bool:
        """An input taken before the box sees it: a tag tapped during a walk through a deck, the pairing card, the
        die held once a page asked for a code (and that hold's release)."""
        if self.walks.took(event):
            return True
        if isinstance(event, ButtonHeld) and event.button == DIE and self.pairing.armed() and not self._playing():
            self._say_code()
            self._taken_hold = event.button
            return True
        if isinstance(event, TagSeen) and self.box.registry.resolve(event.uid, event.text) == PAIR_CARD:
            self.pairing.arm()  # the card is someone at the box, as a hold of the die is
            self._say_code()
            return True
        if isinstance(event, ButtonReleased) and event.button == self._taken_hold:
            self._taken_hold = None
            self.box.up(event.button)  # the gestures see the button let go (no power-off hold runs on)
            return True
        return False

    def _say_code(self) -> None:
        code = self.pairing.held()
        log.info("pairing: the code is spoken and shown")
        self.box.stage.show("pair_code", digits=[int(d) for d in code])

    def saw(self, event: Any) -> None:
        if not isinstance(event, ControlRequest) or event.answer.done():
            return
        _, run = self.ops[event.op]
        try:
            event.answer.set_result(run(event.args))
        except Refused as exc:
            event.answer.set_exception(exc)
        except Exception as exc:  # a bug or a disk: the request fails in words, the box plays on
            log.exception("control op %s failed", event.op)
            event.answer.set_exception(Refused(f"{event.op} failed: {exc}"))

    def next_deadline(self) -> float | None:
        return None

    def poll(self) -> None:
        """A game began while the die was armed: its holds are the game's, and the box stops glowing for a code."""
        if self.pairing.armed() and self._playing():
            self.pairing.disarm()
            self.box.stage.show("pair_void")

    # -- the ops ----------------------------------------------------------------------------
    def view(self, _args: Nothing) -> dict[str, Any]:
        """The box as ``display`` and ``status`` show it: the live snapshot, the journal's status and its lines."""
        status = game_status(self.box.journal)
        return {"snapshot": self.box.snapshot(), "status": status,
                "lines": status_lines(status) if status and status.get("game") else []}

    def history(self, args: Limit) -> dict[str, Any]:
        return {"games": [asdict(record) for record in self.box.journal.history(args.limit)]}

    def doctor(self, _args: Nothing) -> dict[str, Any]:
        """``doctor``'s table for the devices the box holds open, its storage, and the last faults it logged."""
        from controller.storage.diskcheck import check_storage

        rows = [Row(d.device, d.driver, "FAULT" if d.fault else "ok", d.fault or d.describe())
                for d in self.daemon.devices.all()]
        rows += check_storage(self.daemon.config.state_dir)
        if self.daemon.storage_fault:
            rows.append(Row("journal", "sqlite", "FAULT", self.daemon.storage_fault))
        table = [{**row._asdict(), "fix": row.fix or (likely_fix(row.detail) if row.status != "ok" else "")}
                 for row in rows]
        usage = shutil.disk_usage(self.daemon.config.state_dir)
        return {"rows": table, "storage": {"free": usage.free, "total": usage.total},
                "faults": list(reversed(self.faults.kept))}

    def config_get(self, _args: Nothing) -> dict[str, Any]:
        path = self.config_path
        return {**settings.describe(self.daemon.config), "file": str(path) if path else None}

    def config_set(self, args: ConfigSet) -> dict[str, Any]:
        """Validate the change with the box's Config model; write it atomically; apply what the box takes live."""
        path = self.config_path
        if path is None:
            raise Refused("this box was started without --config: there is no file to keep settings in",
                          key="no_config_file")
        old = self.daemon.config
        started_with = {key: getattr(old, key) for key in settings.STARTED_WITH}
        data, config, problems = settings.validate(settings.read_file(path), args.values, started_with)
        if problems:
            words = {key: problem.pop("words") for key, problem in problems.items()}
            raise Refused("not saved: " + "; ".join(f"{k}: {v}" for k, v in words.items()), problems=words,
                          reasons=problems)
        settings.write_atomically(path, data)
        return {"restart": self._apply(config), **settings.describe(config)}

    def _apply(self, new: Any) -> list[str]:
        """Carry the new values into the running box; the fields it reads only at start are returned."""
        box, old = self.box, self.daemon.config
        changed = [name for name in type(new).model_fields if getattr(new, name) != getattr(old, name)]
        for name in changed:
            if name in settings.LIVE:
                setattr(old, name, getattr(new, name))  # the box's rooms share this object
        if "call_window" in changed:
            box.calls.seconds = new.call_window
        if "handover" in changed:
            box.handover.seconds = new.handover
        if "repeat_window" in changed:
            box.taps.window = new.repeat_window
        if "undo_hold_window" in changed:
            box.gestures.undo_window = new.undo_hold_window
        if "power_off_hold" in changed:
            box.gestures.power_off_hold = new.power_off_hold
        if "language" in changed:
            box.set_language(new.language)
        if "volume" in changed or "volume_max" in changed:
            box.set_volume(min(new.volume, new.volume_max) if "volume" in changed else box.volume)
        restart = [name for name in changed if name not in settings.LIVE]
        if restart:
            log.info("settings changed; %s take effect at the next start", ", ".join(restart))
        return restart

    def _playing(self) -> bool:
        engine = self.box.engine
        return engine is not None and not engine.over

    def pair_begin(self, _args: Nothing) -> dict[str, Any]:
        """Arm a pairing: the next hold of the die button speaks and shows the code (someone is at the box), and the
        box says so. Never mid-game (a hold there is the game's: the pairing card pairs then), never stretched."""
        if self._playing():
            raise Refused("a game is under way: lay the pairing card on the box, or ask again when the game is over",
                          key="pair_playing")
        was_armed = self.pairing.armed()
        left = self.pairing.asked()
        if left is None:
            minutes = math.ceil(self.pairing.ask_wait() / 60)
            raise Refused(f"the box was asked for a code too often: ask again in {minutes} min", key="pair_busy",
                          minutes=minutes)
        if not was_armed:
            log.info("pairing: a page asked for a code; the next hold of the die says it")
            self.box.stage.show("pair_armed", seconds=left)
        return {"armed_for": round(left, 1)}

    def pair_check(self, args: PairCheck) -> dict[str, Any]:
        """The code typed on a phone; every wrong try, from anywhere, counts against the one code."""
        if not self.pairing.check(args.code):
            raise Refused("wrong or expired code: ask for a new one", tries_left=self.pairing.tries_left())
        log.info("pairing: a phone was paired")
        return {}

    def backup(self, _args: Nothing) -> Any:
        """A consistent copy of the journal and the registry, made off the pump (read connections only)."""
        state = self.daemon.config.state_dir

        async def made() -> dict[str, Any]:
            data = await asyncio.get_running_loop().run_in_executor(None, keep.make_backup, state)
            return {"data": base64.b64encode(data).decode(), "bytes": len(data)}

        return made()

    def restore(self, args: Restore) -> dict[str, Any]:
        """Check a backup; if it can be this box's, stop, put it in place, and exit so that systemd starts the box
        again on it (a game under way in the backup resumes where it was)."""
        if self.restore_from is not None:
            raise Refused("a restore is under way: the box is starting again")
        try:
            data = base64.b64decode(args.data, validate=True)
        except ValueError:
            raise Refused("the backup is not base64") from None
        folder = Path(tempfile.mkdtemp(prefix=".restore-", dir=self.daemon.config.state_dir))
        try:
            manifest = keep.check_backup(data, self.daemon.config.state_dir, folder)
        except keep.RestoreRefused as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise Refused(str(exc), key=exc.key, **exc.fields) from None
        log.warning("restoring the backup made %s: the box stops and starts again on it",
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(manifest.get("made", 0))))
        self.restore_from = folder
        self.daemon.stopping.set()
        return {"restarting": True, "made": manifest.get("made")}


async def run_daemon(daemon: Any, config_path: Path | None = None) -> int:
    """Run the daemon with its control socket; after a restore, put the backup in place (under the state folder's
    lock, the box's files closed) and return :data:`RESTART`.

    A box whose socket cannot be made plays on without it (one log line).
    """
    control = ControlRoom(daemon, config_path)
    try:
        await control.start()
        daemon.rooms.append(control)
    except OSError as exc:
        log.error("no control socket at %s: %s; the family's page cannot reach this box", control.path, exc)
    code = await daemon.run()
    if control.restore_from is None:
        return code
    lock = StateLock(daemon.config.state_dir, "restore")
    lock.acquire()
    try:
        keep.put_in_place(control.restore_from, daemon.config.state_dir)
        log.warning("the backup is in place; the box starts again on it")
    finally:
        lock.release()
        shutil.rmtree(control.restore_from, ignore_errors=True)
    return RESTART


async def _answer(writer: asyncio.StreamWriter, value: dict[str, Any]) -> None:
    writer.write(json.dumps(value, separators=(",", ":")).encode() + b"\n")
    await asyncio.wait_for(writer.drain(), IDLE_SECONDS)
