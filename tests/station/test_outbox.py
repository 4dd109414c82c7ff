"""The link's outbox: bounded while the broker is away, states never ahead of their events, nothing lost in flight."""

from __future__ import annotations

import json

from controller.station.outbox import Outbox


def drain(box: Outbox) -> list[tuple[str, object]]:
    out = []
    while (message := box.take()) is not None:
        _entry, topic, payload, _retain = message
        out.append((topic, json.loads(payload)))
    return out


def test_a_long_absence_keeps_the_newest_events_and_the_latest_state() -> None:
    box = Outbox(size=10, table_size=10)
    for seq in range(25):
        box.event("e", {"seq": seq})
        box.retain("s", json.dumps({"actions": seq + 1}).encode())
    sent = drain(box)
    assert [p["seq"] for t, p in sent if t == "e"] == list(range(15, 25)) and box.dropped == 15
    assert sent[-1] == ("s", {"actions": 25}) and [t for t, _ in sent].count("s") == 1  # once, after its events


def test_a_message_that_could_not_be_sent_goes_first_next_time() -> None:
    box = Outbox(size=10, table_size=10)
    box.event("e", {"seq": 0})
    box.event("e", {"seq": 1})
    entry, *_ = box.take()
    box.put_back(entry)
    assert [p["seq"] for _, p in drain(box)] == [0, 1]


def test_reconnection_sends_every_retained_message_again_first() -> None:
    box = Outbox(size=10, table_size=10)
    box.retain("online", b'{"online": true}')
    box.retain("s", b'{"actions": 1}')
    drain(box)
    box.event("e", {"seq": 1})
    box.resend_retained()
    assert [t for t, _ in drain(box)] == ["online", "s", "e"]


def test_a_flood_of_command_answers_never_pushes_out_what_happened_at_the_table() -> None:
    box = Outbox(size=200, table_size=200)  # issue 20: 20,000 junk commands made 16,230 events go, an accepted action among them
    for n in range(20_000):
        box.event("e", {"kind": "refused", "n": n})
        if n % 2000 == 0:
            assert box.event("e", {"kind": "action", "seq": n // 2000}, place=(1, n // 2000))
    sent = [p for _, p in drain(box)]
    assert [p["seq"] for p in sent if p["kind"] == "action"] == list(range(10))
    assert len([p for p in sent if p["kind"] == "refused"]) == 200 and box.dropped == 20_000 - 200


def test_table_events_past_their_bound_are_refused_never_pushing_out_older_ones() -> None:
    box = Outbox(size=10, table_size=3)  # the link reads the refused ones back from the journal
    assert [box.event("e", {"seq": seq}, place=(1, seq)) for seq in range(5)] == [True, True, True, False, False]
    assert [p["seq"] for _, p in drain(box)] == [0, 1, 2] and box.dropped == 0
