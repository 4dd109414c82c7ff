"""The RC522 reader, with pi-rc522 unchanged on fake spidev and RPi.GPIO."""

from __future__ import annotations

import asyncio

import pytest

from hardware.clock import SystemClock
from hardware.drivers import rc522
from hardware.events import DeviceFault, DeviceRecovered, EventSink, TagGone, TagSeen
from hardware.faults import Backoff
from tests.hardware import fake_rc522
from tests.hardware.fake_rc522 import FakeMFRC522, FakeSpiDev
from tests.hardware.support import events_until, kinds, next_event, wait_until
from tests.hardware.tags import FakeTag

UID7 = bytes.fromhex("04112233445566")
UID4 = bytes.fromhex("a1b2c3d4")


@pytest.fixture
def gpio(monkeypatch):
    yield from fake_rc522.install(monkeypatch)


@pytest.fixture
def chip(gpio) -> FakeMFRC522:
    chip = FakeMFRC522()
    FakeSpiDev.chips[(0, 0)] = chip
    return chip


def reader(sink: EventSink) -> rc522.Rc522Reader:
    return rc522.Rc522Reader(
        "table", sink, SystemClock(), rc522.connect_spi(0, 0, 25), interval=0.0, backoff=Backoff(0.001, 2, 0.01)
    )


def test_an_ntag_card_is_seen_with_its_seven_byte_uid_and_text_then_gone(chip):
    async def scenario():
        sink = EventSink()
        table = reader(sink)
        table.start()
        try:
            chip.tag = FakeTag.ntag(UID7, "blue-sleeper")
            seen = await next_event(sink)
            chip.tag = None
            gone = await next_event(sink)
        finally:
            table.stop()
        assert isinstance(seen, TagSeen) and (seen.uid, seen.text) == (UID7, "blue-sleeper")
        assert isinstance(gone, TagGone) and gone.uid == UID7

    asyncio.run(scenario())


def test_a_card_lying_still_keeps_answering_and_is_reported_once(chip):
    async def scenario():
        sink = EventSink()
        chip.tag = FakeTag.ntag(UID7, "red-ship")
        table = reader(sink)
        table.start()
        try:
            await next_event(sink)
            wakes = chip.count(0x52)
            assert wait_until(lambda: chip.count(0x52) >= wakes + 10)
        finally:
            table.stop()
        assert sink.drain() == []
        assert chip.count(0x50) >= 10, "the card is halted after every poll"

    asyncio.run(scenario())


def test_a_four_byte_card_is_seen_without_text(chip):
    async def scenario():
        sink = EventSink()
        chip.tag = FakeTag(UID4)
        table = reader(sink)
        table.start()
        try:
            seen = await next_event(sink)
        finally:
            table.stop()
        assert (seen.uid, seen.text) == (UID4, None)
        assert chip.count(0x30) == 0

    asyncio.run(scenario())


def test_spi_errors_are_a_fault_until_the_reader_answers_again(chip):
    async def scenario():
        sink = EventSink()
        chip.tag = FakeTag.ntag(UID7, "yellow-2")
        table = reader(sink)
        table.start()
        try:
            await next_event(sink)
            chip.error = OSError(110, "Connection timed out")
            broken = await events_until(sink, lambda e: isinstance(e, DeviceFault))
            chip.error = None
            back = await events_until(sink, lambda e: isinstance(e, TagSeen))
        finally:
            table.stop()
        assert kinds(broken) == ["TagGone", "DeviceFault"]
        assert "timed out" in broken[-1].message
        assert isinstance(back[0], DeviceRecovered) and back[-1].uid == UID7

    asyncio.run(scenario())


def test_the_reader_is_set_up_with_bcm_numbers_and_no_interrupt_pin(chip, gpio):
    async def scenario():
        table = reader(EventSink())
        table.start()
        assert table.wait_started(5)
        table.stop()
        assert table.fault is None

    asyncio.run(scenario())
    assert ("setmode", (gpio.BCM,)) in gpio.calls
    assert ("setup", (25, gpio.OUT)) in gpio.calls
    assert not [call for call in gpio.calls if call[0] == "add_event_detect"]
    assert not [call for call in gpio.calls if call[0] == "cleanup"], "other readers' pins are left alone"
