"""The teacher's page on a classroom network: the attacks of issue 20 on its HTTP side.

Cross-site requests (a ``no-cors`` fetch, a text/plain form) and a foreign
``Host`` (DNS rebinding) are refused; the PIN comes from the environment or a
file, is long enough, and is guessed at most a few times a minute; a slow
request or a flood of connections cannot take the page down.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.config import NetworkConfig
from controller.station.classroom import STREAM_BACKLOG, TeacherPage
from controller.station.webserver import https
from controller.station.pageguard import LOCK_AFTER, LOCK_SECONDS, Guard
from tests.station.brokers import GAMEBOX, Broker, PageClient, Station, TeacherPageProcess, Watcher, wait_until
from tests.station.test_broker_locks import certificates
from tests.station.test_classroom import CHROMIUM, FLAGS

PIN = "correct horse"


def commands_seen(watcher: Watcher) -> list[str]:
    return [topic for topic, _, _ in watcher.messages if "/set/" in topic]


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_another_site_cannot_press_the_buttons(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    from playwright.sync_api import sync_playwright

    red = Station(tmp_path / "red", broker, "red")
    page_server = TeacherPageProcess(tmp_path, broker)  # on localhost, without a PIN: as in issue 20
    evil = f"""<form id="f" method="POST" action="{page_server.url}command" enctype="text/plain">
      <input name='{{"station": "all", "command": "language", "value": "nl", "x": "' value='"}}'></form>
      <script>
        fetch("{page_server.url}command", {{method: "POST", mode: "no-cors", body: JSON.stringify(
          {{station: "all", command: "volume", value: 1}})}}).finally(() => document.getElementById("f").submit());
      </script>"""
    try:
        watcher.wait_for("gamebox/red/online", lambda m: m["online"])
        wait_until(lambda: page_server.command("red", "volume", 0.5)[0] == 200, what="the page to see red")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            page.route("http://evil.example/", lambda route: route.fulfill(body=evil, content_type="text/html"))
            with page.expect_navigation(url=f"{page_server.url}command"):  # the form went: the fetch went before it
                page.goto("http://evil.example/")
            assert "only the page itself" in page.content()
            browser.close()
        assert page_server.command("red", "volume", 0.4)[0] == 200  # the page itself can, after the attack
        wait_until(lambda: len(commands_seen(watcher)) == 2, what="the page's own commands")
        assert [json.loads(p)["value"] for t, p, _ in watcher.messages if "/set/" in t] == [0.5, 0.4]
    finally:
        page_server.stop()
        red.stop()


def test_foreign_host_origin_or_missing_token_is_refused(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    page_server = TeacherPageProcess(tmp_path, broker)
    try:
        rebound = PageClient(page_server.url)
        assert rebound.get("", {"Host": "evil.example:8080"})[0] == 421  # DNS rebinding: the name is not ours
        assert rebound.get("stream", {"Host": "evil.example"})[0] == 421
        body = {"station": "all", "command": "volume", "value": 1}
        assert PageClient(page_server.url, origin="http://evil.example").post("command", body)[0] == 403
        assert PageClient(page_server.url).post("command", body, {"X-Token": "guessed"})[0] == 403
        assert PageClient(page_server.url).post("command", body, {"Origin": "null"})[0] == 403
        assert page_server.command("nobody", "volume", 0.3) == (404, {"error": "no such station"})
        assert not commands_seen(watcher)
    finally:
        page_server.stop()


def test_the_pin_opens_the_page_and_never_shows_on_the_command_line(tmp_path: Path, broker: Broker) -> None:
    page_server = TeacherPageProcess(tmp_path, broker, "--listen", "127.0.0.1", pin=PIN)
    try:
        assert PIN not in Path(f"/proc/{page_server.proc.pid}/cmdline").read_bytes().decode()
        stranger = PageClient(page_server.url)
        assert stranger.get("stream")[0] == 403 and stranger.get("stats.csv")[0] == 403
        assert stranger.post("command", {"station": "all", "command": "volume", "value": 1})[0] == 403
        assert stranger.post("login", {"pin": "wrong one"}) == (403, {"error": "wrong PIN"})
        status, answer = stranger.post("login", {"pin": PIN})  # at once again: it must wait first
        assert status == 429 and "wait" in answer["error"]

        teacher = page_server.browser
        wait_until(lambda: teacher.post("login", {"pin": PIN}) == (200, {"ok": True}), what="the back-off to pass")
        assert teacher.get("stats.csv")[0] == 200
    finally:
        page_server.stop()
    log = page_server.log.read_text()
    assert PIN not in log and "wrong" not in log  # one wrong PIN is not a log line


@pytest.mark.parametrize("how, message", [
    ({"argv": ["--pin", PIN]}, "--pin is gone"),
    ({"env": "1234"}, "at least 8 characters"),
    ({"env": ""}, "at least 8 characters"),
    ({"file": "   \n"}, "at least 8 characters"),
])
def test_a_pin_on_the_command_line_short_or_empty_is_refused_at_start(tmp_path: Path, how: dict, message: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    env.pop("GAMEBOX_PIN", None)
    argv = [*GAMEBOX, "classroom", "--http-port", "0", *how.get("argv", [])]
    if "env" in how:
        env["GAMEBOX_PIN"] = how["env"]
    if "file" in how:
        (tmp_path / "pin").write_text(how["file"])
        argv += ["--pin-file", str(tmp_path / "pin")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and message in done.stderr


def test_ten_wrong_pins_lock_a_client_out_for_a_minute_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    guard = Guard(PIN, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="gamebox.classroom"):
        for _ in range(LOCK_AFTER):
            now[0] += guard.wait_left("10.0.0.9")  # each wrong PIN makes the next wait longer
            assert guard.login("10.0.0.9", "00000000") is None
    assert guard.wait_left("10.0.0.9") == LOCK_SECONDS  # locked: even the right PIN is not looked at now
    assert guard.login("10.0.0.9", PIN) is None
    assert guard.wait_left("10.0.0.7") == 0.0 and guard.login("10.0.0.7", PIN)  # another client is not
    assert len([r for r in caplog.records if "locked out" in r.message]) == 1
    now[0] += LOCK_SECONDS
    assert guard.login("10.0.0.9", PIN) is not None


async def answer(reader: asyncio.StreamReader) -> bytes:
    """Whatever the server says before it closes (nothing, when it hangs up at once)."""
    try:
        return await asyncio.wait_for(reader.read(), 5)
    except ConnectionResetError:
        return b""


def test_slow_requests_and_a_flood_of_connections_cannot_take_the_page(broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        page = TeacherPage(NetworkConfig(broker=broker.host, port=broker.port), port=0, max_connections=5, request_seconds=2.0)
        await page.start()
        try:
            slow = []
            for _ in range(5):  # a body that never comes
                reader, writer = await asyncio.open_connection("127.0.0.1", page.port)
                writer.write(b"POST /command HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
                slow.append((reader, writer))
            turned_away = []
            for _ in range(20):
                reader, writer = await asyncio.open_connection("127.0.0.1", page.port)
                writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                turned_away.append(await answer(reader))
                writer.close()
            assert turned_away == [b""] * 20
            for reader, writer in slow:  # the body's time runs out: each is closed
                assert await answer(reader) == b""
                writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", page.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert (await answer(reader)).startswith(b"HTTP/1.1 200")
            writer.close()
        finally:
            await page.stop()

    with caplog.at_level(logging.WARNING, logger="gamebox.classroom"):
        asyncio.run(main())
    assert len([r for r in caplog.records if "connections open" in r.message]) == 1


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make the test's certificates")
def test_stalled_tls_handshakes_count_against_the_limit_and_are_let_go_after_the_timeout(
        tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    certs = certificates(tmp_path / "certs")

    async def teacher_gets_the_page(port: int) -> bytes:
        context = ssl.create_default_context(cafile=str(certs["ca_crt"]))
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
        except ConnectionError:  # turned away before the handshake
            return b""
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try:
            return await answer(reader)
        finally:
            writer.close()

    async def main() -> None:
        page = TeacherPage(NetworkConfig(broker=broker.host, port=broker.port), port=0, max_connections=5, request_seconds=3.0,
                           tls=https(certs["broker_crt"], certs["broker_key"]))
        await page.start()
        try:
            stalled = [await asyncio.open_connection("127.0.0.1", page.port) for _ in range(12)]  # TCP, never a hello
            beyond = [await answer(reader) for reader, _ in stalled[5:]]
            assert beyond == [b""] * 7  # past the limit: closed at once, not after the handshake's timeout
            assert not any(reader.at_eof() for reader, _ in stalled[:5])  # the first five still wait for their hello
            assert await teacher_gets_the_page(page.port) == b""  # the page is full, and says so in its log
            assert [await answer(reader) for reader, _ in stalled[:5]] == [b""] * 5  # let go after request_seconds
            for _, writer in stalled:
                writer.close()
            assert (await teacher_gets_the_page(page.port)).startswith(b"HTTP/1.1 200")
        finally:
            await page.stop()

    with caplog.at_level(logging.WARNING, logger="gamebox.classroom"):
        asyncio.run(main())
    assert len([r for r in caplog.records if "connections open" in r.message]) == 1


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make the test's certificates")
def test_the_page_over_https_keeps_its_pin_and_cookie_off_the_wire(tmp_path: Path, broker: Broker) -> None:
    certs = certificates(tmp_path / "certs")  # the broker's certificate names 127.0.0.1: the page uses it here
    page_server = TeacherPageProcess(tmp_path, broker, "--cert", str(certs["broker_crt"]), "--key", str(certs["broker_key"]),
                                     pin=PIN, ca=certs["ca_crt"])
    try:
        assert page_server.url.startswith("https://")
        assert PageClient(page_server.url.replace("https", "http")).get("")[0] == 0  # plain HTTP gets nothing
        teacher = page_server.browser
        assert teacher.get("stats.csv")[0] == 403
        assert teacher.post("login", {"pin": PIN}) == (200, {"ok": True})
        assert teacher.get("stats.csv")[0] == 200
        cookie = next(iter(teacher.cookies))
        assert cookie.secure and cookie.name == "gamebox_session"
    finally:
        page_server.stop()


ESTABLISHED = 1  # tcpi_state of Linux's TCP_INFO


def tcp_state(sock: socket.socket) -> int:
    """The client side's TCP state: ESTABLISHED while the page holds its end open."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def stream_client(port: int) -> socket.socket:
    """A browser's /stream request on a socket with a small receive buffer."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    sock.setblocking(False)
    return sock


async def until(predicate: Any, what: str, seconds: float = 10.0) -> None:
    """Let the page's loop run until ``predicate`` holds; fail after ``seconds`` (a bound, not a wait)."""
    end = asyncio.get_running_loop().time() + seconds
    while not predicate():
        assert asyncio.get_running_loop().time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def a_big_station(page: TeacherPage) -> None:
    """A station whose every update is about 2 KB: devices with long faults (all within the page's checks)."""
    faults = {f"device-{i}": "f" * 120 for i in range(5)}
    page.room.take("gamebox/red/health", json.dumps({"station": "red", "at": 1.0, "devices": {
        name: {"driver": "d" * 64, "fault": fault} for name, fault in faults.items()}, "faults": faults, "every": 3600}).encode())


