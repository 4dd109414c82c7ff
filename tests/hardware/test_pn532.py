"""The PN532 reader, with adafruit's driver unchanged on fake SPI and I²C buses, under Blinka's own
busio.SPI on a wire shared by two chips, and through real pyserial on a pseudo-terminal."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

from adafruit_pn532.i2c import PN532_I2C
from adafruit_pn532.spi import PN532_SPI

from hardware.clock import SystemClock
from hardware.drivers import pn532
from hardware.events import DeviceFault, DeviceRecovered, EventSink, TagGone, TagSeen
from hardware.factory import build_devices
from hardware.faults import Backoff
from hardware.profile import load_profile
from tests.hardware.fake_pn532 import FakeI2CBus, FakePin, FakePN532, FakeSpiBus, PtyPN532
from tests.hardware.support import events_until, kinds, next_event, wait_until
from tests.hardware.tags import FakeTag

UID7 = bytes.fromhex("04a1b2c3d4e5f6")
UID4 = bytes.fromhex("deadbeef")
ROOT = Path(__file__).resolve().parents[2]
UID7_OTHER = bytes.fromhex("04112233445566")
SIM_LEDS = '[leds.strips.main]\ndriver = "sim"\npixels = 1\n[speaker]\ndriver = "sim"\n'


def reader(sink: EventSink, connect, **options) -> pn532.Pn532Reader:
    settings = {"poll_timeout": 0.02, "ack_timeout": 0.05, "interval": 0.0, "backoff": Backoff(0.001, 2, 0.01)}
    return pn532.Pn532Reader("table", sink, SystemClock(), connect, **(settings | options))


def on_spi(chip: FakePN532, bus: FakeSpiBus | None = None):
    bus = bus or FakeSpiBus(chip)
    return lambda: (PN532_SPI(bus, FakePin("cs")), lambda: None)


def test_a_card_laid_on_the_reader_is_seen_with_its_text_and_gone_when_lifted():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            chip.tag = FakeTag.ntag(UID7, "red-3")
            seen = await next_event(sink)
            chip.tag = None
            gone = await next_event(sink)
        finally:
            table.stop()
        assert isinstance(seen, TagSeen) and (seen.reader, seen.uid, seen.text) == ("table", UID7, "red-3")
        assert isinstance(gone, TagGone) and gone.uid == UID7

    asyncio.run(scenario())


def test_a_card_lying_still_is_reported_once():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        chip.tag = FakeTag.ntag(UID7, "joker-1")
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            await next_event(sink)
            polls = chip.commands.count(0x4A)
            assert wait_until(lambda: chip.commands.count(0x4A) >= polls + 10)
        finally:
            table.stop()
        assert sink.drain() == []

    asyncio.run(scenario())


def test_a_card_with_a_four_byte_uid_is_seen_without_reading_its_memory():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        chip.tag = FakeTag(UID4)
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            seen = await next_event(sink)
        finally:
            table.stop()
        assert (seen.uid, seen.text) == (UID4, None)
        assert 0x40 not in chip.commands

    asyncio.run(scenario())


def test_a_cards_text_is_read_once_and_remembered():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        card = FakeTag.ntag(UID7, "police-4")
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            texts = []
            for _ in range(2):
                chip.tag = card
                texts.append((await next_event(sink)).text)
                chip.tag = None
                await next_event(sink)
        finally:
            table.stop()
        assert texts == ["police-4", "police-4"]
        reads_per_card = chip.commands.count(0x40)
        assert reads_per_card == 2  # capability page and one more chunk, the first time only

    asyncio.run(scenario())


def test_bus_errors_become_one_fault_then_a_recovery_and_the_card_is_seen_again():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        bus = FakeSpiBus(chip)
        chip.tag = FakeTag.ntag(UID7, "red-1")
        table = reader(sink, on_spi(chip, bus))
        table.start()
        try:
            await next_event(sink)
            bus.error = OSError(5, "Input/output error")
            broken = await events_until(sink, lambda e: isinstance(e, DeviceFault))
            retries = chip.commands.count(0x4A)
            bus.error = None
            mended = await events_until(sink, lambda e: isinstance(e, TagSeen))
        finally:
            table.stop()
        assert kinds(broken) == ["TagGone", "DeviceFault"]
        assert broken[1].device == "reader:table"
        assert "Input/output error" in broken[1].message or "did not acknowledge" in broken[1].message
        assert kinds(mended) == ["DeviceRecovered", "TagSeen"]
        assert chip.commands.count(0x4A) > retries

    asyncio.run(scenario())


def test_a_pn532_that_stops_answering_on_i2c_is_a_fault_not_an_empty_table():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        bus = FakeI2CBus(chip)
        table = reader(sink, lambda: (PN532_I2C(bus), lambda: None))
        table.start()
        try:
            chip.tag = FakeTag.ntag(UID7, "green-2")
            seen = await next_event(sink)
            chip.dead = True
            fault = await events_until(sink, lambda e: isinstance(e, DeviceFault))
            chip.dead = False
            back = await events_until(sink, lambda e: isinstance(e, TagSeen))
        finally:
            table.stop()
        assert (seen.uid, seen.text) == (UID7, "green-2")
        assert kinds(fault) == ["TagGone", "DeviceFault"]
        assert isinstance(back[0], DeviceRecovered) and back[-1].uid == UID7

    asyncio.run(scenario())


def test_a_pn532_on_uart_reads_cards_and_their_text_through_pyserial_on_a_pseudo_terminal(tmp_path):
    chip = FakePN532()
    far_end = PtyPN532(chip)
    path = tmp_path / "uart.toml"
    path.write_text(SIM_LEDS + f'[readers.table]\ndriver = "pn532"\nbus = "uart"\nuart = "{far_end.path}"\n')

    async def scenario():
        sink = EventSink()
        table = build_devices(load_profile(path), sink, SystemClock()).readers["table"]
        assert table.describe() == f"PN532 on {far_end.path} at 115200 baud"
        table.start()
        try:
            chip.tag = FakeTag.ntag(UID7, "parrot-2")
            seen = await next_event(sink)
        finally:
            table.stop()
        return seen

    try:
        seen = asyncio.run(scenario())
    finally:
        far_end.close()
    assert (seen.uid, seen.text) == (UID7, "parrot-2")


def on_blinka(bus: str, profile: Path) -> dict:
    command = [sys.executable, "-m", "tests.hardware.on_blinka", bus, str(profile)]
    child = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout)


def test_a_pn532_on_i2c_is_woken_through_its_request_pin_by_blinkas_own_busio(tmp_path):
    path = tmp_path / "i2c.toml"
    path.write_text(SIM_LEDS + '[readers.table]\ndriver = "pn532"\nbus = "i2c"\nreq_pin = 12\n')
    result = on_blinka("i2c", path)
    assert result["seen"] == [["table", UID7.hex(), "green-2"]]
    assert result["opened"] == ["/dev/i2c-1"]
    levels = result["pins"]["12"]
    assert [False, True] in [levels[i : i + 2] for i in range(len(levels))], "REQ pulsed low to wake the chip"


def test_two_pn532_on_one_spi_port_never_have_both_chips_selected(tmp_path):
    """adafruit_pn532 holds chip select low while it waits for an answer; two readers must take turns.

    Through Blinka's own busio.SPI, whose lock belongs to one bus object (tests/hardware/on_blinka.py).
    """
    path = tmp_path / "two.toml"
    reader_table = '[readers.{}]\ndriver = "pn532"\nspi_port = 1\ncs_pin = {}\npoll_timeout = 0.02\ninterval = 0\n'
    path.write_text(SIM_LEDS + reader_table.format("left", 16) + reader_table.format("right", 26))
    result = on_blinka("spi", path)
    assert result["collisions"] == 0, f"both chip selects low at once, {result['collisions']} times"
    assert result["seen"] == [["left", UID7.hex(), "red-3"], ["right", UID7_OTHER.hex(), "blue-1"]]
    assert result["other"] == []
    assert result["opened"] == ["/dev/spidev1.0"], "one bus object, on SPI1's pins, for both readers"


def test_stop_ends_the_reader_thread_while_it_waits_for_a_card():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        table = reader(sink, on_spi(chip), poll_timeout=0.2)
        table.start()
        assert table.wait_started(5)
        table.stop()
        assert not [t for t in threading.enumerate() if t.name == "reader:table"]
        assert table.fault is None

    asyncio.run(scenario())


def test_a_blank_sticker_is_written_with_a_card_id_and_reads_back():
    """``gamebox tags write``: the card id as an NDEF text record on a blank NTAG21x."""

    async def scenario():
        sink, chip = EventSink(), FakePN532()
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            chip.tag = FakeTag.ntag(UID7)  # blank: an empty NDEF message
            seen = await next_event(sink)
            uid = await asyncio.wrap_future(table.write_text("parrot-2"))
        finally:
            table.stop()
        assert seen.text is None and uid == UID7
        from hardware.ndef_text import read_ndef_text

        assert read_ndef_text(chip.tag.read16) == "parrot-2"

    asyncio.run(scenario())


def test_writing_with_no_card_on_the_reader_fails_at_once():
    async def scenario():
        sink, chip = EventSink(), FakePN532()
        table = reader(sink, on_spi(chip))
        table.start()
        try:
            future = table.write_text("red-1")
            error = await asyncio.wrap_future(future)
        except LookupError as exc:
            error = exc
        finally:
            table.stop()
        assert isinstance(error, LookupError)

    asyncio.run(scenario())
