"""``gamebox classroom``: the teacher's page: every station live on one screen, and buttons to steer them.

One asyncio process: an MQTT client that listens to ``<prefix>/+/state``,
``online``, ``health`` and ``events``, and a small HTTP server (stdlib
asyncio streams, no framework, no build step) that serves one page, pushes
each change to it as a server-sent event, takes commands and exports the
statistics as CSV. It listens on localhost unless told otherwise; on the
network a PIN is required for commands.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.config import NetworkConfig
from controller.station.checks import Bad, checked
from controller.station.commands import Refused, parse
from controller.station.topics import ALL, split

log = logging.getLogger("gamebox.classroom")

PAGE = Path(__file__).with_name("page.html")
LEAVES = ("state", "online", "health", "events")
MAX_REQUEST = 16 * 1024
KEEPALIVE = 15.0  # seconds between two SSE comments, so proxies and tablets keep the stream open
STATION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_STATIONS = 60  # shown on the page; more are counted, not shown
MAX_IGNORED = 10_000
MAX_COUNTED = 5_000  # finished games remembered per station, so a game is counted once
STREAM_BACKLOG = 1000  # updates waiting for one browser; past it its stream is closed and it reconnects
BAD_LOG_EVERY = 60.0  # seconds between two log lines about dropped payloads


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
        self.ignored: set[str] = set()  # stations beyond the cap (names kept up to a bound)
        self.broker = False  # the page's own connection to the broker
        self.dropped = 0  # bad payloads not yet told in the log
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
        try:
            value = checked(leaf, payload)
        except Bad as exc:
            self._bad(topic, str(exc))
            return
        entry = self.stations.get(station)
        if entry is None:
            if value is None:
                return
            if len(self.stations) >= self.cap:
                if len(self.ignored) < MAX_IGNORED and station not in self.ignored:
                    self.ignored.add(station)
                    self.room_changed = True  # told by the page's tick, not once per name of a flood
                return
            entry = self.stations[station] = {"station": station}
        entry["last_event" if leaf == "events" else leaf] = value
        if not entry.get("state") and not (entry.get("online") or {}).get("online"):
            if leaf in ("state", "online") and value is None:  # cleared and offline: the station is gone
                del self.stations[station]
                self.stats.pop(station, None)
                self._send(json.dumps({"station": station, "gone": True}))
                return
        if value and (leaf == "state" or (leaf == "events" and value.get("kind") == "game_over")):
            self.stats.setdefault(station, Stats()).saw_game(value)
        self.push(station)

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
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:  # a stalled tablet may not eat the laptop's memory, nor miss an update
                self.overflowed.add(queue)

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["station", "games", "game", "games_of_this_game", "average_minutes"])
        for name in sorted(self.stations):
            stats = self.stats.get(name, Stats())
            overall = stats.as_dict()
            if not stats.per_game:
                writer.writerow([name, 0, "", 0, ""])
            for game, (n, total) in sorted(stats.per_game.items()):
                writer.writerow([name, overall["games"], game, n, round(total / n / 60, 2)])
        return out.getvalue()


class TeacherPage:
    """The HTTP side and the MQTT side of ``gamebox classroom``."""

    def __init__(self, settings: NetworkConfig, listen: str = "127.0.0.1", port: int = 8080, pin: str | None = None) -> None:
        self.settings, self.listen, self.port = settings, listen, port
        self.pin = pin
        self.room = Classroom(settings.prefix)
        self.client: Any = None
        self.server: asyncio.AbstractServer | None = None

    @property
    def needs_pin(self) -> bool:
        return self.pin is not None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, self.listen, self.port)
        self.port = self.server.sockets[0].getsockname()[1]
        self._tasks = [asyncio.create_task(self._mqtt()), asyncio.create_task(self._tick())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.server is not None:
            self.server.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _tick(self) -> None:
        """Once a second: what changed in bulk (stations ignored) goes to the browsers in one message."""
        while True:
            await asyncio.sleep(1.0)
            if self.room.room_changed:
                self.room.push_room()

    # -- MQTT -------------------------------------------------------------------------------
    async def _mqtt(self) -> None:
        import aiomqtt

        from controller.station.link import RETRY_FIRST, RETRY_MOST, tls_parameters

        s, delay, said = self.settings, RETRY_FIRST, False
        while True:
            try:
                tls = tls_parameters(aiomqtt, s)
                async with aiomqtt.Client(s.broker, s.port, username=s.username, tls_params=tls,
                                          password=s.password.get_secret_value() if s.password else None) as client:
                    for leaf in LEAVES:
                        await client.subscribe(f"{s.prefix}/+/{leaf}", qos=1)
                    self.client, delay, said = client, RETRY_FIRST, False
                    self.room.broker = True
                    self.room.push_room()
                    log.info("listening to the stations on %s:%d", s.broker, s.port)
                    async for message in client.messages:
                        payload = message.payload if isinstance(message.payload, bytes) else str(message.payload).encode()
                        self.room.take(str(message.topic), payload)
            except aiomqtt.MqttError as exc:
                self.client = None
                if self.room.broker or not said:
                    self.room.broker = False
                    self.room.push_room()
                (log.debug if said else log.warning)("broker %s:%d: %s; trying again", s.broker, s.port, exc)
                said = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MOST)

    async def command(self, station: str, name: str, value: Any) -> None:
        """Check a command as the box would, then send it; :class:`Refused` with the reason otherwise."""
        if station != ALL and not STATION.match(station):
            raise Refused(f"no station {station!r}")
        payload = b"" if value is None else (value if isinstance(value, str) else json.dumps(value)).encode()
        parse(name, payload)
        if self.client is None:
            raise Refused("the broker is not reachable")
        await self.client.publish(f"{self.settings.prefix}/{station}/set/{name}", payload, qos=1)

    # -- HTTP -------------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            if len(head) > MAX_REQUEST:
                raise ValueError("request too large")
            request, *header_lines = head.decode("latin-1").split("\r\n")
            method, path, _ = request.split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines if h)}
            length = int(headers.get("content-length", "0"))
            if length > MAX_REQUEST:
                raise ValueError("body too large")
            body = await reader.readexactly(length) if length else b""
            await self._route(method, path.split("?")[0], headers, body, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
            pass
        except ValueError as exc:
            await _reply(writer, 400, "text/plain", str(exc).encode())
        finally:
            writer.close()

    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter) -> None:
        if method == "GET" and path == "/":
            await _reply(writer, 200, "text/html; charset=utf-8", PAGE.read_bytes())
        elif method == "GET" and path == "/stream":
            await self._stream(writer)
        elif method == "GET" and path == "/stats.csv":
            await _reply(writer, 200, "text/csv; charset=utf-8", self.room.csv().encode(),
                         extra="Content-Disposition: attachment; filename=classroom-stats.csv\r\n")
        elif method == "POST" and path == "/command":
            await self._command(headers, body, writer)
        else:
            await _reply(writer, 404, "text/plain", b"not found")

    async def _command(self, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter) -> None:
        if self.pin is not None and not hmac.compare_digest(headers.get("x-pin", "").encode(), self.pin.encode()):
            log.warning("command refused: wrong or missing PIN")
            await _reply(writer, 403, "application/json", b'{"error": "wrong PIN"}')
            return
        try:
            request = json.loads(body)
            if not isinstance(request, dict):
                raise ValueError
            await self.command(str(request.get("station")), str(request.get("command")), request.get("value"))
        except (ValueError, Refused) as exc:
            reason = str(exc) or "a JSON object {station, command, value} is expected"
            log.warning("command refused: %s", reason)
            await _reply(writer, 400, "application/json", json.dumps({"error": reason}).encode())
            return
        await _reply(writer, 200, "application/json", b'{"ok": true}')

    async def _stream(self, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Connection: keep-alive\r\n\r\n")
        settings = {"pin": self.needs_pin, "prefix": self.settings.prefix}
        writer.write(f"event: hello\ndata: {json.dumps(settings)}\n\n".encode())
        writer.write(f"event: room\ndata: {json.dumps(self.room.room())}\n\n".encode())
        for entry in self.room.everything():
            writer.write(f"data: {json.dumps(entry, separators=(',', ':'))}\n\n".encode())
        await writer.drain()
        queue: asyncio.Queue[str] = asyncio.Queue(STREAM_BACKLOG)
        self.room.listeners.add(queue)
        try:
            while queue not in self.room.overflowed:
                try:
                    writer.write((await asyncio.wait_for(queue.get(), KEEPALIVE)).encode())
                except asyncio.TimeoutError:
                    writer.write(b": still here\n\n")
                await writer.drain()
        finally:
            self.room.listeners.discard(queue)
            self.room.overflowed.discard(queue)


async def _reply(writer: asyncio.StreamWriter, status: int, kind: str, body: bytes, extra: str = "") -> None:
    reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}[status]
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                 f"Cache-Control: no-store\r\n{extra}Connection: close\r\n\r\n".encode() + body)
    await writer.drain()


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "::1", "localhost")


async def serve(page: TeacherPage, out: Any = print) -> None:
    await page.start()
    out(f"the teacher's page: http://{page.listen if not page.listen.startswith('0') else 'THIS-COMPUTER'}:{page.port}/")
    if page.pin is not None:
        out(f"PIN for the buttons: {page.pin}")
    await asyncio.Event().wait()


def run_classroom(settings: NetworkConfig, listen: str, port: int, pin: str | None) -> int:
    """The ``gamebox classroom`` command: a PIN is required (made up if not given) when listening beyond localhost."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if pin is None and not is_loopback(listen):
        pin = f"{secrets.randbelow(10**6):06d}"
    try:
        asyncio.run(serve(TeacherPage(settings, listen, port, pin)))
    except KeyboardInterrupt:
        pass
    return 0
