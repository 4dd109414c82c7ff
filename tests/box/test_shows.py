"""Shows are data: every name they use exists, and every event, answer and prompt has one (issues 4, 5)."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import pytest

from controller.config import ConfigError
from controller.games.base import AWAITING
from controller.stage.lights import ANIMATIONS
from controller.stage.shows import ShowBook, fill
from controller.stage.stage import SOUNDS, VOICE
from controller.table import new_table
from tests.box.helpers import make_box, play_to_the_end

BOOK = ShowBook.load()
LINES = tomllib.loads((VOICE / "lines.toml").read_text(encoding="utf-8"))
CONTEXTS = [{"call": "woof"}, {"call": "woof-woof"}]  # the only templated sound: the bark itself


def expansions(template: str | None) -> set[str]:
    if not template:
        return set()
    return {value for ctx in CONTEXTS if (value := fill(template, ctx))}


def test_every_sound_line_and_light_a_show_names_exists() -> None:
    sounds = {p.stem for p in SOUNDS.glob("*.wav")}
    for kind, name, fields in BOOK.every_cue():
        for sound in expansions(fields["sound"]):
            assert sound in sounds, f"{kind} {name}: no sound {sound!r}"
        say = fields["say"]
        for line in [say] if isinstance(say, str) else (say or []):
            if "{" not in line:  # templates are checked with real contexts below
                assert line in LINES, f"{kind} {name}: no spoken line {line!r}"
        if fields["light"]:
            assert fields["light"] in ANIMATIONS, f"{kind} {name}: no animation {fields['light']!r}"


def test_templates_expand_to_lines_for_every_value_they_take() -> None:
    for seat in range(1, 6):
        assert f"turn-{seat}" in LINES and f"winner-{seat}" in LINES
    for seat in range(1, 5):
        assert f"round-won-{seat}" in LINES and f"treasure-{seat}" in LINES
    for debt in (2, 4, 6, 8):  # P5: the bottle-post debt
        assert f"take-{debt}" in LINES
    for color in ("yellow", "green", "blue", "red"):
        assert f"color-{color}" in LINES


def test_every_event_the_engines_produce_has_a_show() -> None:
    events: set[str] = set()
    setups = [("floppy-ears", 2, {}), ("floppy-ears", 3, {"edition": "reveal"}), ("pirates", 2, {"mau_calls": True}),
              ("pirates", 3, {}), ("policecats", 3, {}), ("policecats", 2, {"variant": "alarm"})]
    for (game, players, options), seed in itertools.product(setups, range(8)):
        table = new_table(game, players, options, seed)
        while not table.over:
            decision = table.decision()
            events.update(table.act(table.rng.choice(decision.actions)).names)
    missing = sorted(events - BOOK.names("show"))
    assert not missing, f"events with no show: {missing}"


@pytest.mark.parametrize("game, players, options", [
    ("floppy-ears", 2, {}), ("floppy-ears", 2, {"edition": "reveal"}), ("pirates", 2, {"mau_calls": True}),
    ("policecats", 3, {}), ("policecats", 2, {"variant": "alarm"}),
])
def test_every_prompt_and_answer_the_box_gives_resolves_to_spoken_lines(tmp_path: Path, game, players, options) -> None:
    box, stage, clock = make_box(tmp_path, seed=2, games={game: options})
    for card in ("control-volume-up", "control-variant-alarm", "control-language-fr", "nonsense-card"):
        clock.advance(3)
        box.tap("table", card)
    box.press("die")
    box.hold("die")
    box.new_game(game, players)
    play_to_the_end(box, clock, seed=2)
    for name, context in stage.shows:
        assert name in BOOK.names("show"), f"the box shows {name!r}, which has no show"
    for kind, calls in (("show", stage.shows), ("prompt", stage.prompts)):
        for name, context in calls:
            cue = getattr(BOOK, kind)(name, context)
            for line in cue.say if cue else ():
                assert line in LINES, f"{kind} {name!r} says {line!r}, which has no spoken line"


def test_every_decision_the_referee_can_await_has_a_prompt_show() -> None:
    prompts = BOOK.names("prompt")
    for awaiting in AWAITING - {"over", "setup", "hang"}:
        assert awaiting in prompts, f"no prompt show for {awaiting!r}"
    assert {"hang-left", "hang-right"} <= prompts
    assert "deal" in BOOK.names("show")


def test_a_broken_show_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "shows.toml"
    path.write_text('[show.stop_ear]\nlight = "fireworks"\n')
    with pytest.raises(ConfigError) as info:
        ShowBook.load(path)
    assert str(info.value).startswith(f"{path}: key 'show.stop_ear.light'") and "fireworks" in str(info.value)


def test_a_user_can_change_a_show_without_code(tmp_path: Path) -> None:
    path = tmp_path / "shows.toml"
    path.write_text('[show.stop_ear]\nsound = "whistle"\nsay = "stop-ear"\n')
    cue = ShowBook.load(path).show("stop_ear", {"player": 0})
    assert cue.sound == "whistle" and cue.say == ("stop-ear",)


def test_template_context_numbers_seats_from_one_and_names_where_the_figure_went() -> None:
    assert BOOK.show("round_won", {"player": 2}).say == ("round-won-3",)
    assert BOOK.show("policecat_moved", {"player": 1, "to": None}).say == ("policecat-back",)
    assert BOOK.show("policecat_moved", {"player": 1, "to": 1}).say == ("policecat-taken",)
    assert BOOK.show("policecat_moved", {"player": 1, "track": 3}).say == ("policecat-step",)
    assert BOOK.show("rejected", {"code": "no_match"}).say == ("no-match",)
    assert BOOK.show("rejected", {"code": "wrong_action"}).say == ("not-possible",), "a refusal is never silent"


# -- the voice queue and the transcript (issue 11, item 8) -------------------------------------------------
def voice_stage(tmp_path: Path):
    from controller.stage.stage import DeviceStage
    from hardware.clock import FakeClock

    shows = tmp_path / "shows.toml"
    shows.write_text('[prompt.long]\nsay = ["a1", "a2", "a3"]\n[prompt.short]\nsay = "b1"\n'
                     '[show.no]\nsay = "no"\n[show.yes]\nsay = "yes"\n', encoding="utf-8")
    lines = ("a1", "a2", "a3", "b1", "no", "yes")
    clock = FakeClock(0.0)
    return DeviceStage(None, None, ShowBook.load(shows), clock, durations={f"voice/en/{x}": 1.0 for x in lines}), clock


def test_a_new_prompt_replaces_every_line_of_the_prompt_not_yet_said(tmp_path: Path) -> None:
    stage, _ = voice_stage(tmp_path)
    stage.prompt("long")
    stage.prompt("short")
    assert [line[:2] for line in stage.voice] == [("b1", True)], "an out-of-date prompt line would still be said"


def test_taps_faster_than_speech_build_no_backlog_and_the_newest_answer_is_said(tmp_path: Path) -> None:
    from controller.stage.stage import WAITING

    stage, clock = voice_stage(tmp_path)
    for n in range(400):  # a child hammering cards: one answer per tap, far faster than the box speaks
        stage.show("no" if n % 2 else "yes")
        clock.advance(0.01)
        stage.tick()
    assert len(stage.voice) <= WAITING
    assert stage.voice[-1][:2] == ("no", False), "the answer to the last tap is still to come"
    clock.advance(60.0)
    for _ in range(WAITING + 1):
        stage.tick()
        clock.advance(2.0)
    assert not stage.voice and stage.transcript[-1:][0][1:] == ("say", "no")


def test_the_transcript_keeps_its_newest_entries_and_counts_them_all() -> None:
    from controller.stage.stage import Transcript

    transcript = Transcript(keep=3)
    for n in range(5):
        transcript.append((float(n), "show", f"s{n}"))
    assert len(transcript) == 5  # a reader's "how far I read" stays valid
    assert [name for _t, _k, name in transcript] == ["s2", "s3", "s4"]
    assert [name for _t, _k, name in transcript[3:]] == ["s3", "s4"]
    assert [name for _t, _k, name in transcript[0:]] == ["s2", "s3", "s4"]  # the rest was let go
    assert [name for _t, _k, name in reversed(transcript)] == ["s4", "s3", "s2"]


def test_the_volume_never_goes_below_silence(tmp_path: Path) -> None:
    """Issue 15, mutation 6: only the upper bound was tested."""
    from pydantic import ValidationError

    from controller.config import Config

    with pytest.raises(ValidationError):
        Config(volume=-0.1)
    box, stage, clock = make_box(tmp_path, volume=0.2, volume_max=0.7)
    for _ in range(5):
        clock.advance(3)
        box.tap("table", "control-volume-down")
        box.removed("table")
    assert box.volume == 0.0, "the volume-down card stops at silence"
