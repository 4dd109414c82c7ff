"""The loudness meter that every level check rests on, against the standard's known readings."""

from __future__ import annotations

import numpy as np
from soundkit import wavtools

RATE = wavtools.RATE


def sine(freq: float, amplitude: float, seconds: float = 2.0) -> np.ndarray:
    return amplitude * np.sin(2 * np.pi * freq * np.arange(int(seconds * RATE)) / RATE)


def test_a_1khz_sine_reads_as_the_standard_says() -> None:
    # BS.1770 is calibrated so that a 1 kHz sine of mean square m reads 10 log10(m) LUFS (to 0.1 LU)
    assert abs(wavtools.loudness_lufs(sine(1000, 0.1)) - (-23.0)) < 0.1


def test_six_db_more_gain_reads_six_lu_louder() -> None:
    quiet = wavtools.loudness_lufs(sine(440, 0.05))
    loud = wavtools.loudness_lufs(sine(440, 0.1))
    assert abs(loud - quiet - 6.02) < 0.05


def test_low_rumble_counts_less_and_presence_counts_more() -> None:
    # K-weighting: the ear (and the meter) hears 40 Hz less and 4 kHz more than 1 kHz
    at_1k = wavtools.loudness_lufs(sine(1000, 0.1))
    assert wavtools.loudness_lufs(sine(40, 0.1)) < at_1k - 0.5
    assert wavtools.loudness_lufs(sine(4000, 0.1)) > at_1k + 2.0


def test_a_long_silent_tail_does_not_make_a_sound_quieter() -> None:
    # the gates skip silent blocks, so a fanfare is not judged by how long its file runs on
    sound = sine(500, 0.1, 1.0)
    short_tail = np.concatenate([sound, np.zeros(RATE // 2)])
    long_tail = np.concatenate([sound, np.zeros(5 * RATE)])
    assert abs(wavtools.loudness_lufs(long_tail) - wavtools.loudness_lufs(short_tail)) < 0.01


def test_silence_has_no_loudness() -> None:
    assert wavtools.loudness_lufs(np.zeros(RATE)) == float("-inf")


def test_a_sound_shorter_than_one_block_is_measured_over_its_length() -> None:
    assert abs(wavtools.loudness_lufs(sine(1000, 0.1, 0.2)) - (-23.0)) < 0.2


def test_normalise_reaches_the_target_without_passing_the_ceiling() -> None:
    rng = np.random.default_rng(3)
    clicks = np.zeros(RATE)
    clicks[rng.integers(0, RATE, 12)] = 1.0  # sharp peaks: the hard case
    clicks += 0.001 * rng.standard_normal(RATE)
    out = wavtools.normalise(clicks)
    assert abs(wavtools.loudness_lufs(out) - wavtools.TARGET_LUFS) < 0.1
    assert wavtools.peak_dbfs(out) <= wavtools.CEILING_DBFS


def test_fades_start_and_end_at_zero() -> None:
    x = wavtools.fade(np.ones(RATE))
    assert x[0] == 0.0 and x[-1] == 0.0 and x[RATE // 2] == 1.0
