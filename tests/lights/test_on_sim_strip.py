"""Animations played on the simulated strip, driven by the fake clock the way the box drives them.

The box paints a frame, shows it, and sleeps until ``next_change``; the
simulated strip records every frame that reached the pixels and when. So
these tests see what a child would see, and how often the Pi had to work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from controller.stage.lights import CARD_COLORS, SEAT_COLORS, Animation, ShipSail, Siren, TurnRing
from controller.stage.lights.colors import SEA
from hardware.clock import FakeClock
from hardware.events import EventSink
from hardware.pixels import SegmentSpec
from hardware.sim import SimLedStrip


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(100.0)


@pytest.fixture
def strip(clock: FakeClock) -> Iterator[SimLedStrip]:
    loop = asyncio.new_event_loop()
    leds = SimLedStrip(
        {"ring": 24, "sea": 30},
        {"turn-ring": SegmentSpec("ring", 0, 24), "sea-route": SegmentSpec("sea", 0, 30, reverse=True)},
        EventSink(loop), clock)
    leds.start()
    leds.frames.clear()
    yield leds
    loop.close()


def play(strip: SimLedStrip, segment: str, anim: Animation, clock: FakeClock, seconds: float) -> None:
    """Run ``anim`` for ``seconds`` of fake time, drawing only when it says its frame may change."""
    start = clock.monotonic()
    for _ in range(100_000):
        t = clock.monotonic() - start  # as the box reads it: a float, a hair off the step now and then
        strip.segment(segment).paint(anim.frame(t))
        strip.show()
        nxt = anim.next_change(t)
        if nxt is None or nxt > seconds:
            clock.advance(start + seconds - clock.monotonic())
            return
        clock.advance(start + nxt - clock.monotonic())
    raise AssertionError("the animation never let the loop move on")


def test_a_whole_turn_costs_a_handful_of_frames(strip: SimLedStrip, clock: FakeClock) -> None:
    ring = TurnRing(n=24, seat=2, players=3, match=CARD_COLORS["yellow"])
    play(strip, "turn-ring", ring, clock, seconds=300)  # five minutes of thinking
    assert len(strip.frames) <= ring.fade * TurnRing.fps + 2
    assert strip.frames[-1].at <= 100.0 + ring.fade
    shown = strip.shown("turn-ring")
    assert shown[16] == SEAT_COLORS[2] and shown[20] == CARD_COLORS["yellow"]


def test_the_ship_reaches_the_next_cell_on_a_strip_wired_backwards(strip: SimLedStrip, clock: FakeClock) -> None:
    sail = ShipSail(n=30, steps=2, ships=(0, 0), seat=0)
    play(strip, "sea-route", sail, clock, seconds=0.0)
    assert strip.shown("sea-route") == sail.frame(0)
    play(strip, "sea-route", sail, clock, seconds=sail.duration + 5)
    shown = strip.shown("sea-route")
    assert shown == sail.frame(sail.duration)
    assert shown.index(SEAT_COLORS[0]) >= 10 and SEA in shown
    # the segment runs backwards: pixel 0 of the animation is the strip's last pixel
    assert strip.frames[-1].pixels[::-1][:30] == tuple(shown)


def test_the_siren_is_seen_changing_every_step_and_then_stops(strip: SimLedStrip, clock: FakeClock) -> None:
    siren = Siren(n=24, wail=1.0)
    play(strip, "turn-ring", siren, clock, seconds=10)
    times = [f.at - 100.0 for f in strip.frames]
    assert len(times) == pytest.approx(Siren.fps * 1.0 + 1, abs=1)
    assert times[-1] == pytest.approx(1.0)
    assert strip.shown("turn-ring") == [(0, 0, 0)] * 24
