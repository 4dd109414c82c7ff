"""The simulated devices: what they record, what they accept, and how they break."""

from __future__ import annotations

import asyncio
import threading

from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    ButtonReleased,
    DeviceFault,
    DeviceRecovered,
    EventSink,
    PuckPressed,
    TagGone,
    TagSeen,
)
from hardware.pixels import SegmentSpec
from hardware.sim import SOUNDS_KEPT, Played, SimButton, SimLedStrip, SimPuck, SimReader, SimSpeaker
from hardware.speaker import UNKNOWN_KEPT
from tests.hardware.support import kinds, pump

UID = bytes.fromhex("04a1b2c3d4e5f6")
SEGMENTS = {
    "sea-route": SegmentSpec("main", 0, 4),
    "turn-ring": SegmentSpec("main", 4, 3, reverse=True),
}


# -- buttons -------------------------------------------------------------------------
def test_a_sim_button_presses_releases_and_is_held_after_its_hold_time(clock):
    async def scenario():
        sink = EventSink()
        button = SimButton("die", sink, clock, bounce_time=0.0, hold_time=1.5)
        button.start()
        button.press()
        await clock.run_for(2.0)
        button.release()
        await pump()
        button.stop()
        assert sink.drain() == [
            ButtonPressed("die", at=0.0),
            ButtonHeld("die", at=1.5),
            ButtonReleased("die", at=2.0),
        ]

    asyncio.run(scenario())


def test_hold_holds_at_once_and_only_once(clock):
    async def scenario():
        sink = EventSink()
        button = SimButton("red", sink, clock, hold_time=2.0)
        button.hold()
        await clock.run_for(5.0)
        button.release()
        await pump()
        assert kinds(sink.drain()) == ["ButtonPressed", "ButtonHeld", "ButtonReleased"]

    asyncio.run(scenario())


def test_sim_buttons_are_debounced_like_real_ones(clock):
    async def scenario():
        sink = EventSink()
        button = SimButton("die", sink, clock, bounce_time=0.03)
        button.press()
        button.release()
        button.press()
        await clock.run_for(0.1)
        assert kinds(sink.drain()) == ["ButtonPressed"]

    asyncio.run(scenario())


def test_presses_from_another_thread_arrive_on_the_loop_in_order(clock):
    async def scenario():
        sink = EventSink()
        button = SimButton("die", sink, clock, bounce_time=0.0)
        worker = threading.Thread(target=lambda: [step() for _ in range(50) for step in (button.press, button.release)])
        worker.start()
        worker.join(5)
        events = [await asyncio.wait_for(sink.get(), 5) for _ in range(100)]
        assert kinds(events) == ["ButtonPressed", "ButtonReleased"] * 50

    asyncio.run(scenario())


def test_a_broken_sim_button_reports_a_fault_and_ignores_presses(clock):
    async def scenario():
        sink = EventSink()
        button = SimButton("die", sink, clock)
        button.fail("cable cut")
        button.press()
        await pump()
        button.recover()
        await pump()
        events = sink.drain()
        assert events == [DeviceFault("button:die", "cable cut", at=0.0), DeviceRecovered("button:die", at=0.0)]

    asyncio.run(scenario())


# -- readers ---------------------------------------------------------------------------
def test_tap_and_remove(clock):
    async def scenario():
        sink = EventSink()
        reader = SimReader("table", sink, clock)
        reader.start()
        reader.tap(UID, "red-3")
        clock.advance(0.5)
        reader.remove()
        reader.remove()  # nothing there any more: nothing to say
        await pump()
        assert sink.drain() == [TagSeen("table", UID, "red-3", at=0.0), TagGone("table", UID, at=0.5)]

    asyncio.run(scenario())


def test_tapping_a_second_card_lifts_the_first_and_uids_may_be_hex_text(clock):
    async def scenario():
        sink = EventSink()
        reader = SimReader("table", sink, clock)
        reader.start()
        reader.tap("04:A1:B2:C3:D4:E5:F6")
        reader.tap(bytes.fromhex("deadbeef"))
        await pump()
        assert sink.drain() == [
            TagSeen("table", UID, None, at=0.0),
            TagGone("table", UID, at=0.0),
            TagSeen("table", bytes.fromhex("deadbeef"), None, at=0.0),
        ]

    asyncio.run(scenario())


def test_a_failing_reader_loses_its_card_reads_nothing_and_recovers(clock):
    async def scenario():
        sink = EventSink()
        reader = SimReader("table", sink, clock)
        reader.start()
        reader.tap(UID)
        reader.fail("I/O error")
        reader.tap(UID)
        reader.recover()
        reader.tap(UID)
        await pump()
        assert kinds(sink.drain()) == ["TagSeen", "TagGone", "DeviceFault", "DeviceRecovered", "TagSeen"]

    asyncio.run(scenario())


def test_an_unplugged_reader_says_so_and_comes_back(clock):
    async def scenario():
        sink = EventSink()
        reader = SimReader("table", sink, clock)
        reader.start()
        reader.unplug()
        reader.plug()
        await pump()
        fault, back = sink.drain()
        assert fault == DeviceFault("reader:table", "reader:table disappeared", at=0.0)
        assert back == DeviceRecovered("reader:table", at=0.0)
        assert reader.fault is None

    asyncio.run(scenario())