def test_a_browser_that_stops_reading_its_stream_is_dropped_after_the_stall_timeout(broker: Broker) -> None:
    async def main() -> None:
        page = TeacherPage(NetworkConfig(broker=broker.host, port=broker.port), port=0, stalled_seconds=1.0)
        await page.start()
        try:
            a_big_station(page)
            sock = stream_client(page.port)  # and it never reads
            await until(lambda: page.room.listeners, "the stream to open")
            end = asyncio.get_running_loop().time() + 10  # a bound on the loop's time, not a count: fast machines push more
            while page.room.listeners:  # the kernel's buffers fill, then the page's; never a backlog of 1,000
                assert asyncio.get_running_loop().time() < end, "the page never noticed the browser stopped reading"
                for _ in range(200):
                    page.room.push("red")
                await asyncio.sleep(0.005)
            assert not page.room.overflowed  # it went for not reading, not for a full backlog
            await until(lambda: tcp_state(sock) != ESTABLISHED, "the page to let the socket go")
            sock.close()
            assert page._connections == 0
        finally:
            await page.stop()

    asyncio.run(main())


def test_a_stream_that_cannot_keep_up_is_closed_at_once_and_a_new_one_gets_everything(broker: Broker) -> None:
    async def main() -> None:
        page = TeacherPage(NetworkConfig(broker=broker.host, port=broker.port), port=0)  # the stall timeout: 30 s
        await page.start()
        try:
            a_big_station(page)
            sock = stream_client(page.port)
            await until(lambda: page.room.listeners, "the stream to open")
            for _ in range(STREAM_BACKLOG + 1):  # more updates at once than a stream may hold back
                page.room.push("red")
            await until(lambda: tcp_state(sock) != ESTABLISHED, "the page to close the stream", seconds=5)
            sock.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", page.port)  # the browser reconnects
            writer.write(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            room = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
            first = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
            assert head.startswith(b"HTTP/1.1 200") and room.startswith(b"event: room")
            assert b'"device-4"' in first and first.startswith(b"data: ")  # the station, whole, at once
            writer.close()
        finally:
            await page.stop()

    asyncio.run(main())
