"""The family's page on a home network: the teacher's page's attacks (tests/station/test_page_http.py), repeated here.

A real box (``gamebox run --profile sim``) and a real ``gamebox home``
process, talking over the box's control socket; the attacker is an HTTP
client, a raw socket or, for the cross-site attack, Chromium.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import shutil
import stat
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from controller.control.pairing import TRIES
from controller.home import page as home
from controller.home.page import HomePage
from controller.home.sessions import Sessions
from controller.station import webserver
from controller.station.pageguard import SESSION_COOKIE
from tests.home.processes import BoxProcess, HomeProcess
from tests.station.brokers import GAMEBOX, PageClient
from tests.station.test_broker_locks import certificates
from tests.station.test_classroom import CHROMIUM, FLAGS
from tests.station.test_page_http import answer

pytestmark = pytest.mark.timeout(90)


def post_from(address: str, port: int, path: str, body: dict, token: str) -> tuple[int, dict]:
    """A POST of the page's own origin sent from another loopback address (another phone on the network)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(address, 0))
    try:
        connection.request("POST", path, json.dumps(body), {"Origin": f"http://127.0.0.1:{port}", "X-Token": token,
                                                              "Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


@pytest.fixture
def box(tmp_path: Path):
    started = BoxProcess(tmp_path)
    yield started
    started.stop()


@pytest.fixture
def page(tmp_path: Path, box: BoxProcess):
    started = HomeProcess(tmp_path, box)
    yield started
    started.stop()


def test_nothing_works_unpaired_and_a_code_the_box_said_pairs_with_a_strict_cookie(box: BoxProcess, page: HomeProcess) -> None:
    stranger = PageClient(page.url)
    assert stranger.get("")[0] == 200  # the page itself, to pair with
    for path in ("api/view", "api/history", "api/doctor", "api/config", "api/enrol", "api/cards/pirates", "backup"):
        status, body = stranger.get(path)
        assert status == 403 and b"pair this phone first" in body, path
    assert stranger.post("api/config", {"values": {"volume": 1.0}})[0] == 403
    assert stranger.post("restore", {"part": "", "first": True, "last": True})[0] == 403
    assert tomllib.loads(box.config.read_text())["volume"] == 0.5

    phone = page.paired_client(box)
    cookie = next(c for c in phone.cookies if c.name == SESSION_COOKIE)
    assert cookie.has_nonstandard_attr("HttpOnly") and cookie.get_nonstandard_attr("SameSite") == "Strict"
    assert cookie.expires is not None and cookie.path == "/"  # it expires: a month, then the phone pairs again
    status, body = phone.get("api/view")
    assert status == 200 and b'"mode": "menu"' in body
    assert stranger.get("api/view")[0] == 403  # the other client is still a stranger


def test_foreign_host_origin_or_missing_token_is_refused(box: BoxProcess, page: HomeProcess) -> None:
    phone = page.paired_client(box)
    assert phone.get("", {"Host": "evil.example:8081"})[0] == 421  # DNS rebinding: the name is not the box's
    assert phone.get("api/view", {"Host": "evil.example"})[0] == 421
    change = {"values": {"volume": 0.7}}
    assert phone.post("api/config", change, {"Origin": "http://evil.example"})[0] == 403
    assert phone.post("api/config", change, {"X-Token": "guessed"})[0] == 403
    assert phone.post("api/config", change, {"Origin": "null"})[0] == 403
    assert phone.post("pair/begin", {}, {"Origin": "http://evil.example"})[0] == 403
    assert tomllib.loads(box.config.read_text())["volume"] == 0.5
    assert phone.post("api/config", change)[0] == 200  # the page itself can
    assert tomllib.loads(box.config.read_text())["volume"] == 0.7


def test_guessing_the_code_backs_off_per_address_and_the_code_dies_after_a_few_tries_in_all(
        box: BoxProcess, page: HomeProcess) -> None:
    guesser = PageClient(page.url)
    assert guesser.post("pair/begin", {})[0] == 200
    code = box.spoken_code()
    wrong = str((int(code) + 1) % 10**6).zfill(6)
    assert guesser.post("pair", {"code": wrong})[0] == 403
    status, told = guesser.post("pair", {"code": code})  # even the right code waits: this address just guessed
    assert status == 429 and "wait" in told["error"]
    token = guesser.token
    answers = [post_from(f"127.0.0.{n}", page.port, "/pair", {"code": wrong}, token) for n in range(2, 1 + TRIES)]
    assert [a[0] for a in answers] == [403] * (TRIES - 1) and answers[-1][1]["tries_left"] == 0  # from other addresses
    status, _ = post_from(f"127.0.0.{TRIES + 1}", page.port, "/pair", {"code": code}, token)
    assert status == 403  # the right code, after TRIES wrong ones in all: gone


def test_one_address_cannot_keep_the_box_armed_and_the_box_says_when_it_is(box: BoxProcess, page: HomeProcess) -> None:
    """A stranger renewing the ask to catch the family's next hold: the page takes one ask per address, the box says
    out loud that a hold now pairs, and a second address's ask does not stretch the minute."""
    stranger = PageClient(page.url)
    heard = len(box.lines)
    status, first = stranger.post("pair/begin", {})
    assert status == 200 and first["armed_for"] == 60
    status, again = stranger.post("pair/begin", {})
    assert status == 200 and again["armed_for"] <= 60  # told, not renewed
    status, other = post_from("127.0.0.2", page.port, "/pair/begin", {}, stranger.token)
    assert status == 200 and other["armed_for"] <= 60
    said = box.lines[heard:]
    assert said.count("show: pair_armed") == 1 and "say: A phone wants to pair: hold the big button and I will say the code." in said
    box.spoken_code()  # someone at the box held the die: the box is no longer armed
    status, again = stranger.post("pair/begin", {})
    assert status == 429 and again["key"] == "pair_wait"  # this address arms it again only after its wait


def test_another_site_cannot_use_a_paired_phone(box: BoxProcess, page: HomeProcess) -> None:
    if CHROMIUM is None:
        pytest.skip("no Chromium: install Debian's chromium package")
    from playwright.sync_api import sync_playwright

    phone = page.paired_client(box)
    session = next(c for c in phone.cookies if c.name == SESSION_COOKIE).value
    evil = f"""<form id="f" method="POST" action="{page.url}api/config" enctype="text/plain">
      <input name='{{"values": {{"volume": 1.0, "x": "' value='"}}}}'></form>
      <script>
        fetch("{page.url}api/config", {{method: "POST", mode: "no-cors", credentials: "include",
          body: JSON.stringify({{values: {{volume: 0.9}}}})}}).finally(() => document.getElementById("f").submit());
      </script>"""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context()
            context.add_cookies([{"name": SESSION_COOKIE, "value": session, "url": page.url, "httpOnly": True,
                                  "sameSite": "Strict"}])  # the phone is paired: its browser holds the cookie
            tab = context.new_page()
            tab.route("http://evil.example/", lambda route: route.fulfill(body=evil, content_type="text/html"))
            with tab.expect_navigation(url=f"{page.url}api/config"):
                tab.goto("http://evil.example/")
            assert "only the page itself" in tab.content() or "pair this phone first" in tab.content()
        finally:
            browser.close()
    assert tomllib.loads(box.config.read_text())["volume"] == 0.5


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make the test's certificates")
def test_over_https_the_code_and_the_cookie_stay_off_the_wire(tmp_path: Path, box: BoxProcess) -> None:
    certs = certificates(tmp_path / "certs")  # a certificate for 127.0.0.1 from the test's own CA
    page = HomeProcess(tmp_path, box, "--cert", str(certs["broker_crt"]), "--key", str(certs["broker_key"]),
                       ca=certs["ca_crt"])
    try:
        phone = page.paired_client(box)
        cookie = next(c for c in phone.cookies if c.name == SESSION_COOKIE)
        assert cookie.secure  # never sent back over plain HTTP
        assert phone.get("api/view")[0] == 200
        assert PageClient(page.url.replace("https", "http")).get("")[0] == 0  # plain HTTP gets no page at all
    finally:
        page.stop()


def test_a_slow_client_and_a_flood_from_one_address_cannot_take_the_page(tmp_path: Path) -> None:
    async def main() -> None:
        served = HomePage(tmp_path / "no-box.sock", "127.0.0.1", 0, max_connections=20, request_seconds=2.0)
        await served.start()
        try:
            held = []
            for _ in range(webserver.PER_ADDRESS):  # one address, heads that never end
                reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
                writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                held.append((reader, writer))
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert await answer(reader) == b""  # one more from the same address: closed at once
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port, local_addr=("127.0.0.2", 0))
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert (await answer(reader)).startswith(b"HTTP/1.1 200")  # another phone is served meanwhile
            writer.close()
            for reader, writer in held:  # the heads' time runs out: each is let go
                assert await answer(reader) == b""
                writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write(b"GET /api/view HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert b"403" in (await answer(reader)).split(b"\r\n")[0]
            writer.close()
        finally:
            await served.stop()

    asyncio.run(main())


def test_a_paired_phone_stays_paired_through_a_restart_of_the_page_and_of_the_box(box: BoxProcess, page: HomeProcess) -> None:
    """An update or a reboot: the page's process and the box stop and start again; the phone's cookie still works,
    the file on disk holds no session's secret and is the page's alone; "forget all phones" ends every session."""
    phone, other = page.paired_client(box), PageClient(page.url)
    secret = next(c.value for c in phone.cookies if c.name == SESSION_COOKIE)
    kept = box.state / "home-sessions.json"
    assert secret not in kept.read_text() and stat.S_IMODE(kept.stat().st_mode) == 0o600
    page.stop()
    box.stop()
    box.start()
    page.start()
    assert phone.get("api/view")[0] == 200
    assert other.get("api/view")[0] == 403
    phone.token = None  # the new page's token, as a browser reloading the page gets it
    status, told = phone.post("api/forget", {"all": True})
    assert status == 200 and told["forgotten"] == 1
    page.stop()
    page.start()
    assert phone.get("api/view")[0] == 403


def test_a_corrupt_or_foreign_sessions_file_is_one_log_line_and_the_page_serves(tmp_path: Path, box: BoxProcess) -> None:
    kept = box.state / "home-sessions.json"
    kept.write_text('{"kind": "something else", "sessions": "?"}')
    page = HomeProcess(tmp_path, box)
    try:
        assert PageClient(page.url).get("")[0] == 200
        phone = page.paired_client(box)  # pairing works, and writes a file of the page's own
        assert phone.get("api/view")[0] == 200
    finally:
        page.stop()
    log = (tmp_path / "home.log").read_text()
    assert "home-sessions.json cannot be read" in log and "every phone pairs again" in log and "Traceback" not in log
    assert (box.state / "home-sessions.json.bad").read_text().startswith('{"kind": "something else"')


def test_a_session_ends_after_its_time_even_across_a_restart(tmp_path: Path) -> None:
    now = [1_700_000_000.0]
    kept = tmp_path / "sessions.json"
    session = HomePage(tmp_path / "no-box.sock", sessions=Sessions(kept, wall=lambda: now[0]))._opened("10.0.0.5")
    again = HomePage(tmp_path / "no-box.sock", sessions=Sessions(kept, wall=lambda: now[0]))
    assert again.session_of({SESSION_COOKIE: session}) == session
    now[0] += home.SESSION_DAYS * 86400
    assert HomePage(tmp_path / "no-box.sock", sessions=Sessions(kept, wall=lambda: now[0])).session_of(
        {SESSION_COOKIE: session}) is None
    assert again.session_of({SESSION_COOKIE: "made-up"}) is None


def test_how_long_a_phone_stays_paired_is_the_family_s_choice(tmp_path: Path, box: BoxProcess) -> None:
    page = HomeProcess(tmp_path, box, "--session-days", "2")
    try:
        cookie = next(c for c in page.paired_client(box).cookies if c.name == SESSION_COOKIE)
        assert cookie.expires is not None and 2 * 86400 - 120 <= cookie.expires - time.time() <= 2 * 86400
    finally:
        page.stop()
    now = [1_700_000_000.0]
    short = HomePage(tmp_path / "no-box.sock", sessions=Sessions(None, wall=lambda: now[0]), session_days=2)
    session = short._opened("10.0.0.5")
    now[0] += 2 * 86400 - 1
    assert short.session_of({SESSION_COOKIE: session}) == session
    now[0] += 1
    assert short.session_of({SESSION_COOKIE: session}) is None  # two days, then the phone pairs again
    refused = subprocess.run([*GAMEBOX, "home", "--session-days", "0", "--state-dir", str(tmp_path)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.strip() == (
        "gamebox: --session-days 0: a phone stays paired more than 0 and at most 366 days")


def test_the_page_without_its_box_says_so_and_does_not_fall_over(box: BoxProcess, page: HomeProcess) -> None:
    phone = page.paired_client(box)
    box.stop()
    status, body = phone.get("api/view")
    assert status == 409 and b"not answering" in body
    box.start()
    assert phone.get("api/view")[0] == 200  # the same session: the page kept it, the box came back
