#!/usr/bin/env python3
"""Synthesise the box's sound set into ``sounds/<name>.wav``.

Every sound is made here from sine waves and seeded noise, so the set is the
project's own, the same on every machine, and can be changed by editing a
few numbers. Run it only when a sound changes; the box loads the committed
files. ``python sounds/generate.py [NAME...]`` writes all sounds, or the named ones.
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wavtools import RATE, fade, normalise, write_wav  # noqa: E402

HERE = Path(__file__).resolve().parent
NYQUIST_SAFE = 0.45 * RATE


# -- building blocks ---------------------------------------------------------------

def seconds(dur: float) -> np.ndarray:
    """Sample times of a sound ``dur`` seconds long."""
    return np.arange(int(round(dur * RATE))) / RATE


def glide(points: list[tuple[float, float]], dur: float) -> np.ndarray:
    """A contour through (time, value) points, linear between them: pitch and formant paths."""
    times, values = zip(*points)
    return np.interp(seconds(dur), times, values)


def envelope(dur: float, attack: float, release: float, hold_level: float = 1.0, curve: float = 1.0) -> np.ndarray:
    """Attack, hold and an exponential-ish release: the shape of most short sounds."""
    t = seconds(dur)
    up = np.clip(t / max(attack, 1e-4), 0, 1)
    down = np.clip((dur - t) / max(release, 1e-4), 0, 1) ** curve
    return up * np.minimum(1.0, down) * hold_level


def decay(dur: float, tau: float, attack: float = 0.003) -> np.ndarray:
    """A struck or plucked shape: fast rise, exponential fall with time constant ``tau``."""
    t = seconds(dur)
    return np.clip(t / attack, 0, 1) * np.exp(-t / tau)


def harmonic_voice(f0: np.ndarray, formants: list[tuple[np.ndarray | float, float, float]],
                   tilt: float = 1.0, floor: float = 0.04) -> np.ndarray:
    """A voiced sound: harmonics of ``f0`` weighted by formant bumps that may move in time.

    This is how animals and brass are made here: a buzzing source (the
    harmonics) shaped by resonances (the formants, given as centre, width,
    gain). Harmonics above the safe band are left out, so nothing aliases.
    """
    phase = 2 * np.pi * np.cumsum(f0) / RATE
    out = np.zeros_like(f0)
    for k in range(1, int(NYQUIST_SAFE / max(np.min(f0), 20.0)) + 1):
        fk = k * f0
        weight = np.full_like(f0, floor)
        for centre, width, gain in formants:
            weight += gain * np.exp(-0.5 * ((fk - centre) / width) ** 2)
        weight *= (fk < NYQUIST_SAFE) / k ** tilt
        out += weight * np.sin(k * phase)
    return out


def colour(x: np.ndarray, bands: list[tuple[float, float, float]]) -> np.ndarray:
    """``x`` filtered to Gaussian bands (centre, width, gain), scaled to a peak of 1."""
    f = np.fft.rfftfreq(len(x), 1 / RATE)
    shape = sum(g * np.exp(-0.5 * ((f - c) / w) ** 2) for c, w, g in bands)
    y = np.fft.irfft(np.fft.rfft(x) * shape, len(x))
    return y / (np.max(np.abs(y)) + 1e-12)


def band_noise(dur: float, rng: np.random.Generator, bands: list[tuple[float, float, float]]) -> np.ndarray:
    """Noise coloured by bands: breath, surf, paper."""
    return colour(rng.standard_normal(int(round(dur * RATE))), bands)


def jitter(dur: float, rng: np.random.Generator, rate_hz: float, depth: float) -> np.ndarray:
    """Slow random wobble (depth as a fraction): the roughness of a real throat."""
    points = int(dur * rate_hz) + 2
    return 1 + depth * np.interp(seconds(dur), np.linspace(0, dur, points), rng.uniform(-1, 1, points))


def note(freq: float, dur: float, timbre: str = "bell") -> np.ndarray:
    """One musical note in one of the set's few instruments, ending softly so notes never click."""
    t = seconds(dur)
    if timbre == "bell":  # glockenspiel: a bright partial that dies fast over a pure tone
        tone = (np.sin(2 * np.pi * freq * t) * decay(dur, 0.35 * dur + 0.05)
                + 0.35 * np.sin(2 * np.pi * 2.76 * freq * t) * decay(dur, 0.06)
                + 0.15 * np.sin(2 * np.pi * 5.4 * freq * t) * decay(dur, 0.02))
    elif timbre == "marimba":  # woody and round
        tone = (np.sin(2 * np.pi * freq * t) * decay(dur, 0.25)
                + 0.25 * np.sin(2 * np.pi * 4 * freq * t) * decay(dur, 0.03))
    elif timbre == "brass":  # brightness follows loudness, as in a real horn
        env = envelope(dur, 0.03, min(0.12, dur / 3))
        f0 = np.full_like(t, freq) * (1 + 0.004 * np.sin(2 * np.pi * 5.5 * t) * np.clip(t / 0.25, 0, 1))
        tone = env * harmonic_voice(f0, [(500.0 + 1100.0 * env, 600.0, 1.0)], tilt=1.3, floor=0.01)
    elif timbre == "square":  # soft square: odd harmonics, for signals
        tone = sum(np.sin(2 * np.pi * k * freq * t) / k for k in (1, 3, 5, 7) if k * freq < NYQUIST_SAFE) \
            * envelope(dur, 0.006, 0.03)
    else:
        raise ValueError(timbre)
    return tone * envelope(dur, 0.002, min(0.025, dur / 4))


