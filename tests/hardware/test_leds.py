"""The LED buffer and the WS2812 drivers: segments, change tracking, the brightness cap, the bytes on the wire."""

from __future__ import annotations

import asyncio

import pytest

from hardware.drivers.leds import NeoPixelSpiOutput
from hardware.events import EventSink
from hardware.pixels import PixelStrip, SegmentSpec, worst_case_milliamps
from hardware.sim import SimLedStrip
from tests.hardware.support import kinds, pump

SEGMENTS = {
    "sea-route": SegmentSpec("main", 0, 3),
    "turn-ring": SegmentSpec("main", 3, 3, reverse=True),
    "police-track": SegmentSpec("side", 0, 2),
}
RED, BLUE, WHITE = (255, 0, 0), (0, 0, 255), (255, 255, 255)


def strip(clock, brightness: float = 1.0) -> SimLedStrip:
    leds = SimLedStrip({"main": 6, "side": 2}, SEGMENTS, EventSink(), clock, brightness=brightness)
    leds.start()
    return leds


def test_segments_map_onto_their_strips_and_a_reversed_one_counts_backwards(clock):
    async def scenario():
        leds = strip(clock)
        leds.segment("sea-route").set(0, RED)
        leds.segment("turn-ring").set(0, BLUE)
        leds.segment("police-track").fill(WHITE)
        leds.show()
        main = [f for f in leds.frames if f.strip == "main"][-1].pixels
        side = [f for f in leds.frames if f.strip == "side"][-1].pixels
        assert main == (RED, (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), BLUE)
        assert side == (WHITE, WHITE)
        assert leds.segments == ("sea-route", "turn-ring", "police-track")
        assert len(leds.segment("turn-ring")) == 3 and leds.segment("turn-ring")[0] == BLUE

    asyncio.run(scenario())


def test_starting_darkens_every_strip_and_show_sends_only_what_changed(clock):
    async def scenario():
        leds = strip(clock)
        assert sorted(f.strip for f in leds.frames) == ["main", "side"]
        assert all(p == (0, 0, 0) for f in leds.frames for p in f.pixels)
        before = len(leds.frames)
        assert leds.show() is False
        leds.segment("sea-route").set(1, RED)
        leds.segment("sea-route").set(1, RED)
        assert leds.show() is True
        assert leds.show() is False
        leds.segment("police-track").set(0, (0, 0, 0))  # already dark: no change
        assert leds.show() is False
        assert [f.strip for f in list(leds.frames)[before:]] == ["main"]

    asyncio.run(scenario())


def test_the_brightness_cap_scales_what_goes_out_not_what_the_box_set(clock):
    async def scenario():
        leds = strip(clock, brightness=0.4)
        leds.segment("sea-route").paint([WHITE, (100, 50, 0)])
        leds.show()
        assert leds.shown("sea-route")[:2] == [(102, 102, 102), (40, 20, 0)]
        assert leds.segment("sea-route")[0] == WHITE

    asyncio.run(scenario())


def test_bad_colours_and_indices_are_the_callers_mistake(clock):
    async def scenario():
        leds = strip(clock)
        with pytest.raises(IndexError):
            leds.segment("sea-route").set(3, RED)
        with pytest.raises(ValueError):
            leds.segment("sea-route").set(0, (256, 0, 0))
        with pytest.raises(KeyError, match="sea-route"):
            leds.segment("rainbow")

    asyncio.run(scenario())


def test_stop_turns_the_strips_off(clock):
    async def scenario():
        leds = strip(clock)
        leds.segment("sea-route").fill(RED)
        leds.show()
        leds.stop()
        assert all(p == (0, 0, 0) for p in leds.frames[-1].pixels)

    asyncio.run(scenario())


def test_sixty_pixels_all_white_draw_three_point_six_amps():
    assert worst_case_milliamps(60, 1.0) == 3600
    assert worst_case_milliamps(60, 0.4) == pytest.approx(1440)


# -- neopixel_spi, with a fake SPI bus ----------------------------------------------------------
class FakeSpi:
    """busio.SPI as neopixel_spi's SPIDevice uses it; keeps every write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.configured: dict[str, int] = {}
        self.fail = False
        self.deinited = False

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(self, **settings: int) -> None:
        self.configured = settings

    def write(self, data: bytes) -> None:
        if self.fail:
            raise OSError(5, "Input/output error")
        self.writes.append(bytes(data))

    def deinit(self) -> None:
        self.deinited = True


def decode_ws2812(wire: bytes) -> list[tuple[int, int, int]]:
    """The GRB colours in an SPI stream where 0b11110000 is a one bit and 0b11000000 a zero."""
    bits = [1 if byte == 0b11110000 else 0 for byte in wire if byte in (0b11110000, 0b11000000)]
    values = [int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits), 8)]
    return [(values[i + 1], values[i], values[i + 2]) for i in range(0, len(values), 3)]


def test_neopixel_spi_sends_grb_bits_at_6_4_mhz(clock):
    async def scenario():
        bus = FakeSpi()
        output = NeoPixelSpiOutput(3, port=0, open_spi=lambda port: bus)
        leds = PixelStrip({"main": output}, {"all": SegmentSpec("main", 0, 3)}, EventSink(), clock, brightness=0.5)
        leds.start()
        leds.segment("all").paint([RED, (0, 200, 0), (1, 2, 3)])
        leds.show()
        leds.stop()
        assert bus.configured["baudrate"] == 6_400_000
        assert decode_ws2812(bus.writes[1]) == [(128, 0, 0), (0, 100, 0), (0, 1, 2)]
        assert bus.writes[1].startswith(b"\x00") and bus.writes[1].endswith(b"\x00"), "reset gaps around the frame"
        assert decode_ws2812(bus.writes[-1]) == [(0, 0, 0)] * 3
        assert bus.deinited

    asyncio.run(scenario())


def test_an_spi_write_failure_is_a_fault_and_a_retry(clock):
    async def scenario():
        sink, bus = EventSink(), FakeSpi()
        output = NeoPixelSpiOutput(2, open_spi=lambda port: bus)
        leds = PixelStrip({"main": output}, {"all": SegmentSpec("main", 0, 2)}, sink, clock)
        leds.start()
        bus.fail = True
        leds.segment("all").fill(BLUE)
        leds.show()
        bus.fail = False
        leds.show()
        await pump()
        assert kinds(sink.drain()) == ["DeviceFault", "DeviceRecovered"]
        assert decode_ws2812(bus.writes[-1]) == [BLUE, BLUE]

    asyncio.run(scenario())


def test_a_strip_that_cannot_open_is_a_fault_and_is_opened_on_a_later_show(clock):
    async def scenario():
        sink, bus = EventSink(), FakeSpi()
        attempts = []

        def open_spi(port: int) -> FakeSpi:
            attempts.append(port)
            if len(attempts) == 1:
                raise PermissionError(13, "Permission denied: '/dev/spidev1.0'")
            return bus

        leds = PixelStrip({"main": NeoPixelSpiOutput(2, port=1, open_spi=open_spi)}, {}, sink, clock)
        leds.start()
        assert "Permission denied" in leds.fault
        leds.show()
        await pump()
        assert leds.fault is None and attempts == [1, 1]
        assert kinds(sink.drain()) == ["DeviceFault", "DeviceRecovered"]

    asyncio.run(scenario())


# -- neopixel (PWM), with a fake neopixel module ---------------------------------------------------
