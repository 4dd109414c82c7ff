"""What the LED segments show between shows, and where the box's answers go.

:class:`Scene` is derived from the box's state only, so the box and the kiosk
display (which reads the journal) draw the same table from the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(slots=True)
class Scene:
    """What the LED segments show when no animation plays: derived from the box state."""

    mode: str  # "menu", "play", "over"
    game: str | None = None
    players: int = 0
    current: int | None = None
    color: str | None = None  # the colour to match, or the colour being chosen
    choosing_color: bool = False
    ships: list[int] = field(default_factory=list)
    wins_needed: int = 0
    police: int | None = None
    track: int | None = None
    winners: list[int] = field(default_factory=list)
    attract: bool = False  # the menu has waited long enough to invite people to play
    ear: str | None = None  # Floppy Ears setup: the side ("left", "right") of the ear to hang next, at ``current``


def scene_for(game: str, players: int, options: dict[str, Any], view: dict[str, Any], wish: str | None = None,
              hang: tuple[int, str] | None = None) -> Scene:
    """What the LED segments show for a referee's view; the box and the kiosk display both draw from this.

    ``wish`` is the colour being chosen on the turn ring, when a colour is
    awaited; ``hang`` the seat and side of the ear awaited during Floppy Ears'
    setup, so the ring lights whose ear it is.
    """
    choosing = view.get("awaiting") == "choose_color"
    return Scene(
        "over" if view.get("awaiting") == "over" else "play",
        game=game,
        players=players,
        current=hang[0] if hang else view.get("current"),
        color=wish if choosing and wish else view.get("color"),
        choosing_color=choosing,
        ships=list(view.get("ships") or []),
        wins_needed=options.get("wins_needed", 0),
        police=view.get("police"),
        track=view.get("track"),
        winners=list(view.get("winners") or []),
        ear=hang[1] if hang else None,
    )


class Stage(Protocol):
    """Where the box's answers go: sound and light on the devices."""

    def show(self, name: str, **context: Any) -> None:
        """A one-off show for an event or an answer (``stop_ear``, ``rejected``, ...)."""

    def prompt(self, prompt_id: str, **context: Any) -> None:
        """Say what the box is waiting for (a voice line and its light)."""

    def scene(self, scene: Scene) -> None:
        """Set what the LED segments show between shows."""
