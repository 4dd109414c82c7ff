"""The station link: one MQTT client on the box's own asyncio loop, never in the way of a tap.

The box tells the link what happened (its listeners, the pump's events);
the link only queues: accepted actions go into a bounded :class:`Outbox`
(past its bound they are read back from the journal later, also after a
restart: :mod:`controller.station.catchup`), and the state is snapshotted
after the pump has pushed the tap's sound and light. A separate task sends
the outbox whenever the broker is there, and reconnects (0.25 s, doubling
to 4 s) when it is not. Commands from the
broker are posted into the box's event queue, so they run between two
inputs, exactly like a tap.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Callable

from controller.box.box import Box
from controller.config import NetworkConfig
from controller.games import engine_class
from controller.stage.lights.colors import SEAT_COLOR_NAMES
from controller.station.catchup import Catchup
from controller.station.commands import VOLUME_STEP, Command, Refused, command_id, parse
from controller.station.discovery import discovery_messages, discovery_topics
from controller.station.outbox import Outbox
from controller.station.topics import STATE_FIELDS, Topics, encode
from hardware.events import DeviceFault, DeviceRecovered

log = logging.getLogger("gamebox.station")

RETRY_FIRST, RETRY_MOST = 0.25, 4.0  # seconds between two connection attempts
KEEPALIVE = 5  # seconds: the broker says a box that lost its power is offline (its last will) after 1.5 times this
GOODBYE = 1.0  # seconds allowed at shutdown to say "offline" and send what waits
REFUSALS, REFUSALS_EVERY = 10, 10.0  # refusals told (log line, and event without an id) at most per so many seconds


class Budget:
    """At most ``most`` things per ``every`` seconds; the rest are counted, told in one line with the heartbeat."""

    def __init__(self, most: int, every: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.most, self.every, self.clock = most, every, clock
        self.start, self.used, self.skipped = clock(), 0, 0

    def allow(self) -> bool:
        now = self.clock()
        if now - self.start >= self.every:
            self.start, self.used = now, 0
        if self.used < self.most:
            self.used += 1
            return True
        self.skipped += 1
        return False

    def take_skipped(self) -> int:
        """How many were skipped since the last call."""
        skipped, self.skipped = self.skipped, 0
        return skipped


@dataclass(frozen=True, slots=True)
class StationCommand:
    """A command from the broker, waiting in the box's event queue like a tap."""

    name: str
    payload: bytes
    topic: str
    at: float = field(default=0.0, kw_only=True)


