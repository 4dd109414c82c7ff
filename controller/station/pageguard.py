"""Who may use the teacher's page: the page's own origin, its token, the PIN, and how often a client may guess it.

On a classroom network every device is a possible attacker, and so is any web
page a tablet opens (it can make the tablet's browser send requests). So:

* every request must name this page as its ``Host`` (DNS rebinding), and every
  POST must come from the page's own ``Origin`` and carry the token that only
  the page's own GET hands out (cross-site requests cannot read it);
* with a PIN, the PIN opens a session (an HttpOnly, SameSite=Strict cookie)
  that commands, the live stream and the CSV all need;
* each client gets a growing back-off after a wrong PIN, and is locked out
  for a minute after ``LOCK_AFTER`` of them, which is logged once;
* and all clients together may give ``GUESS_BURST`` wrong PINs, then one per
  ``GUESS_EVERY`` seconds: a pupil with a whole /64 (or 127/8 on the laptop
  itself) is as slow as one address. Sessions opened before go on; each
  lasts ``SESSION_SECONDS``.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
import socket
import time
from collections import OrderedDict
from typing import Callable

log = logging.getLogger("gamebox.classroom")

MIN_PIN = 8
LOCK_AFTER = 10  # wrong PINs in a row
LOCK_SECONDS = 60.0
BACKOFF_MOST = 5.0  # seconds a client waits after a wrong PIN, at most
MAX_CLIENTS = 1000  # clients remembered for the back-off
MAX_SESSIONS = 100
SESSION_SECONDS = 12 * 3600.0  # a school day; then the PIN again
GUESS_BURST = 20  # wrong PINs from all clients together before the page-wide limit starts
GUESS_EVERY = 60.0  # seconds per wrong PIN past it: about 40,000 in four weeks, 4 % of a 6-digit PIN's million
SESSION_COOKIE = "gamebox_session"


class PinError(ValueError):
    """A PIN the page will not start with; the message says why."""


def check_pin(pin: str | None) -> str | None:
    if pin is None:
        return None
    pin = pin.strip()
    if len(pin) < MIN_PIN:
        raise PinError(f"the PIN must have at least {MIN_PIN} characters (a passphrase is best), not {len(pin)}")
    return pin


def made_up_pin() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(10))


def client_of(address: str) -> str:
    """Who a connection is for the limits: its IPv4 address, or its IPv6 /64 (one device can take a whole /64)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ip.ipv4_mapped) if ip.ipv4_mapped else str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _host_name(value: str) -> str:
    """``name:port``, ``[::1]:port`` or ``name`` as the bare name, lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


class Guard:
    """The page's locks; one per ``gamebox classroom``. ``clock`` is injectable for the back-off."""

    def __init__(self, pin: str | None, names: tuple[str, ...] = (), clock: Callable[[], float] = time.monotonic) -> None:
        self.pin, self.clock = pin, clock
        self.token = secrets.token_urlsafe(24)
        host = socket.gethostname().lower()
        self.names = {"localhost", host, f"{host}.local", *(n.lower() for n in names)}
        self._sessions: OrderedDict[str, tuple[str, float]] = OrderedDict()  # session -> (client it came from, ends at)
        self._misses: OrderedDict[str, tuple[int, float]] = OrderedDict()  # client -> (wrong PINs, may try again at)
        self._guesses = float(GUESS_BURST)  # wrong PINs all clients may still give now (refilled over time)
        self._guessed_at = clock()
        self._limit_told = False

    def host_ok(self, host: str | None) -> bool:
        """A Host an address (rebinding needs a name) or one of this computer's own names."""
        if not host:
            return False
        name = _host_name(host)
        return _is_address(name) or name in self.names

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """The POST comes from a page of this very host and port."""
        return bool(origin and host) and origin.lower() in (f"http://{host.lower()}", f"https://{host.lower()}")

    def token_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(token.encode(), self.token.encode())

    def has_session(self, cookies: dict[str, str]) -> bool:
        if self.pin is None:
            return True
        _, ends = self._sessions.get(cookies.get(SESSION_COOKIE, ""), ("", 0.0))
        return self.clock() < ends

    def signed_in(self, client: str) -> bool:
        """A live session was opened from this client (the page keeps room for it when it is full)."""
        now = self.clock()
        return any(who == client and now < ends for who, ends in self._sessions.values())

    def wait_left(self, client: str) -> float:
        """Seconds this client must wait before its next PIN is even looked at: its own wait, or everyone's."""
        _, until = self._misses.get(client, (0, 0.0))
        return max(0.0, until - self.clock(), self._page_wait())

    def _page_wait(self) -> float:
        """Seconds until all clients together may give one more wrong PIN."""
        now = self.clock()
        self._guesses = min(float(GUESS_BURST), self._guesses + (now - self._guessed_at) / GUESS_EVERY)
        self._guessed_at = now
        if self._guesses >= 1:
            self._limit_told = False
            return 0.0
        return (1 - self._guesses) * GUESS_EVERY

    def login(self, client: str, pin: str) -> str | None:
        """A new session for the right PIN; None (and a longer wait for ``client``) for a wrong one, and None without
        looking at it while ``client`` must wait (callers say so first, with :meth:`wait_left`)."""
        assert self.pin is not None
        if self.wait_left(client) > 0:
            return None
        if hmac.compare_digest(pin.encode(), self.pin.encode()):
            return self.open_session(client)
        self.missed(client)
        return None

    def open_session(self, client: str, seconds: float = SESSION_SECONDS) -> str:
        """A new session for ``client``, whose secret was checked elsewhere (the family's page: by the box)."""
        self._misses.pop(client, None)
        session = secrets.token_urlsafe(24)
        self._sessions[session] = (client, self.clock() + seconds)
        if len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return session

    def missed(self, client: str) -> None:
        """A wrong secret from ``client``: its own wait grows, and it counts against everyone's."""
        self._page_wait()
        self._guesses -= 1
        if self._guesses < 1 and not self._limit_told:
            log.warning("%d wrong PINs in a short time: the page now looks at one every %d s, from anyone",
                        GUESS_BURST, GUESS_EVERY)
            self._limit_told = True
        misses = self._misses.pop(client, (0, 0.0))[0] + 1
        if misses >= LOCK_AFTER:
            log.warning("client %s gave %d wrong PINs: locked out for %d s", client, misses, LOCK_SECONDS)
            self._misses[client] = (0, self.clock() + LOCK_SECONDS)
        else:
            self._misses[client] = (misses, self.clock() + min(BACKOFF_MOST, 0.25 * 2 ** (misses - 1)))
        if len(self._misses) > MAX_CLIENTS:
            self._misses.popitem(last=False)
