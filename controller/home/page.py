"""``gamebox home``: the family's page, its own process, asking the box's daemon over its control socket.

The HTTP side is the teacher's page's (:class:`~controller.station.webserver.PageServer`):
the same bounded accept loop and TLS handshake timeout, the same request
reader with its size and time limits, the same :class:`~controller.station.pageguard.Guard`
for the ``Host`` check, the page's ``Origin`` and token on every POST, the
per-address back-off after a wrong code, and its HttpOnly, SameSite=Strict
session cookie. What differs is who opens a session: not a PIN but the
box's pairing code (:mod:`controller.control.pairing`: spoken by the box
after a hold of its die, five wrong tries in all, from every address;
one address may arm the die once per :data:`PAIR_ASK_EVERY`); sessions
here last longer and outlive a restart (:mod:`controller.home.sessions`);
one address holds at most the teacher page's
:data:`~controller.station.webserver.PER_ADDRESS` connections. Nothing but the page itself and the pairing works unpaired.

Every request is passed to the daemon as one op; the daemon checks it
again, as it would a tap. The page keeps nothing of the box's.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import logging
import math
import secrets
import ssl
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

from controller.control.keep import MAX_BACKUP
from controller.home.client import BoxAway, ask
from controller.home.sessions import Sessions
from controller.home.words import page_words
from controller.station.pageguard import MAX_CLIENTS, SESSION_COOKIE, Guard
from controller.station.webserver import PageServer, cookies_of, is_loopback, reply, send_json
from controller.window.cards import card_look

log = logging.getLogger("gamebox.home")

PAGE = Path(__file__).with_name("page.html")
SESSION_DAYS = 30.0  # a paired phone stays paired a month, then pairs again (``gamebox home --session-days``)
PAIR_ASK_EVERY = 120.0  # seconds between two asks for a code from one address (the box adds its own limit)
RESTORE_PART = 8 * 1024  # base64 characters per upload request (the request reader takes 16 KiB at most)

#: GET paths and the op each asks the daemon (the deck's cards: /api/cards/DECK).
READS = {"/api/view": "view", "/api/history": "history", "/api/doctor": "doctor", "/api/config": "config.get",
         "/api/enrol": "enrol.state"}
#: POST paths, the op and the fields of the JSON body passed on (the daemon checks each).
WRITES = {"/api/config": ("config.set", ("values",)), "/api/enrol/begin": ("enrol.begin", ("deck", "card", "write")),
          "/api/enrol/stop": ("enrol.stop", ()), "/api/enrol/forget": ("enrol.forget", ("card",))}


class PairedGuard(Guard):
    """The teacher's page's Guard, its sessions those of the paired phones (:class:`Sessions`, kept on disk)."""

    def __init__(self, sessions: Sessions, names: tuple[str, ...], clock: Callable[[], float]) -> None:
        # The PIN is a secret nobody knows: only a pairing code the box checked opens a session.
        super().__init__(secrets.token_urlsafe(32), names, clock)
        self.sessions = sessions

    def has_session(self, cookies: dict[str, str]) -> bool:
        return self.sessions.live(cookies.get(SESSION_COOKIE))

    def signed_in(self, client: str) -> bool:
        return self.sessions.from_client(client)

    def open_session(self, client: str, seconds: float = SESSION_DAYS * 86400) -> str:
        self._misses.pop(client, None)
        return self.sessions.open(client, seconds)


class HomePage(PageServer):
    """The family's page on the home network."""

    def __init__(self, control: Path, listen: str = "127.0.0.1", port: int = 8081, names: tuple[str, ...] = (),
                 tls: ssl.SSLContext | None = None, clock: Callable[[], float] = time.monotonic,
                 sessions: Sessions | None = None, session_days: float = SESSION_DAYS, **limits: Any) -> None:
        """``sessions``: the paired phones (by default kept in memory only, as a test's page does);
        ``session_days``: how long a phone stays paired."""
        super().__init__(PairedGuard(sessions if sessions is not None else Sessions(None), names, clock), listen, port,
                         tls, **limits)
        self.control, self.session_seconds = control, session_days * 86400
        self.uploads: dict[str, list[str]] = {}  # session -> the parts of a backup being restored
        self._asked: OrderedDict[str, float] = OrderedDict()  # address -> when it last asked the box for a code

    # -- sessions --------------------------------------------------------------------------------
    def session_of(self, cookies: dict[str, str]) -> str | None:
        """The phone's live session (the Guard keeps when each ends), or None."""
        session = cookies.get(SESSION_COOKIE)
        return session if session is not None and self.guard.has_session(cookies) else None

    def _opened(self, client: str) -> str:
        """A new session for a phone whose code the box accepted (the Guard forgets its wrong tries)."""
        return self.guard.open_session(client, self.session_seconds)

    def _missed(self, client: str) -> None:
        """A wrong code: the Guard makes this address wait longer before its next one is even passed on."""
        self.guard.missed(client)

    # -- routes ----------------------------------------------------------------------------------
    async def _route(self, method: str, path: str, headers: dict[str, str], body: bytes,
                     writer: asyncio.StreamWriter, client: str) -> None:
        if await self._refused(method, headers, writer):
            return
        session = self.session_of(cookies_of(headers.get("cookie", "")))
        try:
            if method == "GET" and path == "/":
                await reply(writer, 200, "text/html; charset=utf-8", self._page(),
                            extra="Content-Security-Policy: default-src 'self'; style-src 'unsafe-inline'; "
                                   "script-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'\r\n")
            elif method == "POST" and path == "/pair/begin":
                await self._pair_begin(client, writer)
            elif method == "POST" and path == "/pair":
                await self._pair(client, body, writer)
            elif method == "GET" and path == "/api/session":
                await send_json(writer, 200, {"paired": session is not None})
            elif session is None:
                await send_json(writer, 403, {"error": "pair this phone first", "paired": False})
            elif method == "GET" and path in READS:
                await self._pass_on(writer, READS[path], {})
            elif method == "GET" and path.startswith("/api/cards/"):
                await self._cards(writer, path.removeprefix("/api/cards/"))
            elif method == "POST" and path in WRITES:
                op, fields = WRITES[path]
                request = _object(body)
                await self._pass_on(writer, op, {k: request[k] for k in fields if k in request})
            elif method == "POST" and path == "/api/forget":
                await self._forget(session, _object(body), writer)
            elif method == "GET" and path == "/backup":
                await self._backup(writer)
            elif method == "POST" and path == "/restore":
                await self._restore(session, _object(body), writer)
            else:
                await reply(writer, 404, "text/plain", b"not found")
        except ValueError as exc:
            await send_json(writer, 400, {"error": str(exc)})
        except BoxAway as exc:
            await send_json(writer, 409, {"error": str(exc), "away": True})

    def _page(self) -> bytes:
        settings = json.dumps({"token": self.guard.token, "words": page_words(), "part": RESTORE_PART})
        return PAGE.read_bytes().replace(b"{{SETTINGS}}", html.escape(settings).encode())

    async def _pass_on(self, writer: asyncio.StreamWriter, op: str, args: dict[str, Any]) -> None:
        answer = await ask(self.control, op, **args)
        await send_json(writer, 200 if answer.pop("ok", False) else 409, answer)

    async def _pair_begin(self, client: str, writer: asyncio.StreamWriter) -> None:
        """Ask the box to arm its die for a code: once per :data:`PAIR_ASK_EVERY` from one address (asking again
        while the box is still armed is told how long it stays so: the ask that armed it holds)."""
        now = self.guard.clock()
        wait = self._asked.get(client, -math.inf) + PAIR_ASK_EVERY - now
        if wait > 0 and (armed := await ask(self.control, "pair.state")).get("armed_for"):
            await send_json(writer, 200, {"armed_for": armed["armed_for"]})
            return
        if wait > 0:
            await send_json(writer, 429, {"error": f"wait {math.ceil(wait)} s before asking again", "key": "pair_wait",
                                          "wait": math.ceil(wait)})
            return
        self._asked.pop(client, None)
        self._asked[client] = now
        if len(self._asked) > MAX_CLIENTS:
            self._asked.popitem(last=False)
        await self._pass_on(writer, "pair.begin", {})

    async def _pair(self, client: str, body: bytes, writer: asyncio.StreamWriter) -> None:
        wait = self.guard.wait_left(client)
        if wait > 0:
            await send_json(writer, 429, {"error": f"wait {math.ceil(wait)} s before the next try"})
            return
        code = _object(body).get("code")
        if not isinstance(code, str) or not code.strip().isdigit() or len(code.strip()) > 12:
            self._missed(client)
            await send_json(writer, 400, {"error": "the code is the digits the box said"})
            return
        answer = await ask(self.control, "pair.check", code=code.strip())
        if not answer.get("ok"):
            self._missed(client)
            await send_json(writer, 403, {"error": answer.get("error", "wrong code"), "tries_left": answer.get("tries_left")})
            return
        log.info("a phone at %s was paired", client)
        cookie = (f"Set-Cookie: {SESSION_COOKIE}={self._opened(client)}; HttpOnly; SameSite=Strict; Path=/; "
                  f"Max-Age={int(self.session_seconds)}{'; Secure' if self.tls else ''}\r\n")
        await send_json(writer, 200, {"ok": True}, extra=cookie)

    async def _forget(self, session: str, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        """"Forget this phone" (its session ends) or, with ``all``, every paired phone: each must pair again."""
        everyone = request.get("all") is True
        forgotten = self.guard.sessions.forget(None if everyone else session)
        log.info("%s forgotten: %d paired phone(s)", "every phone" if everyone else "a phone", forgotten)
        await send_json(writer, 200, {"forgotten": forgotten},
                        extra=f"Set-Cookie: {SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0\r\n")

    async def _cards(self, writer: asyncio.StreamWriter, deck: str) -> None:
        """The deck's cards as the project draws them (colour, mark, word), each marked enrolled or not."""
        answer = await ask(self.control, "cards", deck=deck)
        if not answer.pop("ok", False):
            await send_json(writer, 409, answer)
            return
        for card in answer["cards"]:
            look = card_look(card["card"])
            card["look"] = {"fill": look.fill, "ink": look.ink, "big": look.big, "small": look.small,
                            "stripes": look.stripes}
        await send_json(writer, 200, answer)

    async def _backup(self, writer: asyncio.StreamWriter) -> None:
        answer = await ask(self.control, "backup")
        if not answer.get("ok"):
            await send_json(writer, 409, answer)
            return
        name = time.strftime("gamebox-backup-%Y%m%d-%H%M.zip")
        await reply(writer, 200, "application/zip", base64.b64decode(answer["data"]),
                    extra=f"Content-Disposition: attachment; filename={name}\r\n")

    async def _restore(self, session: str, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        """A backup comes in parts (``first``, ``part``, ``last``); the last one passes the whole to the daemon."""
        part = request.get("part")
        if not isinstance(part, str) or len(part) > RESTORE_PART:
            raise ValueError(f"a part is a base64 string of at most {RESTORE_PART} characters")
        parts = self.uploads.setdefault(session, [])
        if request.get("first"):
            parts.clear()
        parts.append(part)
        if sum(map(len, parts)) > MAX_BACKUP * 4 // 3 + 4:
            self.uploads.pop(session, None)
            raise ValueError(f"a backup is at most {MAX_BACKUP // 1024 // 1024} MB")
        if not request.get("last"):
            await send_json(writer, 200, {"received": sum(map(len, parts))})
            return
        data = "".join(self.uploads.pop(session))
        await self._pass_on(writer, "restore", {"data": data})


def _object(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(value, dict):
        raise ValueError("a JSON object is expected")
    return value


async def serve(page: HomePage, out: Any = print) -> None:
    await page.start()
    scheme = "https" if page.tls else "http"
    where = page.listen if not page.listen.startswith("0") else "THIS-BOX"
    out(f"the family's page: {scheme}://{where}:{page.port}/", flush=True)
    await asyncio.Event().wait()


def run_home(control: Path, listen: str, port: int, names: tuple[str, ...] = (),
             tls: ssl.SSLContext | None = None, sessions: Path | None = None, session_days: float = SESSION_DAYS) -> int:
    """The ``gamebox home`` command (``sessions``: the file the paired phones are kept in)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if not is_loopback(listen) and tls is None:
        log.info("the page is served without TLS on %s: the session cookie crosses the home network in clear", listen)
    try:
        asyncio.run(serve(HomePage(control, listen, port, names, tls, sessions=Sessions(sessions), session_days=session_days)))
    except KeyboardInterrupt:
        pass
    return 0
