"""Every part of the family's page in Chromium at a phone's size (360 px), against a real box on the sim profile.

The phone pairs with the code the box says; then each part is used as a
parent would: the game under way and the past games, a deck enrolled card
by card with a wrong card refused, a setting refused beside its field and
one saved, the doctor's table, a backup downloaded and restored. The page's
screenshots in the README come from here (``GAMEBOX_SCREENSHOTS=docs/screenshots``).
"""

from __future__ import annotations

import os
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.home.processes import PHONE, BoxProcess, HomeProcess, games_played
from tests.station.brokers import wait_until
from tests.station.test_classroom import CHROMIUM, FLAGS

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's chromium package")]


HISTORY = [("pirates", 2, 3), ("floppy-ears", 3, 4), ("policecats", 4, 5), ("pirates", 3, 6)]


@pytest.fixture
def history() -> list[tuple[str, int, int]]:
    """A test that asks for it finds these games played on its box (by bots, on a real daemon) before the page."""
    return HISTORY


@pytest.fixture
def box(tmp_path: Path, request: pytest.FixtureRequest):
    if "history" in request.fixturenames:
        games_played(tmp_path / "state", request.getfixturevalue("history"))
    started = BoxProcess(tmp_path)
    yield started
    started.stop()


@pytest.fixture
def home(tmp_path: Path, box: BoxProcess):
    started = HomeProcess(tmp_path, box)
    yield started
    started.stop()


@pytest.fixture
def phone(tmp_path: Path, home: HomeProcess):
    """A phone's browser on the page, with the script errors it logged (``errors``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(**PHONE, accept_downloads=True)
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(home.url)
                          else route.abort())  # offline: nothing but the box itself is fetched
            page = context.new_page()
            page.errors = []
            page.on("console", lambda m: page.errors.append(m.text)  # a refusal's status is the page's to show, no error
                    if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            page.goto(home.url)
            yield page
        finally:
            browser.close()


def screenshot(page, tmp_path: Path, name: str) -> None:
    """What the phone's screen shows now (360 x 740), also in ``GAMEBOX_SCREENSHOTS`` when it names a folder."""
    page.screenshot(path=str(tmp_path / name))
    assert (tmp_path / name).stat().st_size > 5_000
    folder = os.environ.get("GAMEBOX_SCREENSHOTS")
    if folder:
        shutil.copy(tmp_path / name, Path(folder) / name)


def pair(page, box: BoxProcess) -> None:
    page.get_by_role("button", name="Ask the box for a code").click()
    page.get_by_text("Now hold the big button").wait_for()
    page.get_by_label("Code").fill(box.spoken_code())
    page.get_by_role("button", name="Pair", exact=True).click()
    page.get_by_role("tab", name="Play").wait_for()


