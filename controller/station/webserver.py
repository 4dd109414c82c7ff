"""The HTTP side both pages share: a bounded accept loop, one request per connection read within its limits,
and the locks of :mod:`controller.station.pageguard` checked before any route.

Stdlib asyncio streams, no framework: a page is a handful of routes, and
every limit here (connections in all and per address, room kept for
signed-in sessions, the TLS handshake, a whole request and a stalled
reader each bounded in time) is one the page's tests attack.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
import struct
from pathlib import Path
from typing import Any

from controller.station.pageguard import Guard, client_of

log = logging.getLogger("gamebox.page")

MAX_REQUEST = 16 * 1024
MAX_CONNECTIONS = 64  # at once, live streams and TLS handshakes included
PER_ADDRESS = 8  # of them from one client (an address, an IPv6 /64): a browser needs a stream and a few requests
SIGNED_IN_ROOM = 16  # of them only for clients with a signed-in session: a room full of pupils cannot lock the teacher out
REQUEST_SECONDS = 10.0  # to send a whole request, head and body
STALLED_SECONDS = 30.0  # a browser that reads nothing this long is let go


class PageServer:
    """Accepts and reads requests for a page, under its limits; a page says what each request gets (:meth:`_route`)."""

    def __init__(self, guard: Guard, listen: str, port: int, tls: ssl.SSLContext | None = None,
                 max_connections: int = MAX_CONNECTIONS, request_seconds: float = REQUEST_SECONDS,
                 stalled_seconds: float = STALLED_SECONDS) -> None:
        self.guard, self.listen, self.port, self.tls = guard, listen, port, tls
        self.max_connections, self.request_seconds, self.stalled_seconds = max_connections, request_seconds, stalled_seconds
        self.per_address, self.signed_in_room = min(PER_ADDRESS, max_connections), min(SIGNED_IN_ROOM, max_connections // 4)
        self._connections, self._full_told = 0, False
        self._per_address: dict[str, int] = {}  # client -> connections open
        self._told: set[str] = set()  # clients whose turning away was logged (until they are under the limit again)
        self._sockets: list[socket.socket] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._open: set[asyncio.Task[None]] = set()

    @property
    def keeps_room(self) -> bool:
        """The last ``signed_in_room`` connections are kept for signed-in clients (a page that has sessions)."""
        return True

    async def start(self) -> None:
        self._sockets = listening_sockets(self.listen, self.port)
        self.port = self._sockets[0].getsockname()[1]
        self._tasks = [asyncio.create_task(self._accept(sock)) for sock in self._sockets]

    async def stop(self) -> None:
        tasks, self._tasks = [*self._tasks, *self._open], []  # a second stop has nothing left to stop
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for sock in self._sockets:
            sock.close()

    async def _accept(self, sock: socket.socket) -> None:
        """Accept connections ourselves, so that at most ``max_connections`` are open, TLS handshakes included
        (asyncio's own server shakes hands before counting), at most ``per_address`` from one client, and the last
        SIGNED_IN_ROOM only for clients with a session; the rest are closed at once, told in one line."""
        loop = asyncio.get_running_loop()
        while True:
            conn, peer = await loop.sock_accept(sock)
            client = client_of(str(peer[0]))
            if not self._admit(client):
                conn.close()
                continue
            self._connections += 1
            self._per_address[client] = self._per_address.get(client, 0) + 1
            task = asyncio.create_task(self._connection(conn, client))
            self._open.add(task)
            task.add_done_callback(self._open.discard)

    def _admit(self, client: str) -> bool:
        full = self._connections >= self.max_connections
        if full or (self.keeps_room and self._connections >= self.max_connections - self.signed_in_room
                    and not self.guard.signed_in(client)):
            if not self._full_told:
                log.warning("%d connections open: more are turned away until some close%s", self._connections,
                            "" if full else f" (the last {self.signed_in_room} are kept for signed-in sessions)")
                self._full_told = True
            return False
        if self._per_address.get(client, 0) >= self.per_address:
            if client not in self._told:
                log.warning("client %s has %d connections open: more from it are turned away", client, self.per_address)
                self._told.add(client)
            return False
        return True

    async def _connection(self, conn: socket.socket, client: str) -> None:
        """One connection: its TLS handshake within ``request_seconds``, then its request."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        try:
            try:
                transport, protocol = await loop.connect_accepted_socket(
                    lambda: asyncio.StreamReaderProtocol(reader), conn, ssl=self.tls,
                    ssl_handshake_timeout=self.request_seconds if self.tls else None)
            except (OSError, asyncio.TimeoutError):  # the handshake failed or took too long (ssl.SSLError is an OSError)
                conn.close()
                return
            await self._serve(reader, asyncio.StreamWriter(transport, protocol, reader, loop), client)
        finally:
            self._connections -= 1
            self._per_address[client] -= 1
            if not self._per_address[client]:
                del self._per_address[client]
                self._told.discard(client)
            if self._connections < self.max_connections - self.signed_in_room:
                self._full_told = False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, client: str) -> None:
        """One request per connection, read whole within ``request_seconds``."""
        try:
            try:
                method, path, headers, body = await asyncio.wait_for(read_request(reader), self.request_seconds)
            except ValueError as exc:
                await reply(writer, 400, "text/plain", str(exc).encode())
                return
            await self._route(method, path.split("?")[0], headers, body, writer, client)
        except asyncio.TimeoutError:  # a request that never came whole, or a browser that stopped reading
            drop(writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _refused(self, method: str, headers: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        """Answer and True for a foreign Host (DNS rebinding) or a POST not from the page itself (CSRF)."""
        guard, host = self.guard, headers.get("host")
        if not guard.host_ok(host):
            await reply(writer, 421, "text/plain", b"this page answers only to its own address")
            return True
        if method == "POST" and not (guard.origin_ok(headers.get("origin"), host) and guard.token_ok(headers.get("x-token"))):
            await send_json(writer, 403, {"error": "only the page itself can do that: reload it"})
            return True
        return False

    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes,
                     writer: asyncio.StreamWriter, client: str) -> None:
        raise NotImplementedError


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    if len(head) > MAX_REQUEST:
        raise ValueError("request too large")
    request, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines if h)}
    try:
        method, path, _ = request.split(" ", 2)
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise ValueError("not an HTTP request") from None
    if not 0 <= length <= MAX_REQUEST:
        raise ValueError("body too large")
    return method, path, headers, await reader.readexactly(length) if length else b""


