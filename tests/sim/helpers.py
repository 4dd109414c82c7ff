"""The simulator in-process on a fake clock, driven through its window's input path (headless SDL)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Callable

import pygame

from controller.autoplay import Input
from controller.box.box import DIE
from controller.window.render import Drawn
from controller.window.screen import Window
from controller.window.sim import SimApp
from hardware.clock import FakeClock


@asynccontextmanager
async def sim_app(tmp_path: Path, game: str | None, players: int | None = None, seed: int = 1,
                  human: int | None = 0) -> AsyncIterator[tuple[SimApp, FakeClock]]:
    clock = FakeClock(1000.0)
    app = SimApp(clock, Window("gamebox test"), game=game, players=players, seed=seed, human=human,
                 state_dir=tmp_path)
    await app.start()
    try:
        yield app, clock
    finally:
        await app.stop()


async def until(clock: FakeClock, app: SimApp, check: Callable[[], bool], limit: float = 600.0) -> None:
    """Let table time pass until ``check()`` (the window redrawing as it would)."""
    waited = 0.0
    while not check():
        if waited > limit:
            raise AssertionError(f"still waiting after {limit} s of table time")
        await clock.run_for(0.25)
        app.refresh()
        waited += 0.25


def box_quiet(app: SimApp) -> bool:
    """The box has said everything it queued."""
    stage = app.daemon.stage
    return not stage.voice and app.clock.monotonic() >= stage.voice_free


def pixel(app: SimApp, point: tuple[int, int]) -> tuple[int, int, int]:
    return tuple(app.screen.surface().get_at(point))[:3]


def visible_point(drawn: Drawn, target: str) -> tuple[int, int]:
    """A point where a click lands on ``target`` (not on something drawn over it)."""
    rect = drawn.rect_of(target)
    assert rect is not None, f"{target} is not on the screen; targets: {drawn.targets}"
    if drawn.target_at(rect.center) == target:
        return rect.center
    for y in range(rect.top + 2, rect.bottom, 3):
        for x in range(rect.left + 2, rect.right, 3):
            if drawn.target_at((x, y)) == target:
                return x, y
    raise AssertionError(f"{target} is covered")


def click(app: SimApp, target: str) -> None:
    """Press and release the mouse on a target, as events through pygame's queue."""
    app.refresh()
    point = visible_point(app.drawn, target)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=point, button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=point, button=1))
    app.handle(pygame.event.get())


def key(app: SimApp, name: int, up: bool = False, mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYUP if up else pygame.KEYDOWN, key=name, mod=mod, unicode=""))
    app.handle(pygame.event.get())


async def space(app: SimApp, clock: FakeClock) -> None:
    """A short press of the die button: SPACE down, a moment, SPACE up."""
    key(app, pygame.K_SPACE)
    await clock.run_for(0.05)
    key(app, pygame.K_SPACE, up=True)


async def act(app: SimApp, clock: FakeClock, step: Input) -> None:
    """One physical input of seat 0, done with the mouse and the keyboard of the window."""
    if step.kind == "tap":
        if step.value == app.hands.stack_top():
            key(app, pygame.K_s)
        else:
            click(app, f"card:{step.value}")
    elif step.kind == "press" and step.value == DIE:
        await space(app, clock)
    elif step.kind == "hold" and step.value == DIE:
        key(app, pygame.K_h)
    elif step.kind == "wait":
        await clock.run_for(step.value)
    else:
        raise AssertionError(f"no window input for {step}")
    await clock.run_for(0.3)
    app.refresh()


async def play_your_turns(app: SimApp, clock: FakeClock, stop: Callable[[], bool], limit: int = 3000) -> list[str]:
    """Play seat 0 through the window (a greedy player's choices) while the bots play theirs, until ``stop()``.

    Returns the kinds of the actions seat 0 meant, in order.
    """
    yours: list[str] = []
    for _ in range(limit):
        if stop():
            return yours
        await clock.run_for(0.5)
        app.refresh()
        box = app.daemon.box
        if box.engine is None or box.pending is not None or not app.seats.human_may_act():
            continue
        if box.engine.over or app.seats.awaited() != 0 or not box_quiet(app):
            continue  # like the bots, you let the box finish speaking first
        seat, action = app.seats.auto.choose()
        assert seat == 0
        for step in app.seats.auto.inputs(action):
            await act(app, clock, step)
        yours.append(action["type"])
    raise AssertionError(f"not done after {limit} looks")
