"""`gamebox enroll` and `gamebox tags write`: every card of a deck, resumable, no tag twice (issue 4)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.box.tags import Registry
from controller.config import load_config
from controller.enroll import enroll_loop, write_loop
from hardware.clock import FakeClock


def run(loop_fn, deck: str, tmp_path: Path, taps: list) -> tuple[int, list[str]]:
    """Run an enrolment or a sticker-writing session, laying ``taps`` (uid, text) on the simulated reader."""
    lines: list[str] = []
    clock = FakeClock()

    async def feed(devices) -> None:
        reader = devices.readers["table"]
        for uid, text in taps:
            reader.tap(uid, text)
            await clock.run_for(0.5)
            for _ in range(10):  # let the write's future come back on the loop: turns, not time
                await asyncio.sleep(0)
            reader.remove()
            await clock.run_for(0.5)

    config = load_config(None, state_dir=str(tmp_path))
    code = asyncio.run(loop_fn(deck, config, clock, lines.append, feed))
    return code, lines


def uid(n: int) -> bytes:
    return bytes([4, 0, 0, 0, 0, 0, n])


def test_enrolment_walks_the_deck_refuses_a_tag_twice_and_resumes(tmp_path: Path) -> None:
    code, lines = run(enroll_loop, "policecats", tmp_path, [(uid(1), None), (uid(2), None), (uid(1), None)])
    assert code == 1
    assert lines[0] == "policecats 1/36: tap the tag of family-1-mother"
    assert lines[1] == "policecats 2/36: tap the tag of family-1-father"
    assert lines[3] == "refused: tag 04000000000001 is already family-1-mother; tap the tag of family-1-kittens"
    assert lines[-1] == "stopped with 34 cards left; run enroll policecats again to go on"
    code, lines = run(enroll_loop, "policecats", tmp_path, [(uid(3), None)])
    assert lines[0] == "resuming: 2 of 36 already enrolled"
    assert lines[1] == "policecats 3/36: tap the tag of family-1-kittens"
    assert Registry(tmp_path / "tags.sqlite").resolve(uid(3)) == "family-1-kittens"


def test_a_whole_deck_of_control_cards_is_enrolled(tmp_path: Path) -> None:
    from controller.decks import CONTROL

    code, lines = run(enroll_loop, "control", tmp_path, [(uid(n), None) for n in range(len(CONTROL))])
    assert code == 0 and lines[-1] == f"control: all {len(CONTROL)} cards enrolled"
    registry = Registry(tmp_path / "tags.sqlite")
    assert [registry.resolve(uid(n)) for n in range(len(CONTROL))] == list(CONTROL)


def test_stickers_get_their_card_id_and_a_named_sticker_is_left_alone(tmp_path: Path) -> None:
    code, lines = run(write_loop, "floppy-ears", tmp_path, [(uid(1), None), (uid(2), "red-pirate-1"), (uid(3), None)])
    assert lines[1] == "yellow-1 written on 04000000000001"
    assert lines[3] == "this sticker already says red-pirate-1: lay a blank one for yellow-2"
    assert lines[4] == "yellow-2 written on 04000000000003"
    registry = Registry(tmp_path / "tags.sqlite")
    assert registry.resolve(uid(3)) == "yellow-2"


def test_a_tag_whose_text_names_another_card_is_refused_with_the_reason(tmp_path: Path) -> None:
    """The box reads a tag's NDEF text before its enrolment (tags.py), so such a tag could never be the card asked."""
    code, lines = run(enroll_loop, "policecats", tmp_path, [(uid(1), "family-2-mother"), (uid(2), "family-1-mother")])
    assert lines[1] == ("refused: this tag's text already says family-2-mother, so the box would always read it as "
                        "family-2-mother; tap the tag of family-1-mother")
    registry = Registry(tmp_path / "tags.sqlite")
    assert registry.resolve(uid(1)) is None, "the refused tag is not enrolled"
    assert lines[2] == "policecats 2/36: tap the tag of family-1-father", "a tag that names the asked card itself is fine"
    assert registry.resolve(uid(2), "family-1-mother") == "family-1-mother"