def test_a_stopped_reader_reads_nothing(clock):
    async def scenario():
        sink = EventSink()
        reader = SimReader("table", sink, clock)
        reader.tap(UID)
        await pump()
        assert sink.drain() == []

    asyncio.run(scenario())


# -- LEDs --------------------------------------------------------------------------------
def test_the_sim_strip_records_each_frame_with_its_time(clock):
    async def scenario():
        leds = SimLedStrip({"main": 8}, SEGMENTS, EventSink(), clock)
        leds.start()
        clock.advance(1.0)
        leds.segment("sea-route").set(1, (255, 0, 0))
        leds.show()
        assert [frame.at for frame in leds.frames] == [0.0, 1.0]
        assert leds.frames[-1].pixels[1] == (255, 0, 0)
        assert leds.shown("sea-route") == [(0, 0, 0), (255, 0, 0), (0, 0, 0), (0, 0, 0)]

    asyncio.run(scenario())


def test_a_failed_led_write_is_a_fault_and_the_next_show_sends_it_again(clock):
    async def scenario():
        sink = EventSink()
        leds = SimLedStrip({"main": 8}, SEGMENTS, sink, clock)
        leds.start()
        leds.fail_writes()
        leds.segment("turn-ring").fill((0, 0, 255))
        assert leds.show() is False
        leds.repair()
        assert leds.show() is True
        await pump()
        events = sink.drain()
        assert kinds(events) == ["DeviceFault", "DeviceRecovered"]
        assert "write failed" in events[0].message
        assert leds.shown("turn-ring") == [(0, 0, 255)] * 3

    asyncio.run(scenario())


# -- speaker -------------------------------------------------------------------------------
def test_the_sim_speaker_records_what_it_played_where_and_when(clock, tmp_path):
    bark = tmp_path / "bark.wav"
    bark.write_bytes(b"RIFF")
    fanfare = tmp_path / "fanfare.wav"
    fanfare.write_bytes(b"RIFF")

    async def scenario():
        speaker = SimSpeaker(EventSink(), clock, channels=("voice", "fx", "music"), max_volume=0.8)
        speaker.start({"bark": bark, "fanfare": fanfare})
        speaker.play("fanfare", "music")
        clock.advance(0.25)
        speaker.play("bark")
        speaker.play("meow")
        speaker.play("bark", "nowhere")
        speaker.silence("music")
        speaker.volume = 1.0
        assert list(speaker.played) == [
            Played(0.0, "fanfare", "music"),
            Played(0.25, "bark", "voice"),
            Played(0.25, "bark", "voice"),
        ]
        assert list(speaker.unknown) == ["meow"]
        assert list(speaker.silenced) == [(0.25, "music")]
        assert speaker.volume == 0.8
        assert speaker.sounds == ("bark", "fanfare")

    asyncio.run(scenario())


def test_missing_sound_files_are_a_fault_and_the_others_still_play(clock, tmp_path):
    bark = tmp_path / "bark.wav"
    bark.write_bytes(b"RIFF")

    async def scenario():
        sink = EventSink()
        speaker = SimSpeaker(sink, clock)
        speaker.start({"bark": bark, "whistle": tmp_path / "whistle.wav"})
        speaker.play("bark")
        await pump()
        (fault,) = sink.drain()
        assert "whistle" in fault.message and "bark" not in fault.message
        assert [played.name for played in speaker.played] == ["bark"]

    asyncio.run(scenario())


def test_a_speaker_without_audio_device_plays_nothing_until_it_is_back(clock, tmp_path):
    bark = tmp_path / "bark.wav"
    bark.write_bytes(b"RIFF")

    async def scenario():
        sink = EventSink()
        speaker = SimSpeaker(sink, clock)
        speaker.start({"bark": bark})
        speaker.unplug()
        speaker.play("bark")
        speaker.plug()
        speaker.play("bark")
        await pump()
        assert kinds(sink.drain()) == ["DeviceFault", "DeviceRecovered"]
        assert len(speaker.played) == 1

    asyncio.run(scenario())


def test_a_long_session_keeps_only_the_latest_sounds_and_counts_them_all(clock, tmp_path):
    bark = tmp_path / "bark.wav"
    bark.write_bytes(b"RIFF")

    async def scenario():
        speaker = SimSpeaker(EventSink(), clock)
        speaker.start({"bark": bark})
        for _ in range(SOUNDS_KEPT + 500):
            clock.advance(1)
            speaker.play("bark")
            speaker.play("meow")
            speaker.silence()
        return speaker

    speaker = asyncio.run(scenario())
    assert speaker.played_count == SOUNDS_KEPT + 500
    assert len(speaker.played) == len(speaker.silenced) == SOUNDS_KEPT
    assert (speaker.played[0].at, speaker.played[-1].at) == (501, SOUNDS_KEPT + 500)
    assert len(speaker.unknown) == UNKNOWN_KEPT


# -- die puck --------------------------------------------------------------------------------
def test_the_sim_puck_is_pressed_shows_faces_and_can_be_unplugged(clock):
    async def scenario():
        sink = EventSink()
        puck = SimPuck("die", sink, clock)
        puck.start()
        puck.press()
        puck.show("cat")
        puck.unplug()
        puck.press()
        puck.show("dog")
        puck.plug()
        await pump()
        assert kinds(sink.drain()) == ["PuckPressed", "DeviceFault", "DeviceRecovered"]
        assert puck.faces == [(0.0, "cat")]
        assert PuckPressed("die", at=0.0).puck == "die"

    asyncio.run(scenario())