def place(parts: list[tuple[float, np.ndarray]], dur: float | None = None) -> np.ndarray:
    """Mix sounds starting at the given times (seconds) into one track."""
    end = max(int(round(at * RATE)) + len(x) for at, x in parts)
    out = np.zeros(max(end, int(round((dur or 0) * RATE))))
    for at, x in parts:
        i = int(round(at * RATE))
        out[i: i + len(x)] += x
    return out


def echo(x: np.ndarray, delay: float = 0.11, gain: float = 0.3, repeats: int = 3) -> np.ndarray:
    """A few fading repeats: enough room for a fanfare without a reverb engine."""
    return place([(i * delay, x * gain ** i) for i in range(repeats + 1)])


def hz(midi: float) -> float:
    """Frequency of a MIDI note number (60 is middle C)."""
    return 440.0 * 2 ** ((midi - 69) / 12)


# -- the sounds --------------------------------------------------------------------

def bark(rng: np.random.Generator, pitch: float = 1.0, dur: float = 0.24, rough: float = 0.15) -> np.ndarray:
    """One dog bark: a short shout whose pitch jumps up and falls, through an open-mouth vowel."""
    f0 = glide([(0, 330), (0.03, 560), (0.09, 470), (dur, 260)], dur) * pitch * jitter(dur, rng, 90, 0.06)
    voice = harmonic_voice(f0, [(750 * pitch ** 0.5, 260, 1.0), (1500 * pitch ** 0.5, 380, 0.7),
                                (2700, 600, 0.3)], tilt=0.9)
    breath = band_noise(dur, rng, [(1200, 900, 1.0)])
    return (voice / np.max(np.abs(voice)) + rough * breath) * envelope(dur, 0.008, dur * 0.7, curve=1.6)


def woof(rng: np.random.Generator) -> np.ndarray:
    return bark(rng)


def woof_woof(rng: np.random.Generator) -> np.ndarray:
    return place([(0.0, bark(rng)), (0.3, bark(rng, pitch=0.94))])


def growl(rng: np.random.Generator) -> np.ndarray:
    dur = 0.85
    f0 = glide([(0, 95), (0.3, 120), (dur, 105)], dur) * jitter(dur, rng, 40, 0.08)
    rattle = 0.55 + 0.45 * np.sin(2 * np.pi * 27 * seconds(dur) + 3 * jitter(dur, rng, 10, 1.0))
    voice = harmonic_voice(f0, [(450, 180, 1.0), (1100, 300, 0.6), (2400, 500, 0.15)], tilt=0.7)
    noise = band_noise(dur, rng, [(700, 500, 1.0)])
    return (voice / np.max(np.abs(voice)) + 0.2 * noise) * rattle * envelope(dur, 0.15, 0.25)


