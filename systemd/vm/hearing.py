"""What the virtual Pi's speaker played, judged from qemu's recording of it: a sound, or the words the box said.

The box plays the project's own files (sounds/*.wav, sounds/voice/<language>/*.wav),
so a test hears it as a person beside the box would: by finding those files in
the recording, with nothing from the box's side but its speaker. A fingerprint
of spectral peaks survives the guest's mixer (voices over effects, volume) where
the envelope's correlation does not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

RATE, FRAME, HOP = 22050, 2048, 1102  # the sound files' rate; 93 ms windows every 50 ms
WORD_HOP = 256  # 12 ms: a spoken word is short, and its neighbours close
STRONGEST = 16  # peaks of each of the recording's frames that count
HEADER = 44  # the plain PCM header qemu and sounds/wavtools.py write


def recorded(path: Path) -> int:
    """Where the recording ends now (bytes): what the speaker plays from here on is read with ``samples(path, it)``."""
    return path.stat().st_size


def samples(path: Path, start: int = HEADER) -> np.ndarray:
    """A WAV file as mono samples at :data:`RATE`, from byte ``start`` on. qemu writes a recording's sizes only when
    it closes it, so a machine killed mid-recording leaves zeros there: the samples are read to the end of the file."""
    with open(path, "rb") as wav:
        header = wav.read(HEADER)
    channels, rate = int.from_bytes(header[22:24], "little"), int.from_bytes(header[24:28], "little")
    frame = 2 * channels
    start = HEADER + max(0, start - HEADER) // frame * frame
    frames = np.fromfile(path, dtype="<i2", offset=start).astype(np.float32)
    frames = frames[:len(frames) // channels * channels].reshape(-1, channels).mean(axis=1)
    step = rate // RATE  # 44,100 Hz from qemu: every pair averaged
    return frames[:len(frames) // step * step].reshape(-1, step).mean(axis=1)


def spectrogram(x: np.ndarray, hop: int = HOP) -> np.ndarray:
    """Magnitudes, one row per ``hop`` (Hann windows of :data:`FRAME`), made in blocks to bound the memory."""
    count = max(0, (len(x) - FRAME) // hop + 1)
    window = np.hanning(FRAME).astype(np.float32)
    rows = [np.abs(np.fft.rfft(np.stack([x[i * hop:i * hop + FRAME] for i in range(start, min(count, start + 1000))])
                               * window, axis=1)) for start in range(0, count, 1000)]
    return np.concatenate(rows) if rows else np.zeros((0, FRAME // 2 + 1), np.float32)


def presence(heard: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """For each moment of ``heard`` (a spectrogram) where ``wanted`` could start, the share of ``wanted``'s tones,
    frame by frame, that ``heard`` has then (0..1); empty when ``heard`` is the shorter."""
    if len(heard) <= len(wanted):
        return np.zeros(0)
    tones = []  # each loud frame of the sound: its six strongest peaks
    for i in np.flatnonzero(wanted.sum(axis=1) > 0.1 * wanted.sum(axis=1).max()):
        row = wanted[i]
        peaks = np.flatnonzero((row[1:-1] > row[:-2]) & (row[1:-1] >= row[2:])) + 1
        top = peaks[np.argsort(row[peaks])[-6:]]
        tones.append((i, top[row[top] > 0.05 * row.max()]))
    # the recording's 16 strongest peaks of each frame, widened by a bin either side (a tone between two bins)
    inner = heard[:, 1:-1]
    height = np.where((inner >= heard[:, :-2]) & (inner >= heard[:, 2:]), inner, 0)
    strong = height > -np.partition(-height, STRONGEST, axis=1)[:, STRONGEST:STRONGEST + 1]
    near = np.zeros(heard.shape, bool)
    near[:, :-2] |= strong
    near[:, 1:-1] |= strong
    near[:, 2:] |= strong
    offsets = len(heard) - len(wanted)
    found = sum(near[i:i + offsets][:, top].sum(axis=1) for i, top in tones)
    return np.asarray(found, float) / max(1, sum(len(top) for _, top in tones))


def sound_found(recording: Path, sound: Path, start: int = HEADER, hop: int = HOP) -> float:
    """How much of ``sound`` is in ``recording`` from byte ``start`` on (0..1): the share of its tones found at the
    best moment. Measured on six runs' recordings: the treasure fanfare under the voice lines 0.87 to 0.99 (0.44 by
    envelope); absent (the boots before the game's end) 0.30 and 0.33; in tests/systemd/test_vm_checks.py, other
    brass and a voice line without it 0.64. A word needs :data:`WORD_HOP`: in one run's recording "Deutsch" held
    0.87 of its tones by 50 ms steps, 0.98 by 12 ms ones."""
    found = presence(spectrogram(samples(recording, start), hop), spectrogram(samples(sound), hop))
    return float(found.max()) if len(found) else 0.0


def words_said(recording: Path, words: dict[str, Path], start: int = HEADER, least: float = 0.9) -> list[str]:
    """The words of ``words`` (a name for each one's sound file) said in ``recording`` from byte ``start`` on, in
    the order said: the best match first, then the best one that does not overlap it, and so on, while a match holds
    at least ``least`` of its word's tones. The box says one line at a time, so two words never overlap. Measured on
    the virtual Pi's recording of a pairing code: each digit 0.97 to 1.00, another digit at the same moment 0.71 at
    most. Words alike are alike here too: the "on" of "No barking on." holds 0.98 of "one" (the box's other English
    lines hold at most 0.88 of a digit otherwise), so ask this of a stretch in which the box says only those words."""
    heard = spectrogram(samples(recording, start), WORD_HOP)
    candidates = []
    for name, path in words.items():
        length = len(spectrogram(samples(path), WORD_HOP))
        scores = presence(heard, spectrogram(samples(path), WORD_HOP))
        candidates += [(score, at, length, name) for at, score in enumerate(scores) if score >= least]
    taken: list[tuple[int, int, str]] = []
    for _score, at, length, name in sorted(candidates, reverse=True):
        if all(at + length <= begin or end <= at for begin, end, _ in taken):
            taken.append((at, at + length, name))
    return [name for _, _, name in sorted(taken)]
