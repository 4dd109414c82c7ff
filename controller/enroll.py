"""Teaching the box its tags: ``gamebox enroll DECK`` and ``gamebox tags write DECK``.

Enrolment: the box names each card (a terminal line, a spoken prompt and a
light), the player taps that card's tag, and the registry remembers it. A
tag already enrolled as another card is refused. Stopping half-way is fine:
the next ``enroll`` of the same deck starts at the first card not yet
enrolled.

Writing: each card's id goes onto a blank NTAG sticker as an NDEF text
record, so any box reads it without enrolment; the registry learns the uid
as well. A sticker that already names a card is left alone.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

from controller.box.tags import Registry, TagTaken
from controller.config import Config
from controller.decks import deck_of, enrollable
from controller.siminput import SimInput
from controller.stage.shows import ShowBook
from controller.stage.stage import DeviceStage
from controller.storage.lock import StateLock
from hardware.clock import Clock, SystemClock
from hardware.events import DeviceFault, EventSink, TagSeen
from hardware.factory import build_devices
from hardware.profile import load_profile


class Enrolment:
    """The walk through one deck: which card is next, and what a tapped tag does."""

    def __init__(self, deck: str, registry: Registry, stage: Any, out: Callable[[str], None]) -> None:
        self.deck, self.registry, self.stage, self.out = deck, registry, stage, out
        self.total = len(enrollable(deck))
        self.left = registry.remaining(deck)

    @property
    def done(self) -> bool:
        return not self.left

    def ask(self) -> None:
        """Name the card to tap next (or say the deck is complete)."""
        if self.done:
            self.out(f"{self.deck}: all {self.total} cards enrolled")
            self.stage.show("enrolled")
            return
        number = self.total - len(self.left) + 1
        self.out(f"{self.deck} {number}/{self.total}: tap the tag of {self.left[0]}")
        self.stage.prompt("enroll-next", card=self.left[0])

    def tag(self, uid: bytes, text: str | None = None) -> None:
        """A tag was laid on the reader: enrol it as the card asked for, or refuse it."""
        if self.done:
            return
        card = self.left[0]
        named = text.strip() if text else None
        if named and deck_of(named) and named != card:
            self.out(f"refused: this tag's text already says {named}, so the box would always read it as "
                     f"{named}; tap the tag of {card}")
            self.stage.show("rejected", code="card_elsewhere", key="tag_taken", reason=f"the tag says {named}")
            self.stage.prompt("enroll-next", card=card)  # what to do instead: the card asked for, with its own tag
            return
        try:
            self.registry.enroll(uid, card)
        except TagTaken as exc:
            self.out(f"refused: {exc}; tap the tag of {card}")
            self.stage.show("rejected", code="card_elsewhere", key="tag_taken", reason=str(exc))
            self.stage.prompt("enroll-next", card=card)
            return
        self.stage.show("accepted", action="enroll")
        self.left.pop(0)
        self.ask()


class StickerWriter:
    """The walk through one deck's stickers."""

    def __init__(self, deck: str, registry: Registry, stage: Any, out: Callable[[str], None]) -> None:
        self.deck, self.registry, self.stage, self.out = deck, registry, stage, out
        self.cards = list(enrollable(deck))
        self.index = 0

    @property
    def done(self) -> bool:
        return self.index >= len(self.cards)

    def ask(self) -> None:
        if self.done:
            self.out(f"{self.deck}: all {len(self.cards)} stickers written")
            self.stage.show("enrolled")
            return
        self.out(f"{self.deck} {self.index + 1}/{len(self.cards)}: lay a blank sticker for {self.cards[self.index]}")
        self.stage.prompt("enroll-next", card=self.cards[self.index])

    async def sticker(self, reader: Any, seen: TagSeen) -> None:
        """A sticker lies on the reader: write the card asked for onto it, unless it names a card already."""
        card = self.cards[self.index]
        if seen.text and deck_of(seen.text):
            self.out(f"this sticker already says {seen.text}: lay a blank one for {card}")
            self.stage.show("rejected", code="card_elsewhere", key="tag_taken")
            self.stage.prompt("enroll-next", card=card)
            return
        try:
            uid = await asyncio.wrap_future(reader.write_text(card, seen.uid))
            self.registry.enroll(uid, card)
        except TagTaken as exc:
            self.out(f"refused: {exc}; lay a blank sticker for {card}")
            self.stage.show("rejected", code="card_elsewhere", key="tag_taken")
            self.stage.prompt("enroll-next", card=card)
            return
        except Exception as exc:  # the reader's or the tag's: say it, and ask again
            self.out(f"writing failed ({exc}); lay the sticker on the reader again")
            self.stage.show("rejected", code="wrong_action", key="write_failed")
            return
        self.out(f"{card} written on {uid.hex()}")
        self.stage.show("accepted", action="write")
        self.index += 1
        self.ask()