def stop_ear(rng: np.random.Generator) -> np.ndarray:
    beep = [(i * 0.2 + j * 0.1, note(freq, 0.09, "square"))
            for i in range(3) for j, freq in enumerate((988.0, 1319.0))]
    return place(beep)


def whistle(rng: np.random.Generator) -> np.ndarray:
    dur = 0.6
    t = seconds(dur)
    trill = np.sin(2 * np.pi * 34 * t)  # the pea rattling in the whistle
    f = 2900 + 120 * trill + glide([(0, -150), (0.05, 0), (dur, 0)], dur)
    tone = np.sin(2 * np.pi * np.cumsum(f) / RATE) * (0.7 + 0.3 * trill)
    air = band_noise(dur, rng, [(2900, 500, 1.0)])
    return (tone + 0.15 * air) * envelope(dur, 0.02, 0.08)


def meow(rng: np.random.Generator) -> np.ndarray:
    dur = 0.62
    f0 = glide([(0, 520), (0.18, 760), (0.35, 700), (dur, 430)], dur) * jitter(dur, rng, 12, 0.02)
    f1 = glide([(0, 350), (0.2, 950), (0.45, 800), (dur, 500)], dur)  # "mi" -> "a" -> "ow"
    f2 = glide([(0, 2300), (0.2, 1500), (0.45, 1200), (dur, 900)], dur)
    voice = harmonic_voice(f0, [(f1, 220, 1.0), (f2, 300, 0.7), (3200, 500, 0.2)], tilt=0.8)
    return voice * envelope(dur, 0.05, 0.2)


def squeak(rng: np.random.Generator) -> np.ndarray:
    def chirp(dur: float, lo: float, hi: float) -> np.ndarray:
        f = glide([(0, lo), (dur * 0.6, hi), (dur, hi * 0.92)], dur)
        ph = 2 * np.pi * np.cumsum(f) / RATE
        return (np.sin(ph) + 0.2 * np.sin(2 * ph)) * envelope(dur, 0.01, 0.03)
    return place([(0.0, chirp(0.08, 2800, 3900)), (0.12, chirp(0.07, 3000, 4100)), (0.22, chirp(0.1, 2900, 3700))])


def dog_bark(rng: np.random.Generator) -> np.ndarray:
    """The Policecats dog: a bigger, rougher dog than the Floppy Ears woof, three barks."""
    return place([(0.0, bark(rng, 0.72, 0.26, 0.3)), (0.28, bark(rng, 0.7, 0.22, 0.3)),
                  (0.55, bark(rng, 0.68, 0.3, 0.3))])


def click(rng: np.random.Generator, dur: float, bright: float, body: float) -> np.ndarray:
    """A hard little knock: a resonant noise tick over a short low thump."""
    tick = band_noise(dur, rng, [(bright, bright * 0.4, 1.0)]) * decay(dur, 0.006, 0.0005)
    thump = np.sin(2 * np.pi * body * seconds(dur)) * decay(dur, 0.012, 0.001)
    return tick + 0.5 * thump


def die_rattle(rng: np.random.Generator) -> np.ndarray:
    hits, at, gap = [], 0.0, 0.035
    for i in range(11):  # bounces come slower and softer, then the die settles
        hits.append((at, click(rng, 0.05, rng.uniform(2500, 4500), rng.uniform(180, 320)) * (1 - 0.06 * i)))
        at += gap * rng.uniform(0.7, 1.3)
        gap *= 1.17
    hits.append((at + 0.06, click(rng, 0.08, 1800, 150) * 0.9))
    return place(hits)


def card_ok(rng: np.random.Generator) -> np.ndarray:
    return place([(0.0, note(hz(84), 0.18)), (0.09, note(hz(91), 0.3))])


