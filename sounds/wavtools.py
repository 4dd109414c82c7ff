"""Shared sound plumbing: WAV in and out, loudness, peaks, fades and trimming.

The generator, the voice renderer and the tests all measure with these same
functions, so "matched within 2 dB" means one thing everywhere. Only numpy and
the standard library are used, so CI and the Pi need nothing else.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 22050
"""One sample rate for every file: plenty for a small speaker, half the size of 44.1 kHz."""

TARGET_LUFS = -20.0
"""Integrated loudness every sound and spoken line is normalised to."""

CEILING_DBFS = -1.0
"""No sample may come closer to full scale than this (the contract's peak limit)."""

_FULL = 32767


# -- files ------------------------------------------------------------------------

def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Samples as floats in [-1, 1] and the sample rate; refuses anything but mono 16-bit."""
    with wave.open(str(path), "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: want mono 16-bit, got {w.getnchannels()} ch, {8 * w.getsampwidth()} bit")
        rate = w.getframerate()
        raw = w.readframes(w.getnframes())
    return np.frombuffer(raw, dtype="<i2").astype(np.float64) / _FULL, rate


def to_pcm(x: np.ndarray) -> np.ndarray:
    """Float samples to 16-bit integers, rounded and clipped."""
    return np.clip(np.round(x * _FULL), -_FULL, _FULL).astype("<i2")


def write_wav(path: Path, x: np.ndarray, rate: int = RATE) -> None:
    """Write mono 16-bit; the bytes depend only on the samples, so re-runs give identical files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(to_pcm(x).tobytes())


# -- measuring --------------------------------------------------------------------

def peak_dbfs(x: np.ndarray) -> float:
    """Sample peak in dB relative to full scale (-inf for silence)."""
    p = float(np.max(np.abs(x))) if len(x) else 0.0
    return 20 * np.log10(p) if p > 0 else float("-inf")


def _biquad_response(b: tuple[float, float, float], a: tuple[float, float, float], w: np.ndarray) -> np.ndarray:
    z = np.exp(-1j * w)
    return (b[0] + b[1] * z + b[2] * z * z) / (a[0] + a[1] * z + a[2] * z * z)


def _k_weighting(n_fft: int, rate: int) -> np.ndarray:
    """ITU-R BS.1770 K-weighting (high shelf, then high pass) at the rfft bins of ``n_fft``.

    The two filters are derived from their analogue prototypes for any sample
    rate, the way BS.1770 implementations do; at 48 kHz they give the
    standard's published coefficients.
    """
    w = 2 * np.pi * np.arange(n_fft // 2 + 1) / n_fft

    # stage 1: high shelf, +4 dB above about 1.7 kHz (the head's acoustic effect)
    g, q, fc = 3.999843853973347, 0.7071752369554196, 1681.974450955533
    k = np.tan(np.pi * fc / rate)
    vh = 10 ** (g / 20)
    vb = vh ** 0.4996667741545416
    a0 = 1 + k / q + k * k
    shelf = _biquad_response(
        ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0),
        (1.0, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0), w)

    # stage 2: high pass at about 38 Hz (the RLB curve)
    q, fc = 0.5003270373238773, 38.13547087602444
    k = np.tan(np.pi * fc / rate)
    a0 = 1 + k / q + k * k
    high = _biquad_response((1.0, -2.0, 1.0), (1.0, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0), w)
    return shelf * high


def k_weighted(x: np.ndarray, rate: int = RATE) -> np.ndarray:
    """``x`` through the K-weighting filter (applied in the frequency domain, zero-padded so nothing wraps)."""
    n_fft = 1 << int(np.ceil(np.log2(len(x) + rate // 4)))
    y = np.fft.irfft(np.fft.rfft(x, n_fft) * _k_weighting(n_fft, rate), n_fft)
    return y[: len(x)]


def loudness_lufs(x: np.ndarray, rate: int = RATE) -> float:
    """Integrated loudness in LUFS after ITU-R BS.1770-4, for mono.

    400 ms blocks overlapping by 75 %, an absolute gate at -70 LUFS and a
    relative gate 10 LU below the ungated level. A sound shorter than one
    block is measured as a single block over its whole length, so a short
    bark and a long fanfare are compared on the same scale.
    """
    if len(x) == 0:
        return float("-inf")
    y = k_weighted(np.asarray(x, dtype=np.float64), rate)
    block, hop = int(round(0.4 * rate)), int(round(0.1 * rate))
    if len(y) <= block:
        z = np.array([np.mean(y * y)])
    else:
        power = np.concatenate(([0.0], np.cumsum(y * y)))
        starts = np.arange(0, len(y) - block + 1, hop)
        z = (power[starts + block] - power[starts]) / block
    with np.errstate(divide="ignore"):
        levels = -0.691 + 10 * np.log10(z)
    z = z[levels > -70]
    if len(z) == 0:
        return float("-inf")
    relative = -0.691 + 10 * np.log10(np.mean(z)) - 10
    with np.errstate(divide="ignore"):
        z = z[-0.691 + 10 * np.log10(z) > relative]
    return float(-0.691 + 10 * np.log10(np.mean(z)))


# -- shaping ----------------------------------------------------------------------

def fade(x: np.ndarray, seconds_in: float = 0.008, seconds_out: float = 0.012, rate: int = RATE) -> np.ndarray:
    """Raised-cosine fades that start and end exactly at zero, so a sound never clicks."""
    y = np.array(x, dtype=np.float64)
    for n, sl in ((int(seconds_in * rate), slice(None)), (int(seconds_out * rate), slice(None, None, -1))):
        n = max(2, min(n, len(y) // 2))
        ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(n) / (n - 1))
        y[sl][:n] *= ramp
    return y


def trim(x: np.ndarray, below_peak_db: float = -40.0, margin: float = 0.03, rate: int = RATE) -> np.ndarray:
    """Cut leading and trailing near-silence (relative to the peak), keeping a short margin."""
    if not len(x) or not np.any(x):
        return x[:0]
    loud = np.flatnonzero(np.abs(x) >= np.max(np.abs(x)) * 10 ** (below_peak_db / 20))
    pad = int(margin * rate)
    return x[max(0, loud[0] - pad): loud[-1] + 1 + pad]


def _limit(x: np.ndarray, ceiling: float, rate: int) -> np.ndarray:
    """Smooth look-ahead limiting: pull the gain down around every sample that would pass ``ceiling``.

    The gain is a windowed minimum, then a moving average of the same width:
    each averaged value only mixes minima whose windows contain that
    sample, so the result never exceeds the gain that sample needs.
    """
    mag = np.abs(x)
    need = np.minimum(1.0, ceiling / np.maximum(mag, 1e-12))
    half = max(1, int(0.0015 * rate))
    padded = np.pad(need, half, mode="edge")
    least = padded[: len(need)].copy()
    for d in range(1, 2 * half + 1):
        np.minimum(least, padded[d: d + len(need)], out=least)
    padded = np.pad(least, half, mode="edge")
    c = np.concatenate(([0.0], np.cumsum(padded)))
    width = 2 * half + 1
    gain = (c[width: width + len(need)] - c[: len(need)]) / width
    return x * np.minimum(gain, need)


def normalise(x: np.ndarray, target: float = TARGET_LUFS, ceiling_db: float = CEILING_DBFS,
              rate: int = RATE) -> np.ndarray:
    """Bring ``x`` to ``target`` LUFS with no peak above ``ceiling_db``.

    Percussive sounds (a die rattle, a cork pop) would clip before they got
    loud enough; their few sharp peaks are limited, which the ear barely
    notices, and the gain is found again until both bounds hold.
    """
    ceiling = 10 ** ((ceiling_db - 0.15) / 20)  # a little room for 16-bit rounding
    y = np.array(x, dtype=np.float64)
    for _ in range(12):
        level = loudness_lufs(y, rate)
        y *= 10 ** ((target - level) / 20)
        if np.max(np.abs(y)) > ceiling:
            y = _limit(y, ceiling, rate)
        if abs(loudness_lufs(y, rate) - target) < 0.05:
            break
    return y