Feed = Callable[[Any], Awaitable[None]]


def stdin_feed(clock: Clock, out: Callable[[str], None]) -> Feed:
    """Standard input driving the simulated reader; a sticker lies there until the next one is laid."""
    return lambda devices: SimInput(devices, clock, out, lift=False).read_stdin()


@asynccontextmanager
async def tag_session(config: Config, clock: Clock, feed: Feed | None, what: str):
    """The profile's devices, a stage and the registry, with the tag events as an async iterator.

    ``feed`` (the sim profile's standard input, or a test) drives the
    simulated devices; the events end when it does. The state directory's
    lock is held throughout (``what`` names this command to a second one):
    the registry is never written while a box runs there.
    """
    lock = StateLock(config.state_dir, what)
    lock.acquire()
    sink = EventSink(asyncio.get_running_loop())
    try:
        devices = build_devices(load_profile(config.profile), sink, clock)
        stage = DeviceStage.for_devices(devices, ShowBook.load(), clock, config)
        registry = Registry(config.state_dir / "tags.sqlite")
    except BaseException:
        lock.release()
        raise
    devices.start(stage.sounds)
    feeder = asyncio.create_task(feed(devices)) if feed else None

    async def events() -> AsyncIterator[Any]:
        while True:
            if feeder is not None and feeder.done():
                await asyncio.sleep(0.05)  # input ended: take what it still sent
                for event in sink.drain():
                    yield event
                return
            getter = asyncio.create_task(sink.get())
            await asyncio.wait({getter} | ({feeder} if feeder else set()), return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()

    try:
        yield devices, stage, registry, events()
    finally:
        if feeder is not None:
            feeder.cancel()
        devices.stop()
        registry.close()
        lock.release()


async def enroll_loop(deck: str, config: Config, clock: Clock, out: Callable[[str], None], feed: Feed | None) -> int:
    """Enrol a deck on the profile's reader until it is complete (or input ends)."""
    async with tag_session(config, clock, feed, "enroll") as (_devices, stage, registry, events):
        enrolment = Enrolment(deck, registry, stage, out)
        if len(enrolment.left) < enrolment.total:
            out(f"resuming: {enrolment.total - len(enrolment.left)} of {enrolment.total} already enrolled")
        enrolment.ask()
        stage.tick()
        async for event in events:
            if isinstance(event, TagSeen):
                enrolment.tag(event.uid, event.text)
            elif isinstance(event, DeviceFault):
                out(f"device problem: {event.device}: {event.message}")
            stage.tick()
            if enrolment.done:
                break
        if not enrolment.done:
            out(f"stopped with {len(enrolment.left)} cards left; run enroll {deck} again to go on")
            return 1
    return 0


async def write_loop(deck: str, config: Config, clock: Clock, out: Callable[[str], None], feed: Feed | None) -> int:
    """Write a deck's ids onto blank stickers, one after another."""
    async with tag_session(config, clock, feed, "tags write") as (devices, stage, registry, events):
        reader = next(iter(devices.readers.values()), None)
        if reader is None or not hasattr(reader, "write_text"):
            out("this profile has no reader that can write stickers (a PN532 can)")
            return 2
        writer = StickerWriter(deck, registry, stage, out)
        writer.ask()
        async for event in events:
            if isinstance(event, TagSeen):
                await writer.sticker(reader, event)
            elif isinstance(event, DeviceFault):
                out(f"device problem: {event.device}: {event.message}")
            stage.tick()
            if writer.done:
                break
        return 0 if writer.done else 1


def run_enroll(deck: str, config: Config, out: Callable[[str], None] = print) -> int:
    """The ``gamebox enroll`` command."""
    clock = SystemClock()
    feed = stdin_feed(clock, out) if config.profile == "sim" else None
    return asyncio.run(enroll_loop(deck, config, clock, out, feed))


def run_write(deck: str, config: Config, out: Callable[[str], None] = print) -> int:
    """The ``gamebox tags write`` command."""
    clock = SystemClock()
    feed = stdin_feed(clock, out) if config.profile == "sim" else None
    return asyncio.run(write_loop(deck, config, clock, out, feed))
