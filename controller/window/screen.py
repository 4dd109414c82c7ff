"""Where frames go: a resizable window, or a surface off screen for ``--screenshot``.

A screenshot needs no display at all (it renders off screen and saves a
PNG), so it works over SSH and with ``SDL_VIDEODRIVER=dummy``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygame

SIZE = (1280, 800)
HEADLESS = ("offscreen", "dummy")


class NoDisplay(RuntimeError):
    """There is no screen to open a window on; the message is one line for people."""


class Window:
    """A resizable window; :meth:`surface` follows its size."""

    def __init__(self, title: str, size: tuple[int, int] = SIZE, fullscreen: bool = False) -> None:
        try:
            pygame.display.init()
            headless = pygame.display.get_driver() in HEADLESS
            if headless and os.environ.get("SDL_VIDEODRIVER") not in HEADLESS:  # asked for, it is fine (tests)
                raise pygame.error("no display found")
            pygame.font.init()
            flags = pygame.FULLSCREEN if fullscreen else pygame.RESIZABLE
            pygame.display.set_mode((0, 0) if fullscreen else size, flags)
        except pygame.error as error:
            pygame.display.quit()
            raise NoDisplay(f"cannot open a window ({error}): run it on a desktop, or use --screenshot FILE") from None
        pygame.display.set_caption(title)
        if fullscreen:
            pygame.mouse.set_visible(False)

    def surface(self) -> pygame.Surface:
        return pygame.display.get_surface()

    def present(self) -> None:
        pygame.display.flip()

    def close(self) -> None:
        pygame.display.quit()


class OffScreen:
    """A fixed-size surface that is never shown, only saved."""

    def __init__(self, size: tuple[int, int] = SIZE) -> None:
        pygame.font.init()
        self._surface = pygame.Surface(size)

    def surface(self) -> pygame.Surface:
        return self._surface

    def present(self) -> None:
        pass

    def close(self) -> None:
        pass


def save_png(surface: pygame.Surface, path: str | Path) -> Path:
    """Save a frame as PNG, creating the folder it goes in."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:  # PNG whatever the file is called
        pygame.image.save(surface, out, "png")
    return target
