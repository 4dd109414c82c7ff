"""The PN532 reader, with adafruit's driver unchanged on fake SPI, I²C and UART buses."""

from __future__ import annotations

import asyncio
import sys
import threading
import types

from adafruit_pn532.i2c import PN532_I2C
from adafruit_pn532.spi import PN532_SPI

from hardware.clock import SystemClock
from hardware.drivers import pn532
from hardware.events import DeviceFault, DeviceRecovered, EventSink, TagGone, TagSeen
from hardware.factory import build_devices
from hardware.faults import Backoff
from hardware.profile import load_profile
from tests.hardware.fake_pn532 import FakeI2CBus, FakePin, FakePN532, FakeSpiBus, PtyPN532, SpiWire, WirePin, WireSpi
from tests.hardware.support import events_until, kinds, next_event, wait_until
from tests.hardware.tags import FakeTag

UID7 = bytes.fromhex("04a1b2c3d4e5f6")
UID4 = bytes.fromhex("deadbeef")
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


def test_two_pn532_on_one_spi_port_never_have_both_chips_selected(monkeypatch, tmp_path):
    """adafruit_pn532 holds chip select low while it waits for an answer; two readers must take turns."""
    wire, left, right = SpiWire(), FakePN532(), FakePN532()
    wire.attach("D16", left)
    wire.attach("D26", right)
    pins = {name: name for name in ("SCK_1", "MOSI_1", "MISO_1", "D16", "D26")}
    monkeypatch.setitem(sys.modules, "board", types.SimpleNamespace(**pins))
    monkeypatch.setitem(sys.modules, "busio", types.SimpleNamespace(SPI=lambda *_: WireSpi(wire)))
    monkeypatch.setitem(sys.modules, "digitalio", types.SimpleNamespace(DigitalInOut=lambda pin: WirePin(wire, pin)))
    path = tmp_path / "two.toml"
    reader_table = '[readers.{}]\ndriver = "pn532"\nspi_port = 1\ncs_pin = {}\npoll_timeout = 0.02\ninterval = 0\n'
    path.write_text(SIM_LEDS + reader_table.format("left", 16) + reader_table.format("right", 26))
    left.tag = FakeTag.ntag(UID7, "red-3")  # answers at once; right has no card and keeps its chip waiting

    async def scenario():
        sink = EventSink()
        readers = list(build_devices(load_profile(path), sink, SystemClock()).readers.values())
        for reader_ in readers:
            reader_.start()
        try:
            busy = lambda: min(left.commands.count(0x4A), right.commands.count(0x4A)) >= 10  # noqa: E731
            assert wait_until(lambda: wire.collisions > 0 or busy())
            assert wire.collisions == 0, f"both chip selects low at once, {wire.collisions} times"
            right.tag = FakeTag.ntag(UID7_OTHER, "blue-1")
            seen = await events_until(sink, lambda e: isinstance(e, TagSeen) and e.reader == "right")
        finally:
            for reader_ in readers:
                reader_.stop()
        return seen

    seen = asyncio.run(scenario())
    assert [(e.reader, e.uid, e.text) for e in seen if isinstance(e, TagSeen)] == [
        ("left", UID7, "red-3"),
        ("right", UID7_OTHER, "blue-1"),
    ]
    assert wire.collisions == 0
    assert wire.buses == 1, "one busio.SPI for the port"


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


def test_connect_spi_uses_the_ports_pins_and_the_chip_select_gpio(monkeypatch):
    chip = FakePN532()
    opened: dict[str, object] = {}

    def spi(clock, mosi, miso):
        opened["pins"] = (clock, mosi, miso)
        opened["bus"] = FakeSpiBus(chip)
        return opened["bus"]

    def digital(pin):
        opened.setdefault("digital", []).append(pin)
        return FakePin(pin)

    board = types.SimpleNamespace(SCK_1="SCK_1", MOSI_1="MOSI_1", MISO_1="MISO_1", D16="D16", D6="D6")
    monkeypatch.setitem(sys.modules, "board", board)
    monkeypatch.setitem(sys.modules, "busio", types.SimpleNamespace(SPI=spi))
    monkeypatch.setitem(sys.modules, "digitalio", types.SimpleNamespace(DigitalInOut=digital))

    chip_driver, release = pn532.connect_spi(port=1, cs_pin=16, reset_pin=6)()
    assert chip_driver.firmware_version == tuple(FIRMWARE_VERSION)
    assert opened["pins"] == ("SCK_1", "MOSI_1", "MISO_1")
    assert opened["digital"] == ["D16", "D6"]
    release()
    assert opened["bus"].deinited


FIRMWARE_VERSION = (0x32, 0x01, 0x06, 0x07)


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
