"""``gamebox enroll DECK``: teach the box which tag is which card, one card at a time.

The box names each card (a terminal line, a spoken prompt and a light), the
player taps that card's tag, and the registry remembers it. A tag already
enrolled as another card is refused. Stopping half-way is fine: the next
``enroll`` of the same deck starts at the first card not yet enrolled.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from controller.config import Config
from controller.decks import DECKS, enrollable
from controller.shows import ShowBook
from controller.siminput import SimInput
from controller.stage import DeviceStage
from controller.tags import Registry, TagTaken
from hardware.clock import Clock, SystemClock
from hardware.events import DeviceFault, EventSink, TagSeen
from hardware.profile import build_devices, load_profile

log = logging.getLogger("gamebox.enroll")

DECK_NAMES: tuple[str, ...] = (*DECKS, "control")


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

    def tag(self, uid: bytes) -> None:
        """A tag was laid on the reader: enrol it as the card asked for, or refuse it."""
        if self.done:
            return
        card = self.left[0]
        try:
            self.registry.enroll(uid, card)
        except TagTaken as exc:
            self.out(f"refused: {exc}; tap the tag of {card}")
            self.stage.show("rejected", code="card_elsewhere")
            self.stage.prompt("enroll-taken")
            return
        self.stage.show("accepted", action="enroll")
        self.left.pop(0)
        self.ask()


async def enroll_loop(deck: str, config: Config, clock: Clock, out: Callable[[str], None], stdin: bool) -> int:
    """Run an enrolment on the profile's devices until the deck is complete (or input ends)."""
    sink = EventSink(asyncio.get_running_loop())
    devices = build_devices(load_profile(config.profile), sink, clock)
    stage = DeviceStage.for_devices(devices, ShowBook.load(), clock, config)
    registry = Registry(config.state_dir / "tags.sqlite")
    enrolment = Enrolment(deck, registry, stage, out)
    devices.start(stage.sounds)
    feeder = None
    try:
        if len(enrolment.left) < enrolment.total:
            out(f"resuming: {enrolment.total - len(enrolment.left)} of {enrolment.total} already enrolled")
        enrolment.ask()
        stage.tick()
        if stdin:
            feeder = asyncio.create_task(SimInput(devices, clock, out).read_stdin())
        def handle(event: Any) -> None:
            if isinstance(event, TagSeen):
                enrolment.tag(event.uid)
            elif isinstance(event, DeviceFault):
                out(f"device problem: {event.device}: {event.message}")
            stage.tick()

        while not enrolment.done:
            if feeder is not None and feeder.done():
                await asyncio.sleep(0.05)  # standard input ended: take what it still sent, then stop
                for event in sink.drain():
                    handle(event)
                break
            getter = asyncio.create_task(sink.get())
            await asyncio.wait({getter} | ({feeder} if feeder else set()), return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                handle(getter.result())
            else:
                getter.cancel()
    finally:
        if feeder is not None:
            feeder.cancel()
        devices.stop()
        registry.close()
    if not enrolment.done:
        out(f"stopped with {len(enrolment.left)} cards left; run enroll {deck} again to go on")
        return 1
    return 0


def run_enroll(deck: str, config: Config, clock: Clock | None = None, out: Callable[[str], None] = print) -> int:
    """The ``gamebox enroll`` command."""
    return asyncio.run(enroll_loop(deck, config, clock or SystemClock(), out, stdin=config.profile == "sim"))