def card_rejected(rng: np.random.Generator) -> np.ndarray:
    return place([(0.0, note(hz(67), 0.16, "square")), (0.17, note(hz(63), 0.28, "square"))])


def wait(rng: np.random.Generator) -> np.ndarray:
    """Two soft low knocks: not a refusal, only "not yet"."""
    return place([(0.0, note(hz(60), 0.1, "marimba")), (0.12, note(hz(60), 0.12, "marimba"))])


def unknown_card(rng: np.random.Generator) -> np.ndarray:
    dur = 0.26
    up = glide([(0, hz(72)), (dur, hz(79))], dur)
    rising = np.sin(2 * np.pi * np.cumsum(up) / RATE) * envelope(dur, 0.01, 0.06)
    return place([(0.0, note(hz(72), 0.14, "marimba")), (0.18, rising)])


def ship_horn(rng: np.random.Generator) -> np.ndarray:
    dur = 1.45
    horn_dur = 0.95
    f0 = np.full_like(seconds(horn_dur), 98.0) * jitter(horn_dur, rng, 6, 0.004)
    horn = (harmonic_voice(f0, [(400, 250, 1.0), (900, 400, 0.4)], tilt=0.6)
            + 0.8 * harmonic_voice(f0 * 1.5, [(400, 250, 1.0), (900, 400, 0.4)], tilt=0.6))
    horn = horn / np.max(np.abs(horn)) * envelope(horn_dur, 0.08, 0.25)
    t = seconds(dur)
    waves = band_noise(dur, rng, [(350, 250, 1.0), (1500, 900, 0.25)]) * (0.5 + 0.5 * np.sin(2 * np.pi * 0.9 * t - 1.2))
    return place([(0.0, 0.45 * waves), (0.1, horn)], dur)


def parrot(rng: np.random.Generator) -> np.ndarray:
    def squawk(dur: float, base: float) -> np.ndarray:
        f0 = glide([(0, base * 0.8), (0.05, base * 1.15), (dur, base * 0.9)], dur) * jitter(dur, rng, 120, 0.12)
        voice = harmonic_voice(f0, [(1600, 450, 1.0), (3000, 600, 0.7)], tilt=0.5)
        hiss = band_noise(dur, rng, [(2600, 1200, 1.0)])
        return (voice / np.max(np.abs(voice)) + 0.35 * hiss) * envelope(dur, 0.01, 0.08)
    return place([(0.0, squawk(0.22, 720)), (0.27, squawk(0.3, 640))])


def snore(rng: np.random.Generator) -> np.ndarray:
    inhale_dur, exhale_dur = 0.75, 0.55
    t = seconds(inhale_dur)
    flutter = 0.25 + 0.75 * (0.5 + 0.5 * np.sin(2 * np.pi * 28 * t)) ** 3  # the soft palate rattling
    inhale = band_noise(inhale_dur, rng, [(250, 150, 1.0), (700, 300, 0.4)]) * flutter \
        * envelope(inhale_dur, 0.35, 0.12)
    exhale = band_noise(exhale_dur, rng, [(1800, 1000, 1.0)]) * envelope(exhale_dur, 0.05, 0.4) * 0.5
    return place([(0.0, inhale), (0.85, exhale)])


def bottle_pop(rng: np.random.Generator) -> np.ndarray:
    dur = 0.09
    f = glide([(0, 1100), (dur, 420)], dur)
    pop = np.sin(2 * np.pi * np.cumsum(f) / RATE) * decay(dur, 0.02, 0.0008)
    snap = band_noise(0.01, rng, [(3000, 2000, 1.0)]) * decay(0.01, 0.002, 0.0003)
    fizz_dur = 0.3
    n = len(seconds(fizz_dur))
    bubbles = (rng.random(n) < 0.08) * rng.uniform(0.3, 1.0, n)  # sparse tiny pops
    fizz = colour(bubbles, [(5500, 1800, 1.0)]) * decay(fizz_dur, 0.08, 0.02)
    return place([(0.0, 0.6 * snap), (0.002, pop), (0.04, 0.15 * fizz)])


