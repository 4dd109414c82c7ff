"""The family's page on the virtual Pi, used as a phone on the home network uses it.

``install.sh --home`` put ``gamebox-home.service`` in the guest; qemu forwards
a port of the host's loopback to it (systemd/vm/qemu.py), and Chromium on the
host, at a phone's size, opens the page there. The phone pairs with the code
the box says (heard in the speaker's recording, as someone beside the box
hears it), enrols a card that is tapped on the guest's keyboard reader, and
changes the box's language, which the box's next spoken line must be in.

The die puck sends presses only (firmware/PROTOCOL.md): it cannot hold the
die, so the code is asked for by the pairing control card, which the page
names beside the hold.
"""

from __future__ import annotations

import re
import time
import urllib.request
from typing import Any

from hearing import WORD_HOP, recorded, sound_found, words_said
from image import ROOT

from tests.home.processes import PHONE
from tests.station.test_classroom import CHROMIUM, FLAGS

VOICE = ROOT / "sounds/voice"
DIGITS = {str(d): VOICE / f"en/number-{d}.wav" for d in range(10)}  # the code is said in the box's language
GERMAN = VOICE / "de/language.wav"  # "Deutsch": the box's first line once its language is German
CODE_LENGTH = 6  # controller/control/pairing.py's DIGITS
STICKER = "999"  # a tag the box has never seen (the game's cards are 100 and up)
DECK_SIZE = 36  # the page's first deck, Floppy Ears
SLOW = 120_000  # ms a step on the page may take: the emulated box answers each request in a second or more


def family_page(pi: Any, report: Any) -> None:
    """The page's unit in its sandbox, then pairing, a card enrolled and a setting changed from the host's phone."""
    enabled = pi.sh("systemctl is-enabled gamebox-home")[1].strip()
    pi.wait_for("gamebox-home to be active", lambda: pi.sh("systemctl is-active -q gamebox-home")[0] == 0, 120)
    out = pi.ok("systemd-analyze security gamebox-home.service --no-pager")
    level = re.search(r"Overall exposure level for gamebox-home.service: ([\d.]+)", out)
    user = pi.ok("ps -o user= -p $(systemctl show -p MainPID --value gamebox-home)").strip()
    report.check("install.sh --home enabled gamebox-home.service; it runs as a user of its own, exposure at most 1.5",
                 enabled == "enabled" and level is not None and float(level.group(1)) <= 1.5
                 and user not in ("", "root", "gamebox"),
                 f"{enabled}; {level.group(0) if level else out[-200:]}; user {user}")
    url = f"http://127.0.0.1:{pi.page_port}/"
    try:
        pi.wait_for("the page through the port forward", lambda: _answers(url), 300, every=2)
    except TimeoutError as error:
        report.check("the family's page answers on the host, through qemu's port forward", False, str(error))
        return
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_context(**PHONE).new_page()
        page.set_default_timeout(SLOW)
        try:
            page.goto(url)
            code, taps = pair(pi, page)
            if not report.check("a phone on the host paired with the code the box said (heard in its speaker)",
                                code is not None, f"heard {code}; the pairing card laid {taps} time(s)"):
                return
            enrol(pi, page, report)
            change_language(pi, page, report)
        except Error as error:  # a step the page did not take: the game is still played
            page.screenshot(path=str(pi.where / "phone.png"))
            report.check("the phone's steps on the family's page", False, str(error).splitlines()[0])
        finally:
            browser.close()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status == 200 and b"Pair this phone" in answer.read()
    except OSError:
        return False  # qemu takes the connection before the guest listens, and then closes it


