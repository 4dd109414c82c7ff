"""Which animation the strip shows: for a show's light, and for each segment at rest in a scene.

Pure functions of what is shown (a light's name, a segment, a scene), so the
box's stage and the kiosk display, which only reads the journal, draw the same
thing from the same code. :data:`SHOW_LIGHTS` is the one list of the lights a
show may name: the shows file is checked against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from controller.stage.lights.attract import Attract
from controller.stage.lights.base import Animation, Still, spread
from controller.stage.lights.colors import CARD_COLORS, OFF, RGB, SEAT_COLORS, WHITE
from controller.stage.lights.die import DieRoll
from controller.stage.lights.police import PoliceTrack, Siren
from controller.stage.lights.ring import TurnRing, WishedColor
from controller.stage.lights.sea import SeaRoute, ShipSail, TreasureSparkle
from controller.stage.lights.signals import RejectionFlash, ResumedSweep, Waiting

if TYPE_CHECKING:  # the box's Scene; the lights import nothing of the box at run time
    from controller.stage.scene import Scene

#: The die's faces as :class:`DieRoll` draws them (1 pip for the cat ... 4 for the whistle).
DIE_FACES: dict[str, int] = {"cat": 1, "dog": 2, "mouse": 3, "whistle": 4}
UNHELD: RGB = (20, 20, 40)
"""The police track while nobody holds the policecat figure."""


def rgb(name: str | None, fallback: RGB = WHITE) -> RGB:
    """A colour a show names: a card colour or "white"; anything else is ``fallback``."""
    if name in CARD_COLORS:
        return CARD_COLORS[name]
    return WHITE if name == "white" else fallback


@dataclass(frozen=True, slots=True)
class LightCall:
    """A show's light, about to start on one segment: what its animation is built from."""

    n: int
    rest: Sequence[RGB]  # the frame it plays over and leaves behind
    color: RGB
    context: dict[str, Any] = field(default_factory=dict)  # the event's details
    scene: "Scene | None" = None  # what the segments showed before the event


def _ship_sail(call: LightCall) -> Animation | None:
    scene, seat = call.scene, call.context.get("player")
    if scene is None or not scene.ships or seat is None:
        return None
    # the scene still shows the ships as they were before this round was won
    steps = max(1, scene.wins_needed)
    ships = [min(s, steps - 1) if i == seat else min(s, steps) for i, s in enumerate(scene.ships)]
    return ShipSail(n=call.n, rest=call.rest, steps=steps, ships=ships, seat=seat)


#: Every light a show may name, and how it is built for a segment (None: nothing to show).
SHOW_LIGHTS: dict[str, Callable[[LightCall], Animation | None]] = {
    "rejection-flash": lambda c: RejectionFlash(n=c.n, rest=c.rest, color=c.color),
    "wished-color": lambda c: WishedColor(n=c.n, rest=c.rest, color=c.color),
    "ship-sail": _ship_sail,
    "treasure-sparkle": lambda c: TreasureSparkle(n=c.n, rest=c.rest),
    "siren": lambda c: Siren(n=c.n, rest=c.rest),
    "die-roll": lambda c: DieRoll(n=c.n, rest=c.rest, face=DIE_FACES.get(c.context.get("face"), 1)),
    "resumed-sweep": lambda c: ResumedSweep(n=c.n, rest=c.rest),
    "attract": lambda c: Attract(n=c.n),
    "waiting": lambda c: Waiting(n=c.n, color=c.color, seconds=float(c.context.get("seconds", 0.0))),
}


def show_animation(light: str, call: LightCall) -> Animation | None:
    """The animation a show's ``light`` plays on a segment; None for a light with nothing to show now."""
    build = SHOW_LIGHTS.get(light)
    return build(call) if build is not None else None


def scene_animation(segment: str, n: int, scene: "Scene") -> Animation:
    """What ``segment`` (``n`` pixels) shows at rest in ``scene``: whose turn, the sea route, the police track."""
    if scene.mode == "menu":
        if segment == "turn-ring":
            return Attract(n=n) if scene.attract else Still(n=n, pixels=[SEAT_COLORS[i % 4] for i in range(n)])
        return Still(n=n, pixels=[OFF] * n)
    seat = scene.winners[0] if scene.mode == "over" and scene.winners else scene.current
    if segment == "turn-ring" and seat is not None:
        if scene.choosing_color:
            return Still(n=n, pixels=[rgb(scene.color)] * n)
        if scene.ear is not None:  # Floppy Ears' setup: whose ear, and which side
            return TurnRing(n=n, seat=seat, players=scene.players, arcs=ear_arcs(n, scene.players, seat, scene.ear))
        return TurnRing(n=n, seat=seat, players=scene.players, match=CARD_COLORS.get(scene.color or ""))
    if segment == "sea-route" and scene.game == "pirates" and scene.ships:
        return SeaRoute(n=n, steps=max(1, scene.wins_needed), ships=[min(s, scene.wins_needed) for s in scene.ships])
    if segment == "police-track" and scene.game == "policecats":
        if scene.track is not None:
            return PoliceTrack(n=n, position=scene.track)
        return Still(n=n, pixels=[SEAT_COLORS[scene.police] if scene.police is not None else UNHELD] * n)
    return Still(n=n, pixels=[OFF] * n)


def ear_arcs(n: int, players: int, seat: int, ear: str) -> list[tuple[int, int]]:
    """The turn ring's seat arcs with ``seat``'s narrowed to the side of the ear to hang.

    The ring runs clockwise seen from above, so for a player facing the box
    the later half of their arc is on their left.
    """
    arcs = spread(n, players)
    start, width = arcs[seat]
    half = max(1, width // 2)
    arcs[seat] = (start + width - half, half) if ear == "left" else (start, half)
    return arcs


def rest_frame(segment: str, n: int, scene: "Scene", settle: float = 30.0) -> list[RGB]:
    """``segment``'s pixels once the scene's animation has settled (a breathing menu at ``settle`` s)."""
    return scene_animation(segment, n, scene).frame(settle)