def riffle(rng: np.random.Generator) -> np.ndarray:
    flicks, at = [], 0.0
    while at < 0.55:  # two halves of a deck falling together, quicker and quicker
        flicks.append((at, band_noise(0.02, rng, [(4000, 2000, 1.0)]) * decay(0.02, 0.004, 0.0005)
                       * rng.uniform(0.5, 1.0)))
        at += 0.032 * (1 - 0.6 * at / 0.55) * rng.uniform(0.8, 1.2)
    bridge_dur = 0.25  # the cards squared up with a soft whoosh
    bridge = band_noise(bridge_dur, rng, [(2500, 1500, 1.0)]) * envelope(bridge_dur, 0.1, 0.12) * 0.5
    return place(flicks + [(0.6, bridge)])


def round_fanfare(rng: np.random.Generator) -> np.ndarray:
    c, e, g = hz(60), hz(64), hz(67)
    line = [(0.0, c, 0.14), (0.15, c, 0.14), (0.3, c, 0.14), (0.45, g, 0.75)]
    harmony = [(0.0, hz(55), 0.14), (0.15, hz(55), 0.14), (0.3, hz(55), 0.14), (0.45, e, 0.75)]
    parts = [(at, note(f, d, "brass")) for at, f, d in line]
    parts += [(at, 0.6 * note(f, d, "brass")) for at, f, d in harmony]
    parts.append((0.45, 0.5 * note(hz(84), 0.6)))
    return echo(place(parts), 0.12, 0.22, 2)


def treasure_fanfare(rng: np.random.Generator) -> np.ndarray:
    run = [hz(m) for m in (60, 64, 67, 72, 76)]
    parts = [(i * 0.12, note(f, 0.3, "brass")) for i, f in enumerate(run)]
    for m, gain in ((72, 1.0), (76, 0.7), (79, 0.7), (60, 0.6)):
        parts.append((0.62, gain * note(hz(m), 1.5, "brass")))
    for i in range(14):  # gold glittering on the island
        parts.append((0.7 + i * 0.1, 0.35 * note(hz(int(rng.choice([84, 86, 88, 91, 93, 96]))), 0.4)))
    return echo(place(parts), 0.13, 0.2, 2)


def siren(rng: np.random.Generator) -> np.ndarray:
    parts = []
    for i in range(4):  # the two-tone horn: high, low, high, low
        freq = hz(74) if i % 2 == 0 else hz(69)
        dur = 0.34
        f = np.full_like(seconds(dur), freq) * (1 + 0.01 * np.sin(2 * np.pi * 6 * seconds(dur)))
        parts.append((i * 0.35, harmonic_voice(f, [(1300, 600, 1.0)], tilt=1.2, floor=0.02)
                      * envelope(dur, 0.015, 0.03)))
    return place(parts)


def game_over(rng: np.random.Generator) -> np.ndarray:
    melody = [(0.0, 72, 0.2), (0.13, 76, 0.2), (0.26, 79, 0.2), (0.39, 84, 0.35),
              (0.75, 79, 0.15), (0.9, 84, 1.2)]
    parts = [(at, note(hz(m), d, "marimba")) for at, m, d in melody]
    for m in (60, 64, 67):
        parts.append((0.9, 0.5 * note(hz(m), 1.3, "brass")))
    trill = [(0.9 + i * 0.07, 0.25 * note(hz(96 if i % 2 else 91), 0.12)) for i in range(10)]
    return echo(place(parts + trill), 0.12, 0.2, 2)


def resumed(rng: np.random.Generator) -> np.ndarray:
    dur = 0.25
    sweep = glide([(0, 300), (dur, 1200)], dur)
    whoosh = np.sin(2 * np.pi * np.cumsum(sweep) / RATE) * envelope(dur, 0.05, 0.05) * 0.5
    return place([(0.0, whoosh), (0.22, note(hz(79), 0.18)), (0.34, note(hz(84), 0.35))])