def drop(writer: asyncio.StreamWriter) -> None:
    """Let a connection go at once (a reset): a close would keep it, and what it did not read, until it reads."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def cookies_of(header: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (part.partition("=") for part in header.split(";")) if k.strip()}


async def send_json(writer: asyncio.StreamWriter, status: int, value: Any, extra: str = "") -> None:
    await reply(writer, status, "application/json", json.dumps(value).encode(), extra)


async def reply(writer: asyncio.StreamWriter, status: int, kind: str, body: bytes, extra: str = "") -> None:
    reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
              421: "Misdirected Request", 429: "Too Many Requests"}[status]
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                 f"Cache-Control: no-store\r\n{extra}Connection: close\r\n\r\n".encode() + body)
    await asyncio.wait_for(writer.drain(), STALLED_SECONDS)


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address of ``host`` (one port for all: the first one's, when ``port`` is 0)."""
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                                  flags=socket.AI_PASSIVE):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((address[0], sockets[0].getsockname()[1] if len(sockets) > 1 else port, *address[2:]))
            sock.listen(100)
            sock.setblocking(False)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "::1", "localhost")


def https(cert: Path, key: Path) -> ssl.SSLContext:
    """The page's TLS from a certificate and its key (PEM); OSError or ssl.SSLError when they do not load."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context