def fits_a_phone(page) -> None:
    """Nothing wider than the phone (no sideways scrolling at 360 px); every control a thumb can hit and a screen
    reader can name (at least 28 px high, WCAG asks 24; a label or a name of its own)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    problems = page.evaluate("""[...document.querySelectorAll('button, select, input, a')].filter((e) => e.offsetParent)
      .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect().height, (e.labels && e.labels.length)
        || e.getAttribute('aria-label') || (e.tagName !== 'INPUT' && e.tagName !== 'SELECT' && e.textContent.trim())])
      .filter(([, height, named]) => !named || height < 28)""")
    assert problems == []


def test_pairing_is_all_an_unpaired_phone_sees_and_the_code_the_box_says_opens_the_page(
        tmp_path: Path, box: BoxProcess, phone) -> None:
    phone.get_by_role("heading", name="Pair this phone with the box").wait_for()  # once the page knows it is unpaired
    assert not phone.get_by_role("tab", name="Settings").is_visible()
    phone.get_by_role("button", name="Ask the box for a code").click()
    phone.get_by_label("Code").fill("123")
    phone.get_by_role("button", name="Pair", exact=True).click()
    phone.get_by_text("Wrong or expired code").wait_for()
    screenshot(phone, tmp_path, "home-pair.png")
    phone.reload()
    pair(phone, box)
    assert phone.get_by_role("tab", name="Play").get_attribute("aria-selected") == "true"
    fits_a_phone(phone)
    phone.get_by_role("tab", name="Keep").click()
    phone.get_by_role("button", name="Forget this phone").click()  # a phone handed on: it pairs again
    phone.get_by_role("heading", name="Pair this phone with the box").wait_for()
    phone.reload()
    phone.get_by_role("heading", name="Pair this phone with the box").wait_for()
    assert not phone.get_by_role("tab", name="Settings").is_visible()
    assert phone.errors == []


def test_asking_for_a_code_mid_game_is_refused_on_the_page_in_its_language(
        tmp_path: Path, box: BoxProcess, phone) -> None:
    """A hold of the die mid-game is the game's (the undo gesture): the page says so, here in German, and points to
    the pairing card; the box never says a code."""
    box.send("tap control-game-pirates")
    box.send("tap control-players-2")
    wait_until(lambda: "show: deal: pirates" in box.lines, what="a game under way")
    phone.get_by_label("Language of this page").select_option("de")
    phone.get_by_role("button", name="Die Box nach einem Code fragen").click()
    phone.get_by_text("Ein Spiel läuft: Halten des Knopfes gehört jetzt dem Spiel.").wait_for()
    assert not phone.get_by_text("Halte jetzt den großen Knopf").is_visible()
    box.send("hold die")
    wait_until(lambda: "say: Hold the button again to take back." in box.lines, what="the game's undo gesture")
    assert "show: pair_code" not in box.lines
    assert phone.errors == []


def test_play_shows_the_game_live_and_the_past_games_with_a_chart_of_wins(
        tmp_path: Path, history, box: BoxProcess, phone) -> None:
    pair(phone, box)
    phone.get_by_text("Menu: choosing a game").wait_for()
    rows = phone.locator("#history tbody tr")
    wait_until(lambda: rows.count() == len(history), what="the past games")
    assert rows.nth(0).locator("td").nth(1).inner_text() == "Pirate and Co., Mau Mau"  # newest first
    chart = phone.get_by_role("img", name="Wins over time")
    assert "Player 3: 2" in chart.get_attribute("aria-label")  # seat 3 won the first pirates and policecats game
    phone.get_by_label("Game", exact=True).select_option("pirates")
    wait_until(lambda: "Player 3: 1" in chart.get_attribute("aria-label"), what="the chart of one game")
    assert phone.locator("#chart polyline").count() == 3  # one line per seat of the largest pirates table
    box.send("tap control-game-pirates")  # the box's own control cards start a game
    box.send("tap control-players-2")
    phone.get_by_text("Lay the first card on the box").wait_for()  # live: the page follows the box's view
    box.send("tap yellow-pirate-3")
    phone.get_by_text("Player 1's turn").wait_for()
    fits_a_phone(phone)
    screenshot(phone, tmp_path, "home-play.png")
    assert phone.errors == []


def test_cards_enrol_a_deck_card_by_card_and_a_wrong_card_is_refused_there_and_then(
        tmp_path: Path, box: BoxProcess, phone) -> None:
    pair(phone, box)
    phone.get_by_role("tab", name="Cards").click()
    grid = phone.locator("#grid .card")
    wait_until(lambda: grid.count() == 36, what="the Floppy Ears deck")
    assert phone.get_by_role("listitem", name="1 Yellow, not enrolled yet").is_visible()
    phone.get_by_role("button", name="Enrol this deck").click()
    big = phone.locator("#walk .card.huge")
    big.wait_for()
    assert big.get_attribute("aria-label") == "1 Yellow" and phone.locator("#walk-count").inner_text() == "0/36"
    box.send("tap 04a1b2c3")  # a blank sticker on the box's reader
    wait_until(lambda: phone.locator("#walk-count").inner_text() == "1/36", what="the first card enrolled")
    assert big.get_attribute("aria-label") == "2 Yellow"
    phone.get_by_label("Language of this page").select_option("de")  # a reader of German: refused in German
    box.send("tap 04a1b2c3")  # the same sticker again: it is yellow-1 already
    phone.get_by_text("Abgelehnt: Dieser Aufkleber ist schon eine andere Karte (1 Gelb)").wait_for()
    assert phone.get_by_role("img", name="1 Gelb").is_visible()  # the card that tag already is, shown beside
    phone.get_by_label("Sprache dieser Seite").select_option("en")
    phone.get_by_text("Refused: This tag is already another card (1 Yellow)").wait_for()
    assert phone.locator("#walk-count").inner_text() == "1/36" and phone.locator("#walk-bar").get_attribute("value") == "1"
    wait_until(lambda: phone.get_by_role("listitem", name="1 Yellow, enrolled").is_visible(), what="the grid to follow")
    fits_a_phone(phone)
    screenshot(phone, tmp_path, "home-cards.png")
    phone.get_by_role("button", name="Stop").click()
    phone.get_by_role("listitem", name="1 Yellow, enrolled").click()
    phone.get_by_role("button", name="Forget its tag").click()
    phone.get_by_role("listitem", name="1 Yellow, not enrolled yet").wait_for()
    phone.get_by_label("Deck").select_option("pirates")
    wait_until(lambda: grid.count() == 52, what="the pirates deck")
    phone.get_by_role("button", name="Write stickers for this deck").click()  # the sim reader writes as a PN532
    phone.get_by_text("Lay a blank sticker for this card on the box:").wait_for()  # written: tests/control/
    assert phone.locator("#walk .card.huge").get_attribute("aria-label") == "1 pirate"
    assert phone.locator("#walk-count").inner_text() == "0/52"
    assert phone.errors == []


def test_settings_show_an_invalid_value_beside_its_field_and_save_a_good_one(
        tmp_path: Path, box: BoxProcess, phone) -> None:
    pair(phone, box)
    phone.get_by_role("tab", name="Settings").click()
    window = phone.get_by_label("Time to call")
    window.wait_for()
    assert phone.get_by_text("Seconds after a card to press for woof or Mau.").is_visible()
    before = box.config.read_text()
    window.fill("99")
    phone.get_by_role("button", name="Save").click()
    phone.get_by_text("Not saved").wait_for()
    assert phone.locator("#p-call_window").inner_text().startswith("From 0.5 to 10 ")
    assert box.config.read_text() == before  # never written
    phone.locator("#p-call_window").scroll_into_view_if_needed()
    screenshot(phone, tmp_path, "home-settings.png")
    window.fill("4")
    phone.get_by_label("Mau calls").check()
    phone.get_by_label("Language", exact=True).select_option("de")
    phone.get_by_role("button", name="Save").click()
    phone.get_by_text("Gespeichert.").wait_for()  # saved, said in the language just chosen
    written = tomllib.loads(box.config.read_text())
    assert written["call_window"] == 4.0 and written["games"]["pirates"]["mau_calls"] is True
    wait_until(lambda: "say: Deutsch" in box.lines, what="the box to speak German")  # taken at once, said aloud
    phone.get_by_role("tab", name="Einstellungen").wait_for()  # the page speaks as the box now does
    assert phone.get_by_label("Zeit zum Rufen").input_value() == "4"
    phone.get_by_label("Zeit zum Rufen").fill("99")  # a wrong value, refused in the page's German
    phone.get_by_role("button", name="Speichern").click()
    phone.get_by_text("Nicht gespeichert").wait_for()
    assert phone.locator("#p-call_window").inner_text() == "Von 0,5 bis 10 (Höchstens 10.)"
    assert tomllib.loads(box.config.read_text())["call_window"] == 4.0
    phone.get_by_label("Zeit zum Rufen").fill("4")
    phone.get_by_label("Runden zum Sieg").fill("0")  # a house rule out of its range: which game, which rule, what fits
    phone.get_by_role("button", name="Speichern").click()
    phone.locator("#p-games").get_by_text("Runden zum Sieg").wait_for()
    assert phone.locator("#p-games").inner_text() == "Runden zum Sieg (Pirat und Co., Mau Mau): eine ganze Zahl von 1 bis 99."
    assert "wins_needed" not in tomllib.loads(box.config.read_text())["games"]["pirates"]
    phone.get_by_label("Sprache dieser Seite").select_option("en")  # or as this phone's reader chooses
    phone.get_by_role("tab", name="Settings").wait_for()
    fits_a_phone(phone)
    assert phone.errors == []


def test_health_shows_the_doctor_table_storage_and_the_last_faults_in_words(
        tmp_path: Path, box: BoxProcess, phone) -> None:
    box.send("tap deadbeef")  # a tag the box does not know: it says so, and logs it
    pair(phone, box)
    phone.get_by_role("tab", name="Health").click()
    phone.locator("#doctor tbody tr").first.wait_for()
    assert phone.get_by_role("cell", name="button:die").is_visible()
    assert "MB free of" in phone.locator("#storage").inner_text()
    assert "unknown tag deadbeef" in phone.locator("#faults").inner_text()
    fits_a_phone(phone)
    screenshot(phone, tmp_path, "home-health.png")
    assert phone.errors == []


def test_keep_downloads_a_backup_and_restores_it_and_refuses_what_is_not_one(
        tmp_path: Path, box: BoxProcess, home: HomeProcess, phone) -> None:
    pair(phone, box)
    phone.get_by_role("tab", name="Keep").click()
    with phone.expect_download() as download:
        phone.get_by_role("link", name="Download a backup").click()
    saved = tmp_path / "backup.zip"
    download.value.save_as(saved)
    assert set(zipfile.ZipFile(saved).namelist()) == {"journal.sqlite", "tags.sqlite", "manifest.json"}
    junk = tmp_path / "holiday.zip"
    junk.write_bytes(b"PK\x03\x04 not a zip")
    phone.get_by_label("Backup file").set_input_files(str(junk))
    phone.get_by_role("button", name="Restore").click()
    phone.get_by_text("Not restored: This file is not a backup of a gamebox.").wait_for()
    assert box.proc.poll() is None
    phone.get_by_label("Backup file").set_input_files(str(saved))
    phone.get_by_role("button", name="Restore").click()
    phone.get_by_text("Restored: the box starts again on the backup.").wait_for()
    box.proc.wait(15)  # the box stopped to take the backup (systemd starts it again; here the test does)
    assert "the backup is in place" in (tmp_path / "box.log").read_text()
    fits_a_phone(phone)
    screenshot(phone, tmp_path, "home-keep.png")
    box.start()
    phone.get_by_role("tab", name="Play").click()
    phone.get_by_text("Menu: choosing a game").wait_for()
