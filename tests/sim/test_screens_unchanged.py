"""The sim's screenshots stay pixel for pixel what they were (issue 24: the renderer split by the table's parts).

Each case is ``gamebox sim --screenshot`` with seed 1: a real box set up
by its bots, then drawn. The digests are of the frames the renderer drew
before it was split (pygame-ce 2.5.8, its own bundled font); a change to
any part of the picture changes its digest. When a picture is meant to
change, look at the new PNG (``gamebox sim --game G --players N --moves M
--screenshot FILE``) before writing its digest here.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pygame
import pytest

from controller.window.sim import screenshot

SCREENS = {  # (game, players, moves, size): sha256 of the frame's RGB bytes, first 16 hex digits
    (None, None, 0, (1280, 800)): "6a9f674b28ecff60",  # the menu
    ("floppy-ears", 4, 25, (1280, 800)): "983efd906383ef6c",  # hands, ears, stack and pile
    ("pirates", 3, 20, (1280, 800)): "cd693a19680ec00d",  # the sea route and the ships
    ("policecats", 3, 15, (1280, 800)): "6272f5629ac2769a",  # the police track, cats by family, the die's face
    ("pirates", 2, 6, (800, 500)): "b687bdafe4e4a607",  # a small window
}


@pytest.mark.parametrize("case", list(SCREENS), ids=lambda c: f"{c[0] or 'menu'}-{c[1]}-{c[2]}-{c[3][0]}")
def test_the_screenshot_is_pixel_for_pixel_what_it_was(case, tmp_path: Path) -> None:
    game, players, moves, size = case
    path = asyncio.run(screenshot(tmp_path / "table.png", game, players, 1, moves, size))
    frame = pygame.image.load(str(path))
    assert frame.get_size() == size
    digest = hashlib.sha256(pygame.image.tobytes(frame, "RGB")).hexdigest()[:16]
    assert digest == SCREENS[case], f"the picture changed: look at {path}"
