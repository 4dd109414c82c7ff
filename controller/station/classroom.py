"""``gamebox classroom``: the teacher's page: every station live on one screen, and buttons to steer them.

One asyncio process: MQTT clients that listen to ``<prefix>/+/online`` (which
stations there are) and to each station's ``state``, ``online``, ``health`` and
``events`` on a connection of its own, and a small HTTP server (stdlib
asyncio streams, no framework, no build step) that serves one page, pushes
each change to it as a server-sent event, takes commands and exports the
statistics as CSV. It listens on localhost unless told otherwise; on the
network a PIN opens the page (:mod:`controller.station.pageguard` keeps the locks).
"""

from __future__ import annotations

import asyncio
import csv
import functools
import html
import io
import json
import logging
import math
import re
import secrets
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.config import NetworkConfig
from controller.station.checks import Bad, checked
from controller.station.commands import Refused, parse
from controller.station.pageguard import SESSION_COOKIE, Guard, check_pin, made_up_pin
from controller.station.topics import ALL, split
from controller.station.webserver import PageServer, cookies_of, drop, is_loopback, reply, send_json

log = logging.getLogger("gamebox.classroom")

PAGE = Path(__file__).with_name("page.html")
LEAVES = ("state", "online", "health", "events")
KEEPALIVE = 15.0  # seconds between two SSE comments, so proxies and tablets keep the stream open
STATION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_STATIONS = 60  # shown on the page; more are counted, not shown
MAX_IGNORED = 10_000
MAX_COUNTED = 5_000  # finished games remembered per station, so a game is counted once
STREAM_BACKLOG = 1000  # updates waiting for one browser; past it its stream is closed and it reconnects
HEARTBEAT_MISSES = 2.5  # health periods without a word before a station shows offline
BAD_LOG_EVERY = 60.0  # seconds between two log lines about dropped payloads
STATION_BURST, STATION_RATE = 10, 10.0  # updates a station may send at once, and per second past that (a box: ~1)
RELEASE_SECONDS = 0.05  # how often a station held back past its share gets its newest update through
REPLACED = "event: replaced\ndata: {}\n\n"  # the last message of a stream that a newer one of its session replaced


class Feed(asyncio.Queue):  # type: ignore[type-arg]
    """aiomqtt's incoming queue, replaced by a call: each message is looked at the moment paho has read it, so a
    flood costs its topic's split and a dict lookup, and nothing of another station waits behind it in a queue."""

    def __init__(self, take: Callable[[str, bytes], None], maxsize: int = 0) -> None:
        super().__init__()
        self._take = take

    def put_nowait(self, item: Any) -> None:
        payload = item.payload if isinstance(item.payload, bytes) else str(item.payload).encode()
        self._take(str(item.topic), payload)


class NoStation(Refused):
    """A command for a station the page has never seen."""


class Unavailable(Refused):
    """A command nobody can take now: the station is offline, or the broker is."""


@dataclass
class Stats:
    """Games a station finished while the page watched it (or as its retained state showed)."""

    counted: dict[int, None] = field(default_factory=dict)  # game ids, oldest first (bounded)
    per_game: dict[str, list[float]] = field(default_factory=dict)  # game -> [games, seconds in all]

    def saw_game(self, state: dict[str, Any]) -> bool:
        """A state or a ``game_over`` event; a finished game is counted once, however often it is seen."""
        game_id = state.get("game_id")
        over = state.get("mode") == "over" or state.get("kind") == "game_over"
        if not over or game_id is None or game_id in self.counted:
            return False
        self.counted[game_id] = None
        if len(self.counted) > MAX_COUNTED:
            del self.counted[next(iter(self.counted))]
        started, at = state.get("started_at"), state.get("at")
        length = max(0.0, at - started) if isinstance(started, (int, float)) and isinstance(at, (int, float)) else 0.0
        tally = self.per_game.setdefault(state.get("game") or "?", [0, 0.0])
        tally[0] += 1
        tally[1] += length
        return True

    def as_dict(self) -> dict[str, Any]:
        games = sum(n for n, _ in self.per_game.values())
        return {
            "games": games,
            "per_game": {g: n for g, (n, _) in sorted(self.per_game.items())},
            "average_seconds": round(sum(t for _, t in self.per_game.values()) / games, 1) if games else None,
        }


