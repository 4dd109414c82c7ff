"""The keyboard-like USB reader, through evdev, with synthetic key events."""

from __future__ import annotations

import asyncio
import threading

import pytest

from hardware.clock import SystemClock
from hardware.drivers.keyboard import KeyboardReader, open_evdev, uid_from_typed
from hardware.events import DeviceFault, EventSink, TagSeen
from hardware.faults import Backoff
from tests.hardware.fake_evdev import FakeInputBus
from tests.hardware.support import events_until, kinds, next_event

PATH = "/dev/input/by-id/usb-IC_Reader-event-kbd"


def reader(sink: EventSink, bus: FakeInputBus, uid_format: str = "decimal") -> KeyboardReader:
    return KeyboardReader(
        "door",
        sink,
        SystemClock(),
        path=PATH,
        uid_format=uid_format,
        open_device=bus.open,
        backoff=Backoff(0.001, 2, 0.01),
    )


def test_a_typed_uid_becomes_a_tag_seen_and_the_device_is_grabbed():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        door = reader(sink, bus)
        door.start()
        try:
            device = bus.wait_opened(1)
            device.type("0004276543")
            seen = await next_event(sink)
        finally:
            door.stop()
        assert isinstance(seen, TagSeen)
        assert (seen.reader, seen.uid, seen.text) == ("door", (4276543).to_bytes(4, "big"), None)
        assert device.grabbed and device.path == PATH
        assert device.closed, "stopping releases the device"

    asyncio.run(scenario())


def test_waking_with_nothing_to_read_is_not_a_fault():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        door = reader(sink, bus)
        door.start()
        try:
            device = bus.wait_opened(1)
            device.wake_without_events()
            assert device.read_nothing.wait(5)
            device.type("99")
            seen = await next_event(sink)
        finally:
            door.stop()
        assert isinstance(seen, TagSeen) and door.fault is None and len(bus.opened) == 1

    asyncio.run(scenario())


def test_hex_readers_give_the_uid_bytes_they_type():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        door = reader(sink, bus, uid_format="hex")
        door.start()
        try:
            bus.wait_opened(1).type("04A1B2C3D4E5F6")
            seen = await next_event(sink)
        finally:
            door.stop()
        assert seen.uid == bytes.fromhex("04a1b2c3d4e5f6")

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("typed", "uid_format", "uid"),
    [
        ("3735928559", "decimal", bytes.fromhex("deadbeef")),
        ("1234", "decimal", (1234).to_bytes(4, "big")),
        ("1213975879541238", "decimal", (1213975879541238).to_bytes(7, "big")),
        ("abc", "hex", bytes.fromhex("0abc")),
        ("12ab", "decimal", None),
        ("xyz", "hex", None),
    ],
)
def test_typed_text_to_uid(typed, uid_format, uid):
    assert uid_from_typed(typed, uid_format) == uid


def test_unplugging_is_a_fault_and_plugging_back_recovers():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        door = reader(sink, bus)
        door.start()
        try:
            first = bus.wait_opened(1)
            bus.plugged = False
            first.unplug()
            fault = await next_event(sink)
            bus.plugged = True
            second = bus.wait_opened(2)
            second.type("42")
            back = await events_until(sink, lambda e: isinstance(e, TagSeen))
        finally:
            door.stop()
        assert isinstance(fault, DeviceFault) and "No such device" in fault.message
        assert kinds(back) == ["DeviceRecovered", "TagSeen"]
        assert back[-1].uid == (42).to_bytes(4, "big")
        assert first.closed

    asyncio.run(scenario())


def test_a_reader_missing_at_start_is_a_fault_and_stop_does_not_wait_for_it():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        bus.plugged = False
        door = KeyboardReader("door", sink, SystemClock(), path=PATH, open_device=bus.open, backoff=Backoff(60, 2, 60))
        door.start()
        assert door.wait_started(5)
        fault = await next_event(sink)
        door.stop()
        assert isinstance(fault, DeviceFault) and PATH in fault.message
        assert not [t for t in threading.enumerate() if t.name == "reader:door"], "stop woke the 60 s retry wait"

    asyncio.run(scenario())


def test_stop_wakes_a_reader_waiting_for_keys():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        door = reader(sink, bus)
        door.start()
        bus.wait_opened(1)
        door.stop()
        assert not [t for t in threading.enumerate() if t.name == "reader:door"]
        assert sink.drain() == []

    asyncio.run(scenario())


def test_opening_a_path_that_is_not_there_fails_plainly():
    with pytest.raises(OSError):
        open_evdev("/dev/input/by-id/no-such-reader")


def test_many_failed_opens_are_one_fault_and_one_recovery():
    async def scenario():
        sink, bus = EventSink(), FakeInputBus()
        bus.plugged = False
        door = reader(sink, bus)
        door.start()
        try:
            bus.wait_attempts(5)
            bus.plugged = True
            bus.wait_opened(1).type("7")
            events = await events_until(sink, lambda e: isinstance(e, TagSeen))
        finally:
            door.stop()
        assert kinds(events) == ["DeviceFault", "DeviceRecovered", "TagSeen"]

    asyncio.run(scenario())
