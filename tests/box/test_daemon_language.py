"""The box speaks the language a control card chose, one not loaded at start included, and after a restart.

README: "control-language-de, -en, -fr, -nl, -es, -it: the language the box speaks".
Played through the daemon on the sim profile and a fake clock; the sim
speaker says which voice files were played.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.autoplay import Input, perform
from tests.box.daemon_helpers import started, stopped


def voices(daemon, since: int = 0) -> list[str]:
    """The voice files played since ``since`` sounds had been played, oldest first."""
    played = list(daemon.devices.speaker.played)[since:]
    return [p.name for p in played if p.channel == "voice"]


async def tap(daemon, clock, card: str) -> int:
    """Tap ``card``, let the box speak; return how many sounds were played before the tap."""
    before = len(daemon.devices.speaker.played)
    await perform(daemon.devices, [Input("tap", card)], clock.run_for)
    await clock.run_for(10)
    return before


def test_a_language_card_for_a_third_language_makes_the_box_speak_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, _lines = await started(tmp_path, language="en")
        before = await tap(daemon, clock, "control-language-fr")
        said = voices(daemon, before)
        assert said and all(name.startswith("voice/fr/") for name in said), said
        before = await tap(daemon, clock, "control-game-pirates")
        said = voices(daemon, before)
        assert said and all(name.startswith("voice/fr/") for name in said), said
        assert "voice/fr/game-pirates" in daemon.devices.speaker.sounds
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_the_stored_language_is_spoken_after_a_restart(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, _lines = await started(tmp_path, language="en")
        await tap(daemon, clock, "control-language-nl")
        await stopped(daemon, task)

        daemon, task, clock, _lines = await started(tmp_path, language="en")
        await clock.run_for(10)
        said = voices(daemon)
        assert said and all(name.startswith("voice/nl/") for name in said), said
        loaded = {name.split("/")[1] for name in daemon.devices.speaker.sounds if name.startswith("voice/")}
        assert loaded == {"nl"}, "the stored language alone (English files stand in for lines it lacks), not all six"
        await stopped(daemon, task)

    asyncio.run(scenario())


def test_switching_languages_keeps_one_set_of_lines_loaded(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, task, clock, _lines = await started(tmp_path, language="de")
        for language in ("fr", "it", "es"):
            before = await tap(daemon, clock, f"control-language-{language}")
            said = voices(daemon, before)
            assert said and all(name.startswith(f"voice/{language}/") for name in said), said
        loaded = {name.split("/")[1] for name in daemon.devices.speaker.sounds if name.startswith("voice/")}
        assert loaded == {"es"}
        await stopped(daemon, task)

    asyncio.run(scenario())
