"""What the broker has not acknowledged, read back from the journal: the table's events survive a long absence and a restart.

Why from the journal and not a spool of its own: the journal already holds
every accepted action (with its time) and every game's end, durably, in
order; a second copy would be a second file to keep safe on a full or
failing card, and could disagree with the first. So the link keeps only a
*place*: ``(game id, n)``, where an action's place is its ``seq`` and a
game's end is the place after its last action. The last place the broker
acknowledged is stored as a journal setting (a few bytes, written with the
heartbeat, at a disconnection and at a clean stop); the events after it are
rebuilt from the journal, in batches, by replaying each game's referee (for
the ``events`` each action caused). A power cut may resend the last few
seconds' events after the restart: their ``game_id`` and ``seq`` say which.
"""

from __future__ import annotations

import logging
from typing import Any

from controller.games import engine_class
from controller.games.base import Rejection
from controller.station.outbox import Outbox, Place
from controller.storage.journal import Journal, JournalError

log = logging.getLogger("gamebox.station")

MARK = "station_acknowledged"  # the journal setting holding the last place the broker acknowledged
NOWHERE: Place = (0, -1)  # before every game (a game's end is at the seq after its last action)


def end_of(journal: Journal) -> Place:
    """The place of the last table event the journal holds."""
    latest = journal.latest()
    if latest is None:
        return NOWHERE
    return latest.id, latest.actions if latest.ended is not None else latest.actions - 1


def read_mark(journal: Journal) -> Place | None:
    value = journal.setting(MARK)
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return value[0], value[1]
    return None


def write_mark(journal: Journal, place: Place) -> None:
    try:
        journal.set_setting(MARK, list(place))
    except JournalError as exc:  # the box already says the journal fails; the events are resent at worst
        log.debug("could not keep the broker's acknowledged place: %s", exc)


def events_after(journal: Journal, station: str, after: Place, most: int) -> list[tuple[Place, dict[str, Any]]]:
    """Up to ``most`` table events after ``after``, in order, as the link sends them live (``at``: when they happened)."""
    out: list[tuple[Place, dict[str, Any]]] = []
    latest = journal.latest()
    game_id = after[0]
    while latest is not None and game_id <= latest.id and len(out) < most:
        record = journal.game(game_id)
        if record is not None:
            out += _game_events(journal, station, record, after[1] if game_id == after[0] else -1, most - len(out))
        game_id += 1
    return out


def _game_events(journal: Journal, station: str, record: Any, after: int, most: int) -> list[tuple[Place, dict[str, Any]]]:
    try:
        actions, times = journal.actions(record.id), journal.action_times(record.id)
        engine = engine_class(record.game)(record.players, record.options)
    except (JournalError, ValueError) as exc:  # a game the box itself set aside: nothing of it can be told
        log.warning("game %s cannot be read back for the broker: %s", record.id, exc)
        return []
    out = []
    for seq, (action, at) in enumerate(zip(actions, times)):
        if len(out) >= most:
            return out
        result = engine.apply(action)
        if isinstance(result, Rejection):
            log.warning("game %s does not replay at action %d for the broker: %s", record.id, seq, result.message)
            return out
        if seq > after:
            out.append(((record.id, seq), {"station": station, "at": at, "kind": "action", "seq": seq,
                                           "game_id": record.id, "action": action, "events": list(result.events)}))
    end = len(actions)
    if record.ended is not None and end > after and len(out) < most:
        out.append(((record.id, end), {"station": station, "at": record.ended, "kind": "game_over", "game_id": record.id,
                                       "game": record.game, "winners": record.winners or [], "started_at": record.started}))
    return out


class Catchup:
    """The link's place in the table's events: what the broker acknowledged, what is queued, whether the journal
    holds more than the outbox (then live events are not queued: they are read back in order)."""

    def __init__(self, journal: Journal, outbox: Outbox, topic: str, station: str) -> None:
        self.journal, self.outbox, self.topic, self.station = journal, outbox, topic, station
        try:
            end, mark = end_of(journal), read_mark(journal)
        except JournalError as exc:  # the box says the journal fails; the link starts from nothing
            log.warning("cannot read the journal for the broker: %s", exc)
            end = mark = NOWHERE
        if mark is None:  # a box new to the broker: its past games are not sent
            mark = end
            write_mark(journal, mark)
        self.acknowledged = self._saved = self._queued = mark
        self.behind = end > mark

    def table(self, place: Place, event: dict[str, Any]) -> None:
        """A live table event: queued, or once the outbox is full (and until caught up) read back later."""
        if not self.behind and self.outbox.event(self.topic, event, place):
            self._queued = place
        else:
            self.behind = True

    def undone(self, place: Place) -> None:
        """An action taken back (``place`` is the one before it): the next one takes its seq, to be told again."""
        self.acknowledged, self._queued = min(self.acknowledged, place), min(self._queued, place)

    def refill(self) -> None:
        """Behind, with no table event left in the outbox: the next batch read back from the journal."""
        if not self.behind or self.outbox.table_waiting:
            return
        try:
            batch = events_after(self.journal, self.station, self._queued, self.outbox.table_size)
        except JournalError as exc:  # tried again when the outbox next has something to send
            log.warning("cannot read the journal back for the broker: %s", exc)
            return
        for place, event in batch:
            self.outbox.event(self.topic, event, place)
            self._queued = place
        self.behind = len(batch) == self.outbox.table_size

    def keep(self) -> None:
        """The acknowledged place into the journal, when it moved (a restart catches up from it)."""
        if self.acknowledged != self._saved:
            write_mark(self.journal, self.acknowledged)
            self._saved = self.acknowledged
