"""Teaching the box its cards from the family's page: a walk through a deck that takes the box's taps while it runs.

An enrolment binds each tapped tag to the card asked for (refusing a tag
that is another card, there and then); a sticker walk writes each card's id
onto a blank sticker (a PN532 can). Both are the ones ``gamebox enroll`` and
``gamebox tags write`` use (:mod:`controller.enroll`), on the running box's
reader, registry and voice; the page follows the walk through :meth:`Walks.state`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

from controller.control.ops import Refused
from controller.decks import deck_of, enrollable
from controller.enroll import Enrolment, StickerWriter
from hardware.events import TagSeen

log = logging.getLogger("gamebox.control")

SAID_KEPT = 3  # the walk's last lines, for the page (the newest one says what the last tap did)


class Walks:
    """The one walk under way (or none), fed by the taps the daemon hands over before the box sees them."""

    def __init__(self, box: Any, devices: Any) -> None:
        self.box, self.devices = box, devices
        self.walk: Enrolment | StickerWriter | None = None
        self.said: deque[str] = deque(maxlen=SAID_KEPT)
        self.wrong: str | None = None  # the card the last refused tag already is, for the page to show
        self._writing: asyncio.Task | None = None

    def writer_reader(self) -> Any:
        """The reader that can write stickers, if the box has one."""
        return next((r for r in self.devices.readers.values() if hasattr(r, "write_text")), None)

    def took(self, event: Any) -> bool:
        if not isinstance(event, TagSeen) or self.walk is None:
            return False
        if isinstance(self.walk, StickerWriter):
            if self._writing is None or self._writing.done():  # one sticker at a time: another tap waits its turn
                self._writing = asyncio.get_running_loop().create_task(self._write(self.walk, event))
        else:
            asked, known = self.walk.left[:1], self.box.registry.resolve(event.uid, event.text)
            self.walk.tag(event.uid, event.text)
            self.wrong = known if known is not None and known not in asked else None
            self._finished()
        return True

    async def _write(self, walk: StickerWriter, seen: TagSeen) -> None:
        await walk.sticker(self.writer_reader(), seen)
        self.box.stage.tick()
        self._finished()

    def _finished(self) -> None:
        if self.walk is not None and self.walk.done:
            log.info("%s: the walk through the deck is done", self.walk.deck)
            self.walk = None

    def cards(self, deck: str) -> dict[str, Any]:
        """Every card of a deck, in enrolment order, and whether its tag is enrolled."""
        enrolled = self.box.registry.enrolled(deck)
        return {"deck": deck, "can_write": self.writer_reader() is not None,
                "cards": [{"card": card, "enrolled": card in enrolled} for card in enrollable(deck)]}

    def begin(self, deck: str, card: str | None, write: bool) -> dict[str, Any]:
        if self.box.playing:
            raise Refused("a game is under way: teach the box its cards between games", key="enrol_playing")
        if card is not None and deck_of(card) != deck:
            raise Refused(f"{card} is not a card of {deck}", key="enrol_not_of_deck", card=card, deck=deck)
        if write and self.writer_reader() is None:
            raise Refused("this box's reader cannot write stickers (a PN532 can)", key="enrol_cannot_write")
        self.said.clear()
        self.wrong = None
        walk = (StickerWriter if write else Enrolment)(deck, self.box.registry, self.box.stage, self.said.append)
        if card is not None:
            self.box.registry.forget(card)
            if write:
                walk.cards = [card]
            else:
                walk.left = [card]
        self.walk = walk
        walk.ask()
        return self.state()

    def state(self) -> dict[str, Any]:
        walk = self.walk
        if walk is None:
            return {"walking": False, "said": list(self.said)}
        if isinstance(walk, StickerWriter):
            upcoming, done, total = walk.cards[walk.index:], walk.index, len(walk.cards)
        else:
            upcoming, done, total = walk.left, len(self.box.registry.enrolled(walk.deck)), walk.total
        return {"walking": True, "writing": isinstance(walk, StickerWriter), "deck": walk.deck,
                "next": upcoming[0] if upcoming else None, "enrolled": done, "total": total, "said": list(self.said),
                "wrong": self.wrong}

    def stop(self) -> dict[str, Any]:
        self.walk = None
        return {"walking": False}

    def forget(self, card: str) -> dict[str, Any]:
        if deck_of(card) is None:
            raise Refused(f"no card {card!r}", key="enrol_no_card", card=card)
        self.box.registry.forget(card)
        return {"forgotten": card}
