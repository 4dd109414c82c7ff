"""The committed sound set: every sound the box plays exists, loads, and sounds right next to the others.

A five-year-old hears these instead of reading a screen, so a missing file,
a clipped peak, a click, or one sound much louder than the rest is a bug a
user notices at once.
"""

from __future__ import annotations

import wave

import numpy as np
import pytest
from soundkit import SOUNDS, generate, wavtools

CONTRACT = [
    "woof", "woof-woof", "growl", "stop-ear", "whistle", "meow", "squeak", "dog-bark", "die-rattle", "card-ok",
    "card-rejected", "unknown-card", "ship-horn", "parrot", "snore", "bottle-pop", "riffle", "round-fanfare",
    "treasure-fanfare", "siren", "game-over", "resumed", "attract-jingle",
]
"""The names the box's shows may use (the sound contract)."""

FILES = sorted(p.stem for p in SOUNDS.glob("*.wav"))


def samples(name: str) -> np.ndarray:
    x, rate = wavtools.read_wav(SOUNDS / f"{name}.wav")
    assert rate == wavtools.RATE
    return x


def test_every_sound_a_show_can_name_is_there() -> None:
    assert sorted(set(CONTRACT) - set(FILES)) == []


def test_the_files_are_exactly_what_the_generator_makes() -> None:
    # a stray file would be loadable by name but not reproducible
    assert FILES == sorted(generate.SOUNDS)


@pytest.mark.parametrize("name", FILES)
def test_format_is_mono_16_bit_at_the_one_sample_rate(name: str) -> None:
    with wave.open(str(SOUNDS / f"{name}.wav"), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getcomptype()) == (1, 2, 22050, "NONE")
        assert w.getnframes() > 0


@pytest.mark.parametrize("name", FILES)
def test_short_enough_not_to_hold_up_play(name: str) -> None:
    seconds = len(samples(name)) / wavtools.RATE
    limit = generate.MAX_FANFARE_SECONDS if generate.SOUNDS[name].fanfare else generate.MAX_SECONDS
    assert 0.1 <= seconds <= limit


@pytest.mark.parametrize("name", FILES)
def test_peak_stays_below_minus_one_dbfs(name: str) -> None:
    assert wavtools.peak_dbfs(samples(name)) <= -1.0


def test_loudness_is_matched_across_the_set() -> None:
    levels = {name: wavtools.loudness_lufs(samples(name)) for name in FILES}
    centre = float(np.median(list(levels.values())))
    off = {name: round(level - centre, 2) for name, level in levels.items() if abs(level - centre) > 2.0}
    assert off == {}
    assert abs(centre - wavtools.TARGET_LUFS) <= 1.0


@pytest.mark.parametrize("name", FILES)
def test_no_click_at_start_or_end(name: str) -> None:
    x = samples(name)
    ms = wavtools.RATE // 1000
    assert abs(x[0]) <= 0.002 and abs(x[-1]) <= 0.002
    # within the first and last millisecond the sound is still (or already) faded
    assert np.max(np.abs(x[:ms])) <= 0.1 and np.max(np.abs(x[-ms:])) <= 0.1


def test_committed_files_are_what_the_generator_makes_now() -> None:
    """Editing the generator without regenerating (or a file by hand) would ship a different sound."""
    for name in FILES:
        fresh = wavtools.to_pcm(generate.render(name)).astype(np.int32)
        committed = np.round(samples(name) * 32767).astype(np.int32)
        assert len(fresh) == len(committed), name
        # a couple of LSB for floating-point differences between numpy builds
        assert np.max(np.abs(fresh - committed)) <= 2, name


def test_the_set_stays_small() -> None:
    total = sum((SOUNDS / f"{name}.wav").stat().st_size for name in FILES)
    assert total < 2_000_000


def test_every_sound_says_what_it_is_for() -> None:
    assert all(len(s.purpose) > 10 for s in generate.SOUNDS.values())