class StationLink:
    """Publishes the box's state, events, health and presence; takes its commands."""

    def __init__(self, settings: NetworkConfig, box: Box, post: Callable[[Any], None], devices: Any = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.settings, self.box, self.post, self.devices, self.wall = settings, box, post, devices, wall
        self.topics = Topics(settings.prefix, settings.station)
        self.outbox = Outbox(settings.queue, settings.queue)
        self.connected = asyncio.Event()
        self.faults: dict[str, str] = {}
        self.last_round = False  # "time is nearly up": the box goes to its menu when this game ends
        self._started = wall()
        self._state: dict[str, Any] | None = None
        self._tally_key: tuple[Any, ...] | None = None
        self._tally: dict[str, Any] = {}
        self._state_soon = False
        self._sending = False
        self._refusals = Budget(REFUSALS, REFUSALS_EVERY)
        self.boot = secrets.token_hex(4)  # this run of this box: two boxes with one name are told apart by it
        # the MQTT client id, a secret: the broker drops a connection whose id another one takes, so it is never published
        self.client_id = f"gamebox-{settings.station}-{secrets.token_hex(16)}"
        self._loop = asyncio.get_running_loop()
        self.catchup = Catchup(box.journal, self.outbox, self.topics.events, self.topics.station)
        box.listeners.append(self._accepted)
        box.undo_listeners.append(self._undone)
        self._announce()
        self._task = self._loop.create_task(self._run(), name="station-link")

    # -- what the daemon's pump calls ---------------------------------------------------
    def next_deadline(self) -> float | None:
        return None  # the link keeps its own time

    def saw(self, event: Any) -> None:
        """Every event the pump handled: commands are carried out here, between two inputs."""
        if isinstance(event, StationCommand):
            self._command(event)
        elif isinstance(event, DeviceFault):
            self.faults[event.device] = event.message
            self._health()
        elif isinstance(event, DeviceRecovered) and self.faults.pop(event.device, None) is not None:
            self._health()

    def poll(self) -> None:
        """After each turn of the pump: end a last round that is over; snapshot once the tap's show is out."""
        engine = self.box.engine
        if self.last_round and (engine is None or engine.over):
            self.last_round = False
            if engine is not None:
                log.info("time is up: the game is over, the box goes to its menu")
                self._publish_state()  # the finished game first: the page counts it
                self.box.abandon_game()
        if not self._state_soon:
            self._state_soon = True
            self._loop.call_soon(self._publish_state)

    async def close(self) -> None:
        """Say "offline" and send what waits (for at most a second), then disconnect."""
        self.outbox.retain(self.topics.online, encode(self._online(False)))
        if self.connected.is_set():
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._drained(), GOODBYE)
        self._task.cancel()
        with suppress(asyncio.CancelledError):
            await self._task
        self.catchup.keep()

    # -- what the box tells -------------------------------------------------------------
    def _accepted(self, action: dict[str, Any], outcome: Any) -> None:
        """A box listener: queue the action as it is, encoded later by the sender."""
        game_id, seq = self.box.game_id, self.box.seq - 1
        self.catchup.table((game_id, seq), {
            "station": self.topics.station, "at": self.wall(), "kind": "action", "seq": seq,
            "game_id": game_id, "action": action, "events": list(getattr(outcome, "events", [])),
        })
        engine = self.box.engine
        if engine is not None and engine.over:  # a message of its own: the retained state may have moved on when it is sent
            snap = self.box.snapshot()
            self.catchup.table((game_id, seq + 1), {
                "station": self.topics.station, "at": self.wall(), "kind": "game_over", "game_id": game_id,
                "game": engine.game, "winners": snap["winners"], "started_at": snap["started_at"]})

    def _undone(self, _action: dict[str, Any]) -> None:
        self.catchup.undone((self.box.game_id, self.box.seq - 1))

    def _publish_state(self) -> None:
        self._state_soon = False
        snap = {key: None for key in STATE_FIELDS if key not in ("station", "at")} | self.box.snapshot()
        turn = snap.get("turn")
        snap["turn_color"] = SEAT_COLOR_NAMES[turn % len(SEAT_COLOR_NAMES)] if isinstance(turn, int) else None
        snap["last_round"] = self.last_round
        snap.update(self._tallies(snap))
        if snap == self._state:
            return
        self._state = snap
        self.outbox.retain(self.topics.state, encode({"station": self.topics.station, "at": self.wall(), **snap}))

    def _tallies(self, snap: dict[str, Any]) -> dict[str, Any]:
        """Games finished today and the last winner, from the journal: read again only when a game starts or ends."""
        key = (snap.get("game_id"), snap["mode"], time.strftime("%Y-%m-%d"))
        if key != self._tally_key:
            self._tally_key = key
            today = time.strftime("%Y-%m-%d")
            finished = [g for g in self.box.journal.history(200) if g.ended is not None]
            last = finished[0] if finished else None
            self._tally = {
                "games_today": sum(time.strftime("%Y-%m-%d", time.localtime(g.ended)) == today for g in finished),
                "last_winner": (f"{last.game}: " + ", ".join(
                    f"player {w + 1} ({SEAT_COLOR_NAMES[w % len(SEAT_COLOR_NAMES)]})" for w in last.winners or []))
                if last else None,
            }
        return self._tally

    def _online(self, online: bool) -> dict[str, Any]:
        return {"station": self.topics.station, "at": self.wall(), "online": online, "boot": self.boot}

    def _health(self) -> None:
        devices = {}
        for device in (self.devices.all() if self.devices is not None else []):
            devices[device.device] = {"driver": getattr(device, "driver", None), "fault": self.faults.get(device.device)}
        profile = getattr(getattr(self.devices, "profile", None), "name", None)
        self.outbox.retain(self.topics.health, encode({
            "station": self.topics.station, "at": self.wall(), "profile": profile, "devices": devices,
            "faults": dict(self.faults), "uptime": round(self.wall() - self._started, 1),
            "queued": len(self.outbox), "dropped": self.outbox.dropped, "every": self.settings.health_every,
        }))

    def _announce(self) -> None:
        """What a broker must hold about the box from the first connection: presence, discovery, health."""
        self.outbox.retain(self.topics.online, encode(self._online(True)))
        settings = self.settings
        if settings.homeassistant:
            messages = discovery_messages(settings.discovery_prefix, self.topics, self.box.config.volume_max)
            for topic, payload in messages.items():
                self.outbox.retain(topic, encode(payload))
        else:  # switched off (or never on): an empty retained config removes the entity from Home Assistant
            for topic in discovery_topics(settings.discovery_prefix, self.topics):
                self.outbox.retain(topic, b"")
        self._health()

    # -- commands -------------------------------------------------------------------------
    def _command(self, message: StationCommand) -> None:
        try:
            command = parse(message.name, message.payload)
            self._carry_out(command)
        except Refused as exc:
            self._refuse(message, exc)
            return
        log.info("command %s %s", command.name, "" if command.value is None else command.value)
        self.outbox.event(self.topics.events, {**self._answer(message), "kind": "command"})

    def _answer(self, message: StationCommand) -> dict[str, Any]:
        answer = {"station": self.topics.station, "at": self.wall(), "command": message.name[:32]}
        cid = command_id(message.payload)
        if cid is not None:
            answer["id"] = cid  # the teacher's page waits for it to say "done" or "refused"
        return answer

    def _refuse(self, message: StationCommand, exc: Refused) -> None:
        """A log line and a ``refused`` event for at most REFUSALS per REFUSALS_EVERY seconds (the rest are counted);
        a command with an id always gets its event, like a command taken: its sender waits for it to show why."""
        told = self._refusals.allow()
        if told:
            log.warning("refused command on %s: %s", message.topic, exc)
        answer = self._answer(message)
        if told or "id" in answer:
            self.outbox.event(self.topics.events, {**answer, "kind": "refused", "reason": str(exc)})

    def _carry_out(self, command: Command) -> None:
        box, engine = self.box, self.box.engine
        playing = engine is not None and not engine.over
        if command.name == "volume":
            step = {"up": VOLUME_STEP, "down": -VOLUME_STEP}.get(command.value)  # type: ignore[arg-type]
            box.set_volume(box.volume + step if step is not None else command.value)
        elif command.name == "language":
            box.set_language(command.value)
        elif command.name == "new-game":
            if playing:
                raise Refused("a game is running: end the session first (a game never changes mid-game)")
            game = command.value.get("game", box.menu.game)
            players = command.value.get("players") or (
                engine.players if engine is not None and engine.game == game else engine_class(game).min_players)
            if not box.new_game(game, players):
                raise Refused(f"{game} cannot start for {players} players with this box's options")
        elif command.name == "time-up":
            if not playing:
                raise Refused("no game is running")
            self.last_round = True
            box.stage.show("time_up")
        elif command.name == "end-session":
            self.last_round = False
            box.abandon_game()

    # -- the connection -------------------------------------------------------------------
    async def _run(self) -> None:
        import aiomqtt

        delay, said = RETRY_FIRST, False
        while True:
            try:
                async with self._client(aiomqtt) as client:
                    if self.settings.commands:
                        for topic in self.topics.commands():
                            await client.subscribe(topic, qos=1)
                    self.outbox.retain(self.topics.online, encode(self._online(True)))
                    self._publish_state()
                    self.outbox.resend_retained()
                    log.info("station %s on the broker %s:%d; %s", self.topics.station, self.settings.broker,
                             self.settings.port, commands_line(self.settings))
                    self.connected.set()
                    delay, said = RETRY_FIRST, False
                    await _first_failure(self._send(client), self._receive(client), self._heartbeat())
            except aiomqtt.MqttError as exc:
                self.connected.clear()
                self.catchup.keep()
                (log.debug if said else log.warning)(
                    "broker %s:%d: %s; trying again every few seconds", self.settings.broker, self.settings.port, exc)
                said = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)

    def _client(self, aiomqtt: Any) -> Any:
        s = self.settings
        return aiomqtt.Client(
            s.broker, s.port, identifier=self.client_id, keepalive=KEEPALIVE,
            tls_params=tls_parameters(aiomqtt, s),
            username=s.username, password=s.password.get_secret_value() if s.password else None,
            will=aiomqtt.Will(self.topics.online, encode(self._online(False)), qos=1, retain=True),
        )

    async def _send(self, client: Any) -> None:
        while True:
            self.catchup.refill()
            message = self.outbox.take()
            if message is None:
                await self.outbox.ready.wait()
                continue
            entry, topic, payload, retain = message
            self._sending = True
            try:
                await client.publish(topic, payload, qos=1, retain=retain)
            except BaseException:  # the connection broke (or the link stops): it goes first next time
                self.outbox.put_back(entry)
                raise
            finally:
                self._sending = False
            if not retain and entry[2] is not None:  # acknowledged by the broker (QoS 1)
                self.catchup.acknowledged = entry[2]

    async def _receive(self, client: Any) -> None:
        async for message in client.messages:
            name = self.topics.command(str(message.topic))
            if name is None or not self.settings.commands:
                continue
            payload = message.payload if isinstance(message.payload, bytes) else str(message.payload or "").encode()
            command = StationCommand(name, payload, str(message.topic), at=self.wall())
            try:
                if message.retain:  # a stale command kept by the broker must not run at every reconnection
                    raise Refused("a retained command is never carried out")
                parse(name, payload)  # malformed ones are answered here, and never queue before a tap
            except Refused as exc:
                self._refuse(command, exc)
                continue
            self.post(command)

    async def _heartbeat(self) -> None:
        while True:
            self._health()
            self.catchup.keep()
            skipped = self._refusals.take_skipped()
            if skipped:
                log.warning("%d more commands refused, not each told", skipped)
            await asyncio.sleep(self.settings.health_every)

    async def _drained(self) -> None:
        while len(self.outbox) or self._sending or self.catchup.behind:
            await asyncio.sleep(0.01)


def tls_parameters(aiomqtt: Any, s: NetworkConfig) -> Any:
    """TLS for a box and for the teacher's page alike: the CA, and the client certificate when one is named."""
    if not s.tls:
        return None
    return aiomqtt.TLSParameters(ca_certs=str(s.ca_file) if s.ca_file else None,
                                 certfile=str(s.cert_file) if s.cert_file else None,
                                 keyfile=str(s.key_file) if s.key_file else None)


def commands_line(settings: NetworkConfig) -> str:
    """Whether the box obeys commands, in words: for its log and ``gamebox doctor``."""
    if settings.commands:
        return f"obeys commands (logged in as {settings.username}: the broker's ACL decides who may send them)"
    return "obeys no commands (publishes only; [network] commands = true with the box's own broker account to allow them)"


async def _first_failure(*coroutines: Any) -> None:
    """Run the coroutines together until one fails; cancel the others and raise its error."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
