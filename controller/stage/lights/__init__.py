"""LED animations for the box's strips, as pure functions of time.

Each animation is a small frozen object built with keyword arguments, so a
show (data) can name one and give its parameters::

    ring = ANIMATIONS["turn-ring"](n=24, seat=1, players=3, match=CARD_COLORS["red"], brightness=0.4)
    ring.frame(0.1)        # -> 24 (r, g, b) tuples, capped at 40 % brightness
    ring.next_change(0.1)  # -> when to look again; None once it is still

``frame(t)`` takes the seconds since the animation began (from the box's
injectable clock), ``done(t)`` says it reached its final frame, and
``next_change(t)`` lets the box sleep instead of redrawing an unchanged strip.
Seat numbers are the engines' (0..4); ``SEAT_COLORS`` gives each its colour.
"""

from __future__ import annotations

from controller.stage.lights.attract import Attract
from controller.stage.lights.base import Animation, Frame, Still, cap
from controller.stage.lights.colors import CARD_COLORS, RGB, SEAT_COLOR_NAMES, SEAT_COLORS
from controller.stage.lights.die import DieRoll
from controller.stage.lights.police import PoliceTrack, Siren
from controller.stage.lights.ring import TurnRing, WishedColor
from controller.stage.lights.sea import SeaRoute, ShipSail, TreasureSparkle, sea_route
from controller.stage.lights.signals import RejectionFlash, ResumedSweep, Waiting

ANIMATIONS: dict[str, type[Animation]] = {
    "die-roll": DieRoll,
    "ship-sail": ShipSail,
    "sea-route": SeaRoute,
    "treasure-sparkle": TreasureSparkle,
    "siren": Siren,
    "police-track": PoliceTrack,
    "turn-ring": TurnRing,
    "wished-color": WishedColor,
    "rejection-flash": RejectionFlash,
    "resumed-sweep": ResumedSweep,
    "attract": Attract,
    "waiting": Waiting,
    "still": Still,
}
"""Every animation by the name a show uses for it."""

__all__ = [
    "ANIMATIONS", "Animation", "Attract", "CARD_COLORS", "DieRoll", "Frame", "PoliceTrack", "RGB",
    "RejectionFlash", "ResumedSweep", "SEAT_COLORS", "SEAT_COLOR_NAMES", "SeaRoute", "ShipSail", "Siren",
    "Still", "TreasureSparkle", "TurnRing", "Waiting", "WishedColor", "cap", "sea_route",
]
