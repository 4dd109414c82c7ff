"""The window's inputs: mouse clicks and keys turned into what a hand does at the box.

Every click has a key that does the same, so the simulator can be played
without a mouse (and driven by tests through the same path):

=================  ==================================================
click a card       tap it on the reader; keys 1-9 pick your hand's cards
click your ear     tap it (keys [ and ]); it lies face down
click the stack    turn up its top card (S)
die button         mouse down/up or SPACE down/up; held for the hold
                   time it is a hold; H holds at once
colour buttons     Y G B R
Tab / arrows       move the white frame; Enter taps what it frames
N                  the new-game control card (back to the box's menu)
Q, Escape          quit
=================  ==================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from controller.window.render import Drawn
from controller.window.view import TableView

COLOR_KEYS = {pygame.K_y: "yellow", pygame.K_g: "green", pygame.K_b: "blue", pygame.K_r: "red"}
NUMBER_KEYS = {getattr(pygame, f"K_{n}"): n for n in range(1, 10)}
NUMBER_KEYS.update({getattr(pygame, f"K_KP{n}"): n for n in range(1, 10)})
EAR_KEYS = {pygame.K_LEFTBRACKET: 0, pygame.K_RIGHTBRACKET: 1}
RESIZES = {getattr(pygame, name) for name in ("VIDEORESIZE", "WINDOWRESIZED", "WINDOWSIZECHANGED") if hasattr(pygame, name)}
EXPOSES = {getattr(pygame, name) for name in ("VIDEOEXPOSE", "WINDOWEXPOSED", "WINDOWSHOWN") if hasattr(pygame, name)}


@dataclass(frozen=True, slots=True)
class Command:
    """One thing the player at the window did.

    ``kind``: ``tap`` (value: a target such as ``card:red-5`` or ``stack``),
    ``die-down``/``die-up`` (value: ``mouse`` or ``key``), ``hold``,
    ``color`` (value: the colour), ``focus`` (value: ``+1``/``-1``),
    ``activate``, ``new-game``, ``redraw``, ``quit``.
    """

    kind: str
    value: str | None = None

    @property
    def acts(self) -> bool:
        """Whether it does something at the box (one such per batch of events: see SimApp.handle)."""
        return self.kind in ("tap", "die-down", "hold", "color", "activate", "new-game")


def commands(event: pygame.event.Event, drawn: Drawn | None, view: TableView | None) -> list[Command]:
    """What one pygame event means at the table."""
    kind = event.type
    if kind == pygame.QUIT:
        return [Command("quit")]
    if kind in RESIZES or kind in EXPOSES:
        return [Command("redraw")]
    if kind == pygame.MOUSEBUTTONDOWN and event.button == 1 and drawn is not None:
        target = drawn.target_at(event.pos)
        if target == "die":
            return [Command("die-down", "mouse")]
        if target is not None and target.startswith("color:"):
            return [Command("color", target.removeprefix("color:"))]
        return [Command("tap", target)] if target else []
    if kind == pygame.MOUSEBUTTONUP and event.button == 1:
        return [Command("die-up", "mouse")]
    if kind == pygame.KEYUP and event.key == pygame.K_SPACE:
        return [Command("die-up", "key")]
    if kind != pygame.KEYDOWN:
        return []
    key = event.key
    if key in (pygame.K_q, pygame.K_ESCAPE):
        return [Command("quit")]
    if key == pygame.K_SPACE:
        return [Command("die-down", "key")]
    if key == pygame.K_h:
        return [Command("hold")]
    if key in COLOR_KEYS:
        return [Command("color", COLOR_KEYS[key])]
    if key == pygame.K_s:
        return [Command("tap", "stack")]
    if key == pygame.K_n:
        return [Command("new-game")]
    if key in (pygame.K_TAB, pygame.K_RIGHT, pygame.K_DOWN, pygame.K_LEFT, pygame.K_UP):
        back = key in (pygame.K_LEFT, pygame.K_UP) or (key == pygame.K_TAB and event.mod & pygame.KMOD_SHIFT)
        return [Command("focus", "-1" if back else "+1")]
    if key in (pygame.K_RETURN, pygame.K_KP_ENTER):
        return [Command("activate")]
    if view is None:
        return []
    if key in NUMBER_KEYS and NUMBER_KEYS[key] <= len(view.hand):
        return [Command("tap", f"card:{view.hand[NUMBER_KEYS[key] - 1]}")]
    if key in EAR_KEYS and view.own_ears is not None and view.own_ears[EAR_KEYS[key]] is not None:
        return [Command("tap", f"card:{view.own_ears[EAR_KEYS[key]]}")]
    return []
