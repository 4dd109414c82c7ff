"""What the box says while a family enrols its cards or writes stickers (``gamebox enroll``, ``gamebox tags write``).

The script of the two refusals no game shows: a tag that already belongs to
another card (``tag_taken``) and a sticker that could not be written
(``write_failed``). Each is followed by what to do instead. The walks run on
the real registry (SQLite), the real show book and the simulated reader.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.box.tags import Registry
from controller.enroll import Enrolment, StickerWriter
from controller.stage.narration import spoken_text, voice_lines
from controller.stage.shows import ShowBook
from controller.stage.stage import DeviceStage
from hardware.clock import FakeClock
from hardware.events import EventSink, TagSeen
from hardware.sim import SimReader
from tests.words.test_rules import instructions

UID_1, UID_2 = bytes([4, 0, 0, 0, 0, 0, 1]), bytes([4, 0, 0, 0, 0, 0, 2])


def listening(language: str = "en") -> tuple[DeviceStage, list[list[str]]]:
    """A stage with no devices, and the line ids it says, one list per show or prompt."""
    stage = DeviceStage(None, None, ShowBook.load(), FakeClock(), language)
    said: list[list[str]] = []
    stage.listeners.append(lambda _kind, _name, cue, _context: said.append(list(cue.say)))
    return stage, said


def english(said: list[list[str]]) -> list[str]:
    return [spoken_text(line, "en") for cue in said for line in cue]


def test_a_tag_that_belongs_to_another_card_is_refused_and_the_card_asked_for_again(tmp_path: Path) -> None:
    stage, said = listening()
    printed: list[str] = []
    enrolment = Enrolment("policecats", Registry(tmp_path / "tags.sqlite"), stage, printed.append)
    enrolment.ask()
    enrolment.tag(UID_1)  # family-1-mother
    said.clear()
    enrolment.tag(UID_1)  # the same sticker again, for family-1-father
    assert english(said) == ["This tag already belongs to another card.", "Tap the next card on the box."]
    assert printed[-1] == "refused: tag 04000000000001 is already family-1-mother; tap the tag of family-1-father"
    stage, said = listening()  # another day: the walk resumes at family-1-father
    enrolment = Enrolment("policecats", Registry(tmp_path / "tags.sqlite"), stage, printed.append)
    enrolment.ask()
    said.clear()
    enrolment.tag(UID_2, "blue-pirate-7")  # a sticker whose text names another game's card
    assert english(said) == ["This tag already belongs to another card.", "Tap the next card on the box."]
    assert enrolment.left[0] == "family-1-father" and instructions(english(said)[-1])


def test_a_sticker_that_could_not_be_written_is_asked_for_again(tmp_path: Path) -> None:
    stage, said = listening()
    writer = StickerWriter("policecats", Registry(tmp_path / "tags.sqlite"), stage, lambda _line: None)

    async def lifted_too_soon() -> None:
        clock = FakeClock()
        reader = SimReader("table", EventSink(asyncio.get_running_loop()), clock)
        reader.start()
        writer.ask()
        said.clear()
        reader.tap(UID_1)
        reader.remove()  # lifted before the box could write it
        await writer.sticker(reader, TagSeen("table", UID_1, None, at=0.0))

    asyncio.run(lifted_too_soon())
    assert english(said) == ["That did not work: lay the sticker on the reader again."]
    assert writer.index == 0, "the same card is written next"


def test_both_refusals_are_said_in_every_language() -> None:
    lines = voice_lines()
    for line in ("enroll-taken", "write-failed", "enroll-next"):
        assert set(lines[line]) == {"de", "en", "fr", "nl", "es", "it"}
        for language in lines[line]:
            assert (Path(__file__).resolve().parents[2] / "sounds" / "voice" / language / f"{line}.wav").is_file()
