"""One client cannot lock the teacher out of the page (issue 31, item 3).

Before, 64 sockets from one address (idle, a head or a body that never ends,
TLS handshakes that never start, or 64 held event streams) filled every slot
of the page. Now each address has a few, a signed-in session keeps room of its
own, and a session (or, without a PIN, an address) holds one stream at a time.
The page runs in the test's loop, logged in to a real Mosquitto set up by
``broker-config``; the attackers connect from other loopback addresses.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.config import NetworkConfig
from controller.station.classroom import TeacherPage
from controller.station.webserver import MAX_CONNECTIONS, PER_ADDRESS, https
from controller.station.pageguard import GUESS_BURST, SESSION_COOKIE, SESSION_SECONDS, Guard
from tests.station.brokers import SecuredBroker, TeacherPageProcess
from tests.station.test_broker_locks import certificates
from tests.station.test_classroom import CHROMIUM, FLAGS

PIN = "correct horse"
TEACHER = "127.0.0.1"
PUPIL = "127.0.0.2"
HELD = MAX_CONNECTIONS  # what filled the page before: as many sockets as it had slots


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[SecuredBroker]:
    broker = SecuredBroker(tmp_path / "broker", ["red"])
    broker.start()
    yield broker
    broker.stop()


def teacher_settings(broker: SecuredBroker) -> NetworkConfig:
    table = broker.accounts["teacher"]
    return NetworkConfig(broker=table["broker"], port=table["port"], username=table["username"], password=table["password"])


class Client:
    """HTTP/1.1 requests from one source address, TLS when a context is given; each on a connection of its own."""

    def __init__(self, page: TeacherPage, address: str, tls: ssl.SSLContext | None = None) -> None:
        self.page, self.address, self.tls, self.cookie = page, address, tls, ""

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.page.port, local_addr=(self.address, 0), ssl=self.tls,
                                             server_hostname="127.0.0.1" if self.tls else None)

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
        """(status, head and body); status 0 when the page hung up without an answer."""
        data = json.dumps(body).encode() if body is not None else b""
        headers = f"Host: 127.0.0.1:{self.page.port}\r\nContent-Length: {len(data)}\r\n"
        if method == "POST":
            scheme = "https" if self.tls else "http"
            headers += f"Origin: {scheme}://127.0.0.1:{self.page.port}\r\nX-Token: {self.page.guard.token}\r\n"
        if self.cookie:
            headers += f"Cookie: {SESSION_COOKIE}={self.cookie}\r\n"
        try:
            reader, writer = await self.open()
        except (ConnectionError, ssl.SSLError):
            return 0, b""
        try:
            writer.write(f"{method} {path} HTTP/1.1\r\n{headers}\r\n".encode() + data)
            answer = await asyncio.wait_for(reader.read(), 5)
        except (ConnectionError, ssl.SSLError):
            return 0, b""
        finally:
            writer.close()
        return (int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0), answer

    async def sign_in(self) -> None:
        status, answer = await self.request("POST", "/login", {"pin": PIN})
        assert status == 200, answer
        self.cookie = answer.split(f"{SESSION_COOKIE}=".encode())[1].split(b";")[0].decode()


async def hold(page: TeacherPage, address: str, how: str, count: int) -> list[asyncio.StreamWriter]:
    """``count`` connections from ``address`` that never finish: idle, a head that never ends, or a body that never comes."""
    sent = {"idle": b"", "head": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            "body": b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"}[how]
    held = []
    for _ in range(count):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", page.port, local_addr=(address, 0))
        except ConnectionError:
            continue
        writer.write(sent)
        held.append(writer)
    # one more from that address, turned away: the page has taken every one before it (it accepts in order)
    assert (await Client(page, address).request("GET", "/"))[0] == 0
    return held


def close(writers: list[asyncio.StreamWriter]) -> None:
    for writer in writers:
        writer.close()


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_one_address_holding_many_sockets_leaves_the_page_to_the_teacher(tmp_path: Path, secured: SecuredBroker,
                                                                         scheme: str) -> None:
    tls_server = tls_client = None
    if scheme == "https":
        if shutil.which("openssl") is None:
            pytest.skip("no openssl to make the test's certificates")
        certs = certificates(tmp_path / "certs")
        tls_server = https(certs["broker_crt"], certs["broker_key"])
        tls_client = ssl.create_default_context(cafile=str(certs["ca_crt"]))

    async def main() -> None:
        page = TeacherPage(teacher_settings(secured), port=0, pin=PIN, tls=tls_server, request_seconds=60.0)
        await page.start()
        held: list[asyncio.StreamWriter] = []
        try:
            teacher = Client(page, TEACHER, tls_client)
            await teacher.sign_in()
            for how in ("idle", "head", "body"):  # sockets that would each hold a slot for 60 s; past PER_ADDRESS closed at once
                held += await hold(page, PUPIL, how, HELD)
            for _ in range(10):
                assert (await teacher.request("GET", "/"))[0] == 200
                assert (await teacher.request("GET", "/stats.csv"))[0] == 200
            assert (await Client(page, "127.0.0.3", tls_client).request("GET", "/"))[0] == 200  # and anyone else
            burst = await asyncio.gather(*(Client(page, PUPIL, tls_client).request("GET", "/") for _ in range(300)))
            assert all(status == 0 for status, _ in burst)
            assert (await teacher.request("GET", "/stats.csv"))[0] == 200
        finally:
            close(held)
            await page.stop()

    asyncio.run(main())


def test_many_addresses_leave_room_for_the_signed_in_teacher(secured: SecuredBroker) -> None:
    async def main() -> None:
        page = TeacherPage(teacher_settings(secured), port=0, pin=PIN, request_seconds=60.0)
        await page.start()
        held: list[asyncio.StreamWriter] = []
        try:
            teacher = Client(page, TEACHER)
            await teacher.sign_in()
            for i in range(2 * MAX_CONNECTIONS // PER_ADDRESS):  # twice as many as fill the page
                held += await hold(page, f"127.0.1.{i + 1}", "idle", PER_ADDRESS)
            assert page._connections < MAX_CONNECTIONS  # the rest of the room is kept for signed-in sessions
            for _ in range(10):
                assert (await teacher.request("GET", "/stats.csv"))[0] == 200
        finally:
            close(held)
            await page.stop()

    asyncio.run(main())


def test_held_event_streams_cost_one_slot_per_address_without_a_pin(secured: SecuredBroker) -> None:
    async def main() -> None:
        page = TeacherPage(teacher_settings(secured), port=0)  # on localhost: no PIN
        await page.start()
        streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        try:
            for _ in range(HELD):
                reader, writer = await asyncio.open_connection("127.0.0.1", page.port, local_addr=(PUPIL, 0))
                writer.write(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                streams.append((reader, writer))
            for _ in range(10):
                assert (await Client(page, TEACHER).request("GET", "/"))[0] == 200

            async def ended(reader: asyncio.StreamReader) -> bool:
                try:
                    text = await asyncio.wait_for(reader.read(), 2)
                except asyncio.TimeoutError:
                    return False  # still live
                assert not text or b"event: replaced" in text  # turned away, or told it was replaced, then closed
                return True

            assert sum(not done for done in await asyncio.gather(*(ended(r) for r, _ in streams))) == 1
            assert len(page.room.listeners) == 1
        finally:
            close([w for _, w in streams])
            await page.stop()

    asyncio.run(main())


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_a_second_window_takes_the_stream_and_the_first_says_so(tmp_path: Path, secured: SecuredBroker) -> None:
    from playwright.sync_api import expect, sync_playwright

    page_server = TeacherPageProcess(tmp_path, secured, "--config", str(secured.folder / "teacher.toml"))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            first = browser.new_page()
            first.goto(page_server.url)
            expect(first.locator("#note")).to_have_text("live", timeout=10_000)
            second = browser.new_page()
            second.goto(page_server.url)
            expect(second.locator("#note")).to_have_text("live", timeout=10_000)
            expect(first.locator("#note")).to_have_text("this page is open in another window or tab: reload to watch here",
                                                        timeout=10_000)
            first.reload()  # and it takes the stream back
            expect(first.locator("#note")).to_have_text("live", timeout=10_000)
            expect(second.locator("#note")).to_contain_text("open in another window", timeout=10_000)
            browser.close()
    finally:
        page_server.stop()


def test_pin_guesses_from_a_hundred_addresses_are_counted_together(secured: SecuredBroker) -> None:
    async def main() -> None:
        page = TeacherPage(teacher_settings(secured), port=0, pin=PIN)
        await page.start()
        try:
            teacher = Client(page, TEACHER)
            await teacher.sign_in()  # at the start of the lesson
            pupils = [Client(page, f"127.0.2.{i + 1}") for i in range(100)]
            answers = []
            for _ in range(3):  # every address as fast as the page answers: 300 guesses
                answers += await asyncio.gather(*(p.request("POST", "/login", {"pin": "00000000"}) for p in pupils))
            checked = sum(status == 403 for status, _ in answers)  # a wrong PIN was looked at; 429: not even that
            assert checked <= GUESS_BURST and all(status in (0, 403, 429) for status, _ in answers)  # 0: turned away at the door
            assert (await teacher.request("GET", "/stats.csv"))[0] == 200  # the signed-in teacher goes on
        finally:
            await page.stop()

    asyncio.run(main())


def test_a_six_digit_pin_holds_for_weeks_against_a_whole_address_range() -> None:
    now = [0.0]
    guard = Guard(PIN, clock=lambda: now[0])
    checked, week = 0, 7 * 24 * 3600.0
    while now[0] < 4 * week and checked < 50_000:  # a new address for every guess (a /64, or 127/8), each waiting only as long as it must
        client = f"10.{checked // 65536 % 256}.{checked // 256 % 256}.{checked % 256}"
        now[0] += guard.wait_left(client)
        guard.login(client, f"{checked:06d}")
        checked += 1
    assert checked / 10**6 < 0.05  # under a 5 % chance to find a 6-digit PIN in four weeks


def test_a_session_expires() -> None:
    now = [0.0]
    guard = Guard(PIN, clock=lambda: now[0])
    session = guard.login(TEACHER, PIN)
    now[0] += SESSION_SECONDS - 1
    assert guard.has_session({SESSION_COOKIE: session}) and guard.signed_in(TEACHER)
    now[0] += 1
    assert not guard.has_session({SESSION_COOKIE: session}) and not guard.signed_in(TEACHER)