class Classroom:
    """What the page shows: each station's newest state, presence, health and event; and the statistics.

    Only checked payloads get in (:mod:`controller.station.checks`); at most
    ``cap`` stations are shown, and a station that is offline with its
    retained state cleared is forgotten.
    """

    def __init__(self, prefix: str, cap: int = MAX_STATIONS, clock: Callable[[], float] = time.monotonic) -> None:
        self.prefix, self.cap, self.clock = prefix, cap, clock
        self.stations: dict[str, dict[str, Any]] = {}
        self.stats: dict[str, Stats] = {}
        self.listeners: set[asyncio.Queue[str]] = set()
        self.overflowed: set[asyncio.Queue[str]] = set()  # streams too slow to follow: closed, the browser reconnects
        self.room_changed = False
        self.heard: dict[str, float] = {}  # station -> when the page last heard from it (its clock)
        self.ignored: set[str] = set()  # stations beyond the cap (names kept up to a bound)
        self.broker = False  # the page's own connection to the broker
        self.dropped = 0  # bad payloads not yet told in the log
        self.held: dict[str, dict[str, bytes]] = {}  # station past its share -> leaf -> its newest payload, not yet read
        self._budget: dict[str, tuple[float, float]] = {}  # station -> (updates it may send now, when that was counted)
        self._told_at: float | None = None

    def take(self, topic: str, payload: bytes) -> None:
        """One MQTT message; a bad one is dropped with a rate-limited log line (a page must never fall over)."""
        where = split(self.prefix, topic)
        if where is None or where[1] not in LEAVES:
            return
        station, leaf = where
        if not STATION.match(station) or station == ALL:
            self._bad(topic[:100], "not a station name")
            return
        entry = self.stations.get(station)
        if entry is None and len(self.stations) >= self.cap:  # not even read: a flood of names costs little
            if payload and len(self.ignored) < MAX_IGNORED and station not in self.ignored:
                self.ignored.add(station)
                self.room_changed = True  # told by the page's tick, not once per name of a flood
            return
        if station in self.held or not self._allow(station):  # past its share: only its newest message of each kind waits
            self.held.setdefault(station, {})[leaf] = payload
            self.heard[station] = self.clock()
            return
        if self._apply(station, leaf, payload):
            self.push(station)

    def _allow(self, station: str) -> bool:
        """A station's share of the page: STATION_BURST updates at once, then STATION_RATE a second (a new name's first
        message always gets in: the cap bounds those)."""
        if station not in self.stations:
            return True
        now = self.clock()
        tokens, at = self._budget.get(station, (float(STATION_BURST), now))
        tokens = min(float(STATION_BURST), tokens + (now - at) * STATION_RATE)
        allowed = tokens >= 1
        self._budget[station] = (tokens - allowed, now)
        return allowed

    def release(self) -> None:
        """Each station held back whose share allows it again: its newest messages, shown as one update."""
        for station in [name for name in self.held if self._allow(name)]:
            changed = False
            for leaf, payload in self.held.pop(station).items():
                changed = self._apply(station, leaf, payload) or changed
            if changed and station in self.stations:
                self.push(station)

    def _apply(self, station: str, leaf: str, payload: bytes) -> bool:
        """Check one message and keep it; whether the browsers should be sent the station again."""
        entry = self.stations.get(station)
        try:
            value = checked(leaf, payload)
        except Bad as exc:
            self._bad(f"{self.prefix}/{station}/{leaf}", str(exc))
            return False
        if entry is None:
            if value is None:
                return False
            entry = self.stations[station] = {"station": station}
        if leaf == "online":
            entry["duplicate"] = _two_boxes(entry.get("online"), value) or (entry.get("duplicate", False) and bool(value)
                                                                               and value.get("online") is True)
        heartbeat_only = leaf == "health" and not entry.get("silent") and _steady(entry.get("health")) == _steady(value)
        entry["last_event" if leaf == "events" else leaf] = value
        self.heard[station] = self.clock()
        entry["silent"] = False
        if heartbeat_only:  # nothing a browser would show changed: not sent to it (10 a second in a classroom of 30)
            return False
        if not entry.get("state") and not (entry.get("online") or {}).get("online"):
            if leaf in ("state", "online") and value is None:  # cleared and offline: the station is gone
                del self.stations[station]
                for kept in (self.stats, self.heard, self.held, self._budget):
                    kept.pop(station, None)
                self._send(json.dumps({"station": station, "gone": True}))
                return False
        if value and (leaf == "state" or (leaf == "events" and value.get("kind") == "game_over")):
            self.stats.setdefault(station, Stats()).saw_game(value)
        return True

    def check_heartbeats(self) -> None:
        """A station that said it was online but sent no health for HEARTBEAT_MISSES of its periods is shown silent:
        the power went, and the broker has not noticed yet."""
        now = self.clock()
        for name, entry in self.stations.items():
            every = (entry.get("health") or {}).get("every")
            if not every or entry.get("silent") or not (entry.get("online") or {}).get("online"):
                continue
            if now - self.heard.get(name, now) > HEARTBEAT_MISSES * every:
                entry["silent"] = True
                self.push(name)

    def _bad(self, topic: str, why: str) -> None:
        """One log line for the first bad payload, then at most one a minute with how many were dropped."""
        self.dropped += 1
        now = self.clock()
        if self._told_at is None or now - self._told_at >= BAD_LOG_EVERY:
            log.warning("dropped %d bad message(s) from the broker; the last on %s: %s", self.dropped, topic, why)
            self.dropped, self._told_at = 0, now

    def view(self, station: str) -> dict[str, Any]:
        entry = dict(self.stations[station])
        entry["stats"] = self.stats.get(station, Stats()).as_dict()
        entry["seen"] = time.time()
        return entry

    def everything(self) -> list[dict[str, Any]]:
        return [self.view(name) for name in sorted(self.stations)]

    def room(self) -> dict[str, Any]:
        """What the page says above the stations: the broker's reachability and the stations not shown."""
        return {"broker": self.broker, "ignored": len(self.ignored), "cap": self.cap}

    def push_room(self) -> None:
        self.room_changed = False
        self._send(json.dumps(self.room()), "room")

    def push(self, station: str) -> None:
        self._send(json.dumps(self.view(station), separators=(",", ":")))

    def _send(self, data: str, event: str = "") -> None:
        message = (f"event: {event}\n" if event else "") + f"data: {data}\n\n"
        for queue in self.listeners:
            self.tell(queue, message)

    def tell(self, queue: asyncio.Queue[str], message: str) -> None:
        """One message for one stream; a stream that cannot take it is closed (a stalled tablet may not eat the
        laptop's memory, nor miss an update: it reconnects and gets everything)."""
        try:
            queue.put_nowait(message)
        except asyncio.QueueFull:
            self.overflowed.add(queue)

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["station", "games", "game", "games_of_this_game", "average_minutes"])
        for name in sorted(self.stations):
            stats = self.stats.get(name, Stats())
            overall = stats.as_dict()
            if not stats.per_game:
                writer.writerow([_cell(name), 0, "", 0, ""])
            for game, (n, total) in sorted(stats.per_game.items()):
                writer.writerow([_cell(name), overall["games"], _cell(game), n, round(total / n / 60, 2)])
        return out.getvalue()