def pair(pi: Any, page: Any) -> tuple[str | None, int]:
    """The page's pair button, the pairing card on the box's reader, and the six digits the box then says typed
    on the phone; a code not heard whole, or refused, is asked for again (a new one) up to twice more."""
    page.get_by_role("button", name="Ask the box for a code").click()
    page.get_by_text("Now hold the big button").wait_for()
    paired, wrong = page.get_by_role("tab", name="Play"), page.get_by_text("Wrong or expired code")
    for taps in range(1, 4):
        start = recorded(pi.machine.wav)
        pi.tap("control-pair")
        try:
            code = pi.wait_for("the box to say a code", lambda start=start: _code(pi.machine.wav, start), 60, every=2)
        except TimeoutError:
            pi.release("tap control-pair")  # a key the guest missed: the card is laid again
            continue
        page.get_by_label("Code").fill(code)
        page.get_by_role("button", name="Pair", exact=True).click()
        paired.or_(wrong).wait_for()
        if paired.is_visible():
            return code, taps
        time.sleep(3)  # the page makes an address wait after a wrong code
    return None, 3


def _code(wav: Any, start: int) -> str | None:
    """The code, once the recording from ``start`` on holds six digits and then a second of nothing more."""
    said = words_said(wav, DIGITS, start)
    if len(said) != CODE_LENGTH:
        return None
    time.sleep(1)
    return "".join(said) if words_said(wav, DIGITS, start) == said else None


def enrol(pi: Any, page: Any, report: Any) -> None:
    """"Enrol this deck" on the phone; the card it asks for first, tapped on the box's reader; the phone shows it
    enrolled (the walk's count, and the card marked in the deck's grid)."""
    page.get_by_role("tab", name="Cards").click()
    grid = page.locator("#grid .card")
    pi.wait_for("the deck's grid", lambda: grid.count() == DECK_SIZE, 120, every=1)
    page.get_by_role("button", name="Enrol this deck").click()
    big = page.locator("#walk .card.huge")
    big.wait_for()
    first = big.get_attribute("aria-label")
    count = page.locator("#walk-count")
    for _ in range(3):
        pi.machine.type_text(f"{STICKER}\n")
        try:
            pi.wait_for("the phone to count the card", lambda: count.inner_text() == f"1/{DECK_SIZE}", 40, every=1)
            break
        except TimeoutError:
            pi.machine.release_keys(f"{STICKER}\n")  # a key the guest missed: the sticker is laid again
    marked = page.get_by_role("listitem", name=f"{first}, enrolled")
    try:
        pi.wait_for("the grid to mark the card", marked.is_visible, 30, every=1)
    except TimeoutError:
        pass
    report.check("\"Enrol this deck\" on the phone; the card it asked for, tapped on the guest's reader, shows "
                 "enrolled on the phone", count.inner_text() == f"1/{DECK_SIZE}" and marked.is_visible(),
                 f"{first}: count {count.inner_text()}, next {big.get_attribute('aria-label')}")
    page.get_by_role("button", name="Stop").click()


def change_language(pi: Any, page: Any, report: Any) -> None:
    """The box's language set to German on the phone: saved in its config, and the box says "Deutsch" at once."""
    page.get_by_role("tab", name="Settings").click()
    page.get_by_label("Language", exact=True).select_option("de")
    before = sound_found(pi.machine.wav, GERMAN, hop=WORD_HOP)  # the box's English lines since power-on are not "Deutsch"
    start = recorded(pi.machine.wav)
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Gespeichert.").wait_for()
    try:
        score = pi.wait_for("the box to say Deutsch", lambda: _heard(pi.machine.wav, start), 60, every=2)
    except TimeoutError:
        score = sound_found(pi.machine.wav, GERMAN, start, WORD_HOP)
    written = pi.ok("grep -c '^language = \"de\"' /etc/gamebox/box.toml || true").strip()
    report.check("the language changed on the phone is written to box.toml and the box's next line is German",
                 written == "1" and score > 0.8,
                 f"\"Deutsch\" {score:.0%} of its tones after the save ({before:.0%} before it); "
                 f"language = \"de\" lines in box.toml: {written}")


def _heard(wav: Any, start: int) -> float | None:
    score = sound_found(wav, GERMAN, start, WORD_HOP)
    return score if score > 0.8 else None