def attract_jingle(rng: np.random.Generator) -> np.ndarray:
    tune = [72, 76, 79, 76, 77, 81, 79, None, 76, 79, 84, 83, 84]
    parts = [(i * 0.2, note(hz(m), 0.35, "marimba")) for i, m in enumerate(tune) if m is not None]
    bass = [(i * 0.8, 0.5 * note(hz(m), 0.6, "marimba")) for i, m in enumerate((48, 53, 55, 48))]
    return echo(place(parts + bass), 0.15, 0.2, 1)


@dataclass(frozen=True, slots=True)
class Sound:
    """A sound of the set: how it is made and what the box plays it for."""

    make: Callable[[np.random.Generator], np.ndarray]
    purpose: str
    fanfare: bool = False


SOUNDS: dict[str, Sound] = {
    "woof": Sound(woof, "Floppy Ears: a player barks \"woof\" (one card left)."),
    "woof-woof": Sound(woof_woof, "Floppy Ears: \"woof woof\" with the last card."),
    "growl": Sound(growl, "A penalty: an ear that did not match, a forgotten bark or Mau."),
    "stop-ear": Sound(stop_ear, "Floppy Ears: a hand card was played while an ear card matched (ear first!)."),
    "whistle": Sound(whistle, "Policecats: the die shows the whistle."),
    "meow": Sound(meow, "Policecats: kittens run to a parent; a family is complete."),
    "squeak": Sound(squeak, "Policecats: the die shows the mouse (lure a cat)."),
    "dog-bark": Sound(dog_bark, "Policecats: the die shows the dog (give a cat away)."),
    "die-rattle": Sound(die_rattle, "The die is rolled (the die button)."),
    "card-ok": Sound(card_ok, "A tapped card was accepted; a colour was wished; the volume changed."),
    "card-rejected": Sound(card_rejected, "A tapped card was refused (does not match, not your turn, not now)."),
    "wait": Sound(wait, "The die button was pressed too soon after the turn passed: wait for your turn."),
    "unknown-card": Sound(unknown_card, "A tag the box does not know, or a card of another game."),
    "ship-horn": Sound(ship_horn, "Pirate & Co.: the sailing ship turns the direction."),
    "parrot": Sound(parrot, "Pirate & Co.: a parrot was played; a colour is to be chosen."),
    "snore": Sound(snore, "Pirate & Co.: the sleeping pirate makes the next player miss a turn."),
    "bottle-pop": Sound(bottle_pop, "Pirate & Co.: a bottle post makes the next player draw."),
    "riffle": Sound(riffle, "The discard pile is shuffled into a new stack."),
    "round-fanfare": Sound(round_fanfare, "Pirate & Co.: a round is won and a ship sails one cross on.", fanfare=True),
    "treasure-fanfare": Sound(treasure_fanfare, "Pirate & Co.: a ship reaches Treasure Island.", fanfare=True),
    "siren": Sound(siren, "Policecats: the policecat figure moves (taken, back to the centre, on the alarm track)."),
    "game-over": Sound(game_over, "The game is won (Floppy Ears, Policecats) or ends in a tie.", fanfare=True),
    "resumed": Sound(resumed, "The box picks up a game where it stopped (after a power cut)."),
    "attract-jingle": Sound(attract_jingle, "A new game starts; in kiosk mode, an invitation to passers-by.", fanfare=True),
}

MAX_SECONDS = 1.6
"""Longest a sound may be, so it never holds up play."""

MAX_FANFARE_SECONDS = 4.0
"""Longest a fanfare may be: celebrations may take their time, but not much."""


def render(name: str) -> np.ndarray:
    """The finished samples of one sound: synthesised, faded, loudness-matched, peak-limited."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    raw = SOUNDS[name].make(rng)
    return normalise(fade(raw))


def main(argv: list[str]) -> int:
    names = argv or list(SOUNDS)
    unknown = [n for n in names if n not in SOUNDS]
    if unknown:
        print(f"unknown sound(s): {', '.join(unknown)}; known: {', '.join(SOUNDS)}", file=sys.stderr)
        return 2
    for name in names:
        x = render(name)
        write_wav(HERE / f"{name}.wav", x)
        print(f"{name}.wav  {len(x) / RATE:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
