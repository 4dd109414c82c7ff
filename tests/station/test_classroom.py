"""The teacher's page: live stations in a real headless Chromium, commands, PIN, statistics (issue 14)."""

from __future__ import annotations

import json
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from controller.station.classroom import Classroom
from tests.station.brokers import OBEYS, Broker, SecuredBroker, Station, TeacherPageProcess, Watcher, game_lines, wait_until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_page_shows_two_stations_live_and_a_button_changes_a_volume(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    from playwright.sync_api import expect, sync_playwright

    groups = game_lines(tmp_path / "ref")
    red, blue = Station(tmp_path / "red", broker, "red", **OBEYS), Station(tmp_path / "blue", broker, "blue", **OBEYS)
    page_server = TeacherPageProcess(tmp_path, broker)
    try:
        red.send([line for group in groups[:5] for line in group])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1024, "height": 700})  # a tablet
            page.goto(page_server.url)
            red_card, blue_card = page.locator("#station-red"), page.locator("#station-blue")
            expect(red_card.locator(".game")).to_have_text("Pirate & Co., 2 players", timeout=10_000)
            expect(blue_card.locator(".game")).to_contain_text("menu", timeout=10_000)
            expect(red_card).not_to_have_class("station offline")

            red.send(groups[5])  # live: the next action shows without a reload
            expect(red_card).to_have_attribute("data-at", str(watcher.wait_for("gamebox/red/state", lambda s: s.get("actions") == 5)["at"]))

            red_card.locator("button.louder").click()
            expect(page.locator("#note")).to_have_text("volume: done", timeout=10_000)  # only when the box has answered
            expect(red_card).to_have_attribute("data-volume", "0.7", timeout=10_000)
            assert watcher.wait_for("gamebox/red/state", lambda s: s.get("volume") == 0.7)  # the watcher hears it after the page may
            assert watcher.latest("gamebox/blue/state")["volume"] == 0.6
            page.screenshot(path=str(tmp_path / "classroom.png"))

            red_card.locator("button[data-cmd=new-game]").click()  # mid-game: the box refuses, and the page says why
            expect(page.locator("#note")).to_have_text(
                "new-game: refused: a game is running: end the session first (a game never changes mid-game)", timeout=10_000)
            broker.stop()
            expect(page.locator("#note")).to_have_text("broker unreachable", timeout=10_000)
            browser.close()
        assert (tmp_path / "classroom.png").stat().st_size > 10_000
    finally:
        page_server.stop()
        red.stop()
        blue.stop()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_a_box_that_never_answers_is_named_after_five_seconds(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    from playwright.sync_api import expect, sync_playwright

    red = Station(tmp_path / "red", broker, "red")  # locked by default: it never hears the command, so never answers
    page_server = TeacherPageProcess(tmp_path, broker)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page()
            page.clock.install()  # the page's own timers, moved by the test instead of waited for
            page.goto(page_server.url)
            card = page.locator("#station-red")
            expect(card.locator(".game")).to_contain_text("menu", timeout=20_000)
            page.clock.pause_at(page.evaluate("Date.now()") + 1)  # from here the page's time moves only when told
            card.locator("button.louder").click()
            expect(page.locator("#note")).to_have_text("volume: sent to red, waiting for the answer…", timeout=20_000)
            wait_until(lambda: [m for m in watcher.messages if m[0] == "gamebox/red/set/volume"], what="the command on the broker")
            page.clock.fast_forward(4_900)
            expect(page.locator("#note")).to_have_text("volume: sent to red, waiting for the answer…")
            page.clock.fast_forward(200)
            expect(page.locator("#note")).to_have_text("volume: no answer from red (offline?)", timeout=2_000)
            browser.close()
    finally:
        page_server.stop()
        red.stop()


def test_bad_commands_are_answered_and_good_ones_go_to_the_broker(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    red = Station(tmp_path / "red", broker, "red")
    page_server = TeacherPageProcess(tmp_path, broker)
    try:
        wait_until(lambda: page_server.command("red", "volume", 0.2)[0] == 200, what="the page to see red online")
        status, answer = page_server.command("red", "volume", "loud")
        assert status == 400 and "volume must be a number" in answer["error"]
        assert page_server.command("red/../x", "volume", 0.2) == (404, {"error": "no such station"})
        sent = wait_until(lambda: [m for m in watcher.messages if m[0] == "gamebox/red/set/volume"], what="the command on the broker")
        assert json.loads(sent[0][1])["value"] == 0.2 and len(sent) == 1
        red.stop()
        wait_until(lambda: page_server.command("red", "volume", 0.2) == (409, {"error": "red is offline"}), what="red offline")
        assert page_server.command("all", "volume", 0.2) == (409, {"error": "no station is online"})
    finally:
        page_server.stop()
        red.stop()


def test_a_box_that_loses_its_power_shows_offline_within_ten_seconds(tmp_path: Path, broker: Broker) -> None:
    red = Station(tmp_path / "red", broker, "red")
    page_server = TeacherPageProcess(tmp_path, broker)
    try:
        wait_until(lambda: page_server.command("red", "volume", 0.5)[0] == 200, what="the page to see red online")
        red.proc.send_signal(signal.SIGSTOP)  # frozen as by a power cut: no goodbye, its connection not even closed
        cut = time.monotonic()
        wait_until(lambda: page_server.command("red", "volume", 0.5) == (409, {"error": "red is offline"}), 20, "red offline")
        assert time.monotonic() - cut <= 10.0
    finally:
        red.proc.send_signal(signal.SIGCONT)
        page_server.stop()
        red.stop()


def test_statistics_count_each_finished_game_once_and_export_as_csv() -> None:
    room = Classroom("gamebox")
    base = {"station": "red", "players": 2, "mode": "playing", "game": "pirates", "game_id": 1, "started_at": 1000.0, "at": 1100.0}
    room.take("gamebox/red/state", json.dumps(base).encode())
    for _ in range(2):  # the same finished game seen twice (a retained message after a reconnection)
        room.take("gamebox/red/state", json.dumps(dict(base, mode="over", at=1600.0)).encode())
    room.take("gamebox/red/events", json.dumps({"kind": "game_over", "game": "policecats", "game_id": 2, "at": 2200.0,
                                                "started_at": 2000.0, "winners": [1]}).encode())
    room.take("gamebox/blue/state", b"not json")
    room.take("gamebox/blue/online", json.dumps({"online": True}).encode())
    room.take("gamebox/all/set/volume", b"0.3")
    assert room.stats["red"].as_dict() == {"games": 2, "per_game": {"pirates": 1, "policecats": 1}, "average_seconds": 400.0}
    assert sorted(room.stations) == ["blue", "red"]
    lines = room.csv().splitlines()
    assert lines[0] == "station,games,game,games_of_this_game,average_minutes"
    assert lines[1:] == ["blue,0,,0,", "red,2,pirates,1,10.0", "red,2,policecats,1,3.33"]


def test_csv_cells_a_spreadsheet_would_run_are_quoted() -> None:
    room = Classroom("gamebox")
    over = {"mode": "over", "game": "pirates", "game_id": 1, "started_at": 1000.0, "at": 1600.0}
    room.take("gamebox/-2-3/state", json.dumps(over).encode())  # a legal station name that a spreadsheet computes
    room.take("gamebox/red/state", json.dumps(dict(over, game='=HYPERLINK("http://evil.example","x")')).encode())
    assert room.csv().splitlines()[1:] == ["'-2-3,1,pirates,1,10.0"]


def test_two_boxes_with_one_station_name_both_stay_on_and_the_page_says_so(tmp_path: Path, broker: Broker, watcher: Watcher) -> None:
    first = Station(tmp_path / "first", broker, "red")  # two boxes left with one name
    watcher.wait_for("gamebox/red/online", lambda m: m["online"])
    second = Station(tmp_path / "second", broker, "red")
    try:
        boots = wait_until(lambda: {m["boot"] for m in watcher.json_on("gamebox/red/online") if m["online"]} if len(
            {m["boot"] for m in watcher.json_on("gamebox/red/online")}) == 2 else None, what="both boxes online")
        assert len(boots) == 2
        for box in (first, second):
            box.send(["tap control-game-pirates"])  # each box is still connected: its menu choice arrives
        wait_until(lambda: len([s for s in watcher.json_on("gamebox/red/state") if s["menu"]["game"] == "pirates"]) >= 2,
                   what="a state from each box")
        room = Classroom("gamebox")
        for topic, payload, _ in list(watcher.messages):
            if topic == "gamebox/red/online":
                room.take(topic, payload)
        assert room.stations["red"]["duplicate"] is True  # the page's card says "two boxes are called red"
    finally:
        first.stop()
        second.stop()
    assert "trying again" not in first.log() + second.log()  # neither pushed the other off the broker


@contextmanager
def red_behind_locks(tmp_path: Path) -> Iterator[tuple[Station, TeacherPageProcess]]:
    """Station red on a broker set up by ``broker-config`` (its own account, its ACL), and the teacher's page on it;
    all three stopped afterwards, also when the test fails."""
    broker = SecuredBroker(tmp_path / "broker", ["red"])
    broker.start()
    red = Station(tmp_path / "red", broker, "red", **{k: broker.accounts["red"][k] for k in ("username", "password", "commands")})
    page_server = TeacherPageProcess(tmp_path, broker, "--config", str(broker.folder / "teacher.toml"))
    try:
        yield red, page_server
    finally:
        page_server.stop()
        red.stop()
        broker.stop()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_every_refused_command_shows_its_refusal_however_many_come(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with red_behind_locks(tmp_path) as (red, page_server), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        page.goto(page_server.url)
        card = page.locator("#station-red")
        expect(card.locator(".game")).to_contain_text("menu", timeout=20_000)
        for i in range(14):  # more than the box's 10 refusals per 10 s that it tells in its log
            card.locator("button[data-cmd=time-up]").click()  # in the menu: refused
            expect(page.locator("#note")).to_have_text("time-up: refused: no game is running", timeout=4_000)
            page.evaluate("document.getElementById('note').textContent = ''")  # so the next answer is its own
        browser.close()
    assert red.log().count("refused command") <= 10  # the log stays rate-limited


SEEN = """window.seen = [];
const Native = window.EventSource;
window.EventSource = class extends Native {
  constructor(url, options) { super(url, options); this.addEventListener("message", e => window.seen.push(e.data)); }
};"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")
def test_an_answer_that_reaches_the_page_before_its_command_s_reply_is_still_shown(tmp_path: Path) -> None:
    """On a busy machine the box's answer can come down the page's stream before the POST that sent the command
    has its reply: the page must keep it, not wait for an answer it already had (the CI failure of 2026-12-03)."""
    from playwright.sync_api import expect, sync_playwright

    with red_behind_locks(tmp_path) as (_red, page_server), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        page.add_init_script(SEEN)  # records what the stream brings, before the page's own handler sees it
        held: list = []
        page.route("**/command", lambda route: held.append((route, route.fetch())))  # sent, its reply held back
        page.goto(page_server.url)
        card = page.locator("#station-red")
        expect(card.locator(".game")).to_contain_text("menu", timeout=20_000)
        card.locator("button[data-cmd=time-up]").click()  # in the menu: refused
        page.wait_for_function("() => window.seen.some(d => d.includes('no game is running'))", timeout=10_000)
        route, reply = held[0]
        route.fulfill(response=reply)  # the reply comes only now, after the answer
        expect(page.locator("#note")).to_have_text("time-up: refused: no game is running", timeout=4_000)
        browser.close()