def _steady(health: dict[str, Any] | None) -> dict[str, Any] | None:
    """A health message without what changes at every heartbeat."""
    return None if health is None else {k: v for k, v in health.items() if k not in ("at", "uptime", "queued", "every")}


def _two_boxes(before: dict[str, Any] | None, now: dict[str, Any] | None) -> bool:
    """Online twice without an offline between, from two runs: two boxes use one station name."""
    return bool(before and now and before.get("online") and now.get("online") and before.get("boot")
                and now.get("boot") and before["boot"] != now["boot"])


def _cell(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula (``-1+1``, ``=HYPERLINK(...)``): quoted by a leading '."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


class TeacherPage(PageServer):
    """The teacher's page: the MQTT side (a connection for the room, one per station) and the page's routes."""

    def __init__(self, settings: NetworkConfig, listen: str = "127.0.0.1", port: int = 8080, pin: str | None = None,
                 names: tuple[str, ...] = (), tls: ssl.SSLContext | None = None,
                 clock: Callable[[], float] = time.monotonic, **limits: Any) -> None:
        """``limits``: :class:`~controller.station.webserver.PageServer`'s (``max_connections``, ``request_seconds``,
        ``stalled_seconds``)."""
        self.pin, self.made_up = check_pin(pin), False
        if self.pin is None and not is_loopback(listen):
            self.pin, self.made_up = made_up_pin(), True
        super().__init__(Guard(self.pin, names, clock), listen, port, tls, **limits)
        self.settings = settings
        self.room = Classroom(settings.prefix)
        self._streams: dict[str, asyncio.Queue[str]] = {}  # session (or client, without a PIN) -> its one live stream
        self.client: Any = None  # the room's connection, which sends the commands
        self.readers: dict[str, asyncio.Task[None]] = {}  # station -> the task of its own connection

    @property
    def needs_pin(self) -> bool:
        return self.pin is not None

    @property
    def keeps_room(self) -> bool:
        return self.needs_pin  # without a PIN there are no sessions to keep room for

    async def start(self) -> None:
        await super().start()
        self._tasks += [asyncio.create_task(self._listen(None)), asyncio.create_task(self._tick()),
                        asyncio.create_task(self._release())]

    async def stop(self) -> None:
        self._tasks += self.readers.values()
        await super().stop()

    async def _tick(self) -> None:
        """Once a second: silent stations are shown offline, and what changed in bulk (stations ignored) is told."""
        while True:
            await asyncio.sleep(1.0)
            self.room.check_heartbeats()
            if self.room.room_changed:
                self.room.push_room()

    async def _release(self) -> None:
        """Stations held back for sending more than their share get their newest update through, at their rate."""
        while True:
            await asyncio.sleep(RELEASE_SECONDS)
            self.room.release()

    # -- MQTT -------------------------------------------------------------------------------
    def _discovered(self, topic: str, payload: bytes) -> None:
        """A message on the room's connection: a station not yet on a connection of its own is taken, and gets one."""
        where = split(self.settings.prefix, topic)
        if where is not None and where[0] in self.readers:  # it is read on its own connection
            return
        self.room.take(topic, payload)
        for name in self.room.stations.keys() - self.readers.keys():
            self.readers[name] = asyncio.create_task(self._listen(name))

    def _station_said(self, station: str, topic: str, payload: bytes) -> None:
        """A message on one station's own connection; a station gone from the page stops its connection."""
        self.room.take(topic, payload)
        if station not in self.room.stations and station in self.readers:
            self.readers.pop(station).cancel()

    async def _listen(self, station: str | None) -> None:
        """One connection to the broker, kept up: the room's (``station`` None: every station's retained ``online``,
        and the commands) or one station's own (its four topics). A station's flood fills only its own connection:
        the broker queues (and past ``max_queued_messages`` drops) per connection, and the page reads its
        connections in turn, one message each."""
        import aiomqtt

        from controller.station.link import RETRY_FIRST, RETRY_MOST, tls_parameters

        s, delay, said = self.settings, RETRY_FIRST, False
        if station is None:
            topics, take = [f"{s.prefix}/+/online"], self._discovered
        else:
            topics = [f"{s.prefix}/{station}/{leaf}" for leaf in LEAVES]
            take = functools.partial(self._station_said, station)
        while True:
            try:
                tls = tls_parameters(aiomqtt, s)
                async with aiomqtt.Client(s.broker, s.port, username=s.username, tls_params=tls,
                                          password=s.password.get_secret_value() if s.password else None,
                                          queue_type=functools.partial(Feed, take)) as client:  # type: ignore[arg-type]
                    await client.subscribe([(topic, 1) for topic in topics])  # one packet: a station's state
                    # is never shown before its answers (events) are heard
                    delay, said = RETRY_FIRST, False
                    if station is None:
                        self.client, self.room.broker = client, True
                        self.room.push_room()
                        log.info("listening to the stations on %s:%d", s.broker, s.port)
                    async for _ in client.messages:  # never an item (the Feed took each): until the connection ends
                        pass
            except aiomqtt.MqttError as exc:
                if station is None:
                    self.client = None
                    if self.room.broker or not said:
                        self.room.broker = False
                        self.room.push_room()
                    (log.debug if said else log.warning)("broker %s:%d: %s; trying again", s.broker, s.port, exc)
                said = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)

    async def command(self, station: str, name: str, value: Any) -> dict[str, Any]:
        """Check a command as the box would, then send it with an id the box echoes; :class:`Refused` otherwise."""
        if station != ALL:
            entry = self.room.stations.get(station)
            if entry is None:
                raise NoStation("no such station")
            if not is_online(entry):
                raise Unavailable(f"{station} is offline")
        else:
            online = sorted(n for n, e in self.room.stations.items() if is_online(e))
            if not online:
                raise Unavailable("no station is online")
        parse(name, b"" if value is None else json.dumps(value).encode())
        if self.client is None:
            raise Unavailable("broker unreachable")
        command_id = secrets.token_hex(6)
        payload = json.dumps({"id": command_id, "value": value}).encode()
        await self.client.publish(f"{self.settings.prefix}/{station}/set/{name}", payload, qos=1)
        return {"id": command_id, "stations": online if station == ALL else [station]}

    # -- HTTP -------------------------------------------------------------------------------
    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes,
                     writer: asyncio.StreamWriter, client: str) -> None:
        guard = self.guard
        if await self._refused(method, headers, writer):
            return
        cookies = cookies_of(headers.get("cookie", ""))
        if method == "GET" and path == "/":
            await reply(writer, 200, "text/html; charset=utf-8", self._page())
        elif method == "POST" and path == "/login":
            await self._login(client, body, writer)
        elif path in ("/stream", "/stats.csv", "/command", "/session") and not guard.has_session(cookies):
            await send_json(writer, 403, {"error": "PIN needed"})
        elif method == "GET" and path == "/session":
            await send_json(writer, 200, {"ok": True})
        elif method == "GET" and path == "/stream":
            await self._stream(writer, cookies.get(SESSION_COOKIE, "") if self.pin else client)
        elif method == "GET" and path == "/stats.csv":
            await reply(writer, 200, "text/csv; charset=utf-8", self.room.csv().encode(),
                        extra="Content-Disposition: attachment; filename=classroom-stats.csv\r\n")
        elif method == "POST" and path == "/command":
            await self._command(body, writer)
        else:
            await reply(writer, 404, "text/plain", b"not found")

    def _page(self) -> bytes:
        settings = json.dumps({"token": self.guard.token, "pin": self.needs_pin})
        return PAGE.read_bytes().replace(b"{{SETTINGS}}", html.escape(settings).encode())

    async def _login(self, client: str, body: bytes, writer: asyncio.StreamWriter) -> None:
        if self.pin is None:
            await send_json(writer, 200, {"ok": True})
            return
        wait = self.guard.wait_left(client)
        if wait > 0:
            await send_json(writer, 429, {"error": f"wait {math.ceil(wait)} s before the next try"})
            return
        try:
            pin = json.loads(body).get("pin")
        except (ValueError, AttributeError):
            pin = None
        session = self.guard.login(client, pin) if isinstance(pin, str) else None
        if session is None:
            await send_json(writer, 403, {"error": "wrong PIN"})
            return
        await send_json(writer, 200, {"ok": True},
                        extra=f"Set-Cookie: {SESSION_COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/"
                              f"{'; Secure' if self.tls else ''}\r\n")

    async def _command(self, body: bytes, writer: asyncio.StreamWriter) -> None:
        try:
            request = json.loads(body)
            if not isinstance(request, dict):
                raise ValueError
            sent = await self.command(str(request.get("station")), str(request.get("command")), request.get("value"))
        except (ValueError, Refused) as exc:
            reason = str(exc) or "a JSON object {station, command, value} is expected"
            status = 404 if isinstance(exc, NoStation) else 409 if isinstance(exc, Unavailable) else 400
            await send_json(writer, status, {"error": reason})
            return
        await send_json(writer, 200, sent)

    async def _stream(self, writer: asyncio.StreamWriter, owner: str) -> None:
        """The live stream; one per session (per client without a PIN): a newer one replaces it, and says so."""
        queue: asyncio.Queue[str] = asyncio.Queue(STREAM_BACKLOG)
        older = self._streams.get(owner)
        if older is not None:
            self.room.tell(older, REPLACED)
        self._streams[owner] = queue
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Connection: keep-alive\r\n\r\n")
        writer.write(f"event: room\ndata: {json.dumps(self.room.room())}\n\n".encode())
        for entry in self.room.everything():
            writer.write(f"data: {json.dumps(entry, separators=(',', ':'))}\n\n".encode())
        try:
            await asyncio.wait_for(writer.drain(), self.stalled_seconds)
            self.room.listeners.add(queue)
            while queue not in self.room.overflowed:
                try:
                    message = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except asyncio.TimeoutError:
                    message = ": still here\n\n"
                writer.write(message.encode())
                await asyncio.wait_for(writer.drain(), self.stalled_seconds)  # a browser that stopped reading is let go
                if message == REPLACED:
                    return
            drop(writer)  # too slow to follow: the browser reconnects and gets everything
        finally:
            self.room.listeners.discard(queue)
            self.room.overflowed.discard(queue)
            if self._streams.get(owner) is queue:
                del self._streams[owner]


def is_online(entry: dict[str, Any]) -> bool:
    """The station said it is online, and its heartbeat has not gone silent since."""
    return bool((entry.get("online") or {}).get("online")) and not entry.get("silent")


async def serve(page: TeacherPage, out: Any = print) -> None:
    await page.start()
    scheme = "https" if page.tls else "http"
    out(f"the teacher's page: {scheme}://{page.listen if not page.listen.startswith('0') else 'THIS-COMPUTER'}:{page.port}/")
    if page.made_up:
        out(f"PIN for the page: {page.pin}")
    await asyncio.Event().wait()


def run_classroom(settings: NetworkConfig, listen: str, port: int, pin: str | None, names: tuple[str, ...] = (),
                  tls: ssl.SSLContext | None = None) -> int:
    """The ``gamebox classroom`` command: a PIN is required (made up and printed if not given) beyond localhost."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(TeacherPage(settings, listen, port, pin, names, tls=tls)))
    except KeyboardInterrupt:
        pass
    return 0
