"""The bill of materials of a profile: what to buy to build that box, with quantities.

Every quantity comes from somewhere a test can follow: a part per device of
the profile, the strip's length from its pixel count, the LED supply from
the power budget (the same sum :func:`hardware.config.cross_check` holds the
brightness cap to), a sticker per card of :mod:`controller.decks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from controller.decks import CONTROL, DECKS
from controller.wiring.pi import led_supply_amps
from hardware.config import GpioButtonConfig, Pn532Config, Profile, SpiStripConfig
from hardware.pixels import worst_case_milliamps

PIXELS_PER_METRE = 60  # the reference strip: WS2812B, 60 a metre (16.7 mm apart)
GATES_PER_SHIFTER = 4  # a 74AHCT125 lifts four data lines


@dataclass(frozen=True)
class Item:
    quantity: str
    part: str
    note: str


def bill(profile: Profile) -> list[Item]:
    """Everything to buy for ``profile``'s box, the Pi first, the cards last."""
    items = [
        Item("1", "Raspberry Pi 4 Model B (2 GB is plenty) or Raspberry Pi 5", "a Pi 3 B+ works too"),
        Item("1", "official USB-C supply: 5.1 V 3 A for a Pi 4, 5.1 V 5 A for a Pi 5", "for the Pi alone"),
        Item("1", "microSD card, 16 GB or more", "Raspberry Pi OS bookworm, 64-bit"),
    ]
    items += _buttons(profile) + _readers(profile) + _leds(profile) + _sound(profile)
    if profile.puck is not None and profile.puck.driver == "serial":
        items.append(Item("1", "die puck", "its own parts: firmware/README.md"))
    else:
        items.append(Item("(1)", "die puck, optional", "its own parts: firmware/README.md; add a [puck] table"))
    cards = sum(len(deck) for deck in DECKS.values())
    decks = ", ".join(f"{name} {len(deck)}" for name, deck in DECKS.items())
    items += [
        Item(str(cards), "NTAG213 stickers, 25 mm round", f"one per card: {decks}; NTAG215/216 work too"),
        Item(str(len(CONTROL)), "NTAG213 cards (or a sticker on a blank card each)",
             "the control cards: game, players, variants, new game, undo, off, volume, language, pairing a phone"),
        Item("", "wires, a box with a thin lid over the reader", "NFC reads through 2–3 mm of wood or card, not metal"),
    ]
    return items


def _buttons(profile: Profile) -> list[Item]:
    gpio = [name for name, button in profile.buttons.items() if isinstance(button, GpioButtonConfig)]
    return [Item("1", f"{'60' if name == 'die' else '30'} mm arcade push button", f"the {name} button")
            for name in gpio]


def _readers(profile: Profile) -> list[Item]:
    kinds: dict[str, list[str]] = {}
    for name, reader in profile.readers.items():
        if isinstance(reader, Pn532Config):
            mode = {"spi": "SPI", "i2c": "I²C", "uart": "HSU"}[reader.bus]
            kind = f"PN532 NFC module (e.g. the red \"PN532 NFC V3\" board), mode switches set to {mode}"
        elif reader.driver == "rc522":
            kind = "RC522 NFC module"
        elif reader.driver == "keyboard":
            kind = "USB NFC reader that types the card's uid"
        else:
            continue
        kinds.setdefault(kind, []).append(name)
    return [Item(str(len(names)), kind, "reader " + ", ".join(names)) for kind, names in kinds.items()]


def _leds(profile: Profile) -> list[Item]:
    leds = profile.leds
    strips = {name: strip for name, strip in leds.strips.items() if isinstance(strip, SpiStripConfig)}
    if not strips:
        return []
    pixels = sum(strip.pixels for strip in strips.values())
    items = []
    for name, strip in strips.items():
        runs = [f"{seg} {_length(s.count)}" for seg, s in leds.segments.items() if s.strip == name]
        metres = math.ceil(strip.pixels / PIXELS_PER_METRE)
        cut = f", cut into runs joined in one chain: {', '.join(runs)}" if runs else ""
        items.append(Item(f"{metres} m", f"WS2812B strip, {PIXELS_PER_METRE} pixels a metre, 5 V",
                          f"strip {name}: {strip.pixels} pixels{cut}"))
    count = len(strips)
    worst = worst_case_milliamps(pixels, leds.brightness)
    budget = leds.power_budget_ma or worst
    full = worst_case_milliamps(pixels, 1.0)
    items += [
        Item(str(math.ceil(count / GATES_PER_SHIFTER)), "74AHCT125 level shifter", "lifts the 3.3 V data line to 5 V"),
        Item(str(count), "330 Ω resistor", "in the data line at the strip's input"),
        Item(str(count), "1000 µF 6.3 V capacitor", "across the strip's supply, at the strip"),
        Item("1", f"5 V {led_supply_amps(budget):g} A supply", f"for the LEDs alone: {pixels} pixels all white draw "
             f"{full / 1000:g} A; the brightness cap {leds.brightness:g} holds them to {worst / 1000:.2f} A, within "
             f"the budget of {budget / 1000:g} A (power_budget_ma)"),
    ]
    return items


def _length(pixels: int) -> str:
    return f"{pixels} pixels ({pixels * 1000 / PIXELS_PER_METRE / 10:.0f} cm)"


def _sound(profile: Profile) -> list[Item]:
    speaker = profile.speaker
    if speaker.driver != "pygame":
        return []
    if speaker.device:
        return [Item("1", f"USB speaker ({speaker.device})", "named in speaker.device")]
    return [Item("1", "small powered speaker with a 3.5 mm plug (Pi 4), or a USB speaker",
                 "a Pi 5 has no audio jack: use a USB speaker and name it in speaker.device")]


def markdown(profile: Profile) -> str:
    """The bill as a Markdown table."""
    lines = ["| qty | part | note |", "|---|---|---|"]
    lines += [f"| {item.quantity} | {item.part} | {item.note} |" for item in bill(profile)]
    return "\n".join(lines) + "\n"
