"""The renderer draws a table view exactly: LEDs in their colours, the pile's card, your ears face down (issue 6)."""

from __future__ import annotations

import pygame
import pytest

from controller.lights import CARD_COLORS, SEAT_COLORS
from controller.window.render import BACK, LED_RIM, PANEL, Renderer
from controller.window.view import SeatView, TableView

SEA = tuple((0, 25 * (i % 3), 70 + 5 * i) for i in range(24))
TRACK = tuple((10 * i, 0, 255 - 10 * i) for i in range(24))
RING = tuple(SEAT_COLORS[i // 4] for i in range(12))


def floppy_view(**changes) -> TableView:
    seats = (
        SeatView(0, "You", hand=3, ears=("red-1", "blue-2"), ears_hidden=True),
        SeatView(1, "Player 2", hand=4, ears=("green-3", "yellow-6")),
        SeatView(2, "Player 3", hand=2, ears=("blue-7", None)),
    )
    view = dict(
        players=3, current=1, awaiting="play", waiting_for=1, seats=seats, top="blue-5", stack=12, color="blue",
        hand=("red-3", "joker-1", "green-7"), own_ears=("red-1", "blue-2"),
        leds=(("sea-route", SEA), ("police-track", TRACK), ("turn-ring", RING)),
        prompt="Player two, green: your turn!", hint="Player 2 (green) is playing...",
    )
    view.update(changes)
    return TableView("floppy-ears", **view)


def draw(view: TableView, size=(1280, 800)):
    pygame.font.init()
    surface = pygame.Surface(size)
    return surface, Renderer().draw(surface, view)


@pytest.mark.parametrize("size", [(1280, 800), (800, 500), (1920, 1080), (1000, 900)])
def test_every_led_is_drawn_in_the_colour_the_strip_shows(size) -> None:
    surface, drawn = draw(floppy_view(), size)
    for segment, pixels in (("sea-route", SEA), ("police-track", TRACK), ("turn-ring", RING)):
        points = drawn.leds[segment]
        assert len(points) == len(pixels)
        for point, rgb in zip(points, pixels):
            assert surface.get_rect().collidepoint(point)
            assert tuple(surface.get_at(point))[:3] == rgb, (segment, point)


def test_unlit_leds_are_black_dots_with_a_rim_so_a_dark_strip_is_still_seen() -> None:
    dark = tuple((0, 0, 0) for _ in range(24))
    surface, drawn = draw(floppy_view(leds=(("sea-route", dark),)))
    x, y = drawn.leds["sea-route"][5]
    assert tuple(surface.get_at((x, y)))[:3] == (0, 0, 0)
    assert tuple(surface.get_at((x + 12, y)))[:3] == LED_RIM  # just outside the 11-pixel dot at 1280 x 800


def test_the_turn_ring_puts_your_seat_at_the_bottom_and_goes_round_clockwise() -> None:
    _surface, drawn = draw(floppy_view())
    ring = drawn.leds["turn-ring"]
    xs, ys = [p[0] for p in ring], [p[1] for p in ring]
    centre_x, centre_y = sum(xs) / len(xs), sum(ys) / len(ys)
    first_arc = ring[0:4]  # seat 0's four pixels of twelve at three seats
    assert all(y > centre_y for _x, y in first_arc), "your arc faces you"
    assert sum(x for x, _ in ring[4:8]) / 4 < centre_x, "the next seat (on your left) has the left side"


def test_the_top_card_and_the_colour_to_match_are_shown_in_their_colours() -> None:
    surface, drawn = draw(floppy_view(top="red-4", color="red"))
    assert tuple(surface.get_at(drawn.spots["pile"]))[:3] == CARD_COLORS["red"]
    assert tuple(surface.get_at(drawn.spots["match"]))[:3] == CARD_COLORS["red"]
    surface, drawn = draw(floppy_view(top="joker-2", color="green", choosing_color=True))
    assert tuple(surface.get_at(drawn.spots["match"]))[:3] == CARD_COLORS["green"]


def test_everyones_ears_are_face_up_but_your_own_which_you_must_remember() -> None:
    surface, drawn = draw(floppy_view())
    assert tuple(surface.get_at(drawn.spots["ear:1:0"]))[:3] == CARD_COLORS["green"]
    assert tuple(surface.get_at(drawn.spots["ear:1:1"]))[:3] == CARD_COLORS["yellow"]
    assert tuple(surface.get_at(drawn.spots["ear:2:0"]))[:3] == CARD_COLORS["blue"]
    assert "ear:2:1" not in drawn.spots  # no ear hangs there
    for side in (0, 1):
        assert tuple(surface.get_at(drawn.spots[f"ear:0:{side}"]))[:3] == BACK
    # face down, yet yours to tap
    assert drawn.target_at(drawn.spots["ear:0:0"]) == "card:red-1"


def test_the_kiosk_display_hides_every_ear() -> None:
    seats = tuple(SeatView(s, f"Player {s + 1}", hand=3, ears=("red-1", "blue-2"), ears_hidden=True) for s in range(3))
    surface, drawn = draw(floppy_view(you=None, seats=seats, table=False, hand=(), own_ears=None))
    for s in range(3):
        assert tuple(surface.get_at(drawn.spots[f"ear:{s}:0"]))[:3] == BACK
    assert not [t for t in drawn.targets if t.startswith("card:")], "nothing to tap on the display"
    assert "die" not in drawn.targets


def test_your_cards_the_stack_the_die_and_the_colour_buttons_can_be_clicked() -> None:
    surface, drawn = draw(floppy_view(), (1000, 700))
    targets = drawn.targets
    for target in ("card:red-3", "card:joker-1", "card:green-7", "stack", "die", "color:yellow", "color:red"):
        assert target in targets
    red3 = drawn.rect_of("card:red-3")
    assert drawn.target_at(red3.center) == "card:red-3"
    assert tuple(surface.get_at((red3.x + red3.w * 4 // 5, red3.y + red3.h * 7 // 8)))[:3] == CARD_COLORS["red"]
    assert drawn.target_at((0, 0)) is None


def test_policecats_cats_lie_by_family_and_each_can_be_tapped() -> None:
    seats = (
        SeatView(0, "You", cards=("family-2-mother",), score=1, families=0),
        SeatView(1, "Player 2", cards=("family-3-kittens", "family-3-mother", "police-4"), score=3, families=1,
                 police=True),
        SeatView(2, "Player 3", cards=(), score=0, families=0),
    )
    view = TableView("policecats", players=3, current=0, awaiting="lure", waiting_for=0, seats=seats, stack=20,
                     hand=("family-2-mother",), leds=(("turn-ring", RING),))
    _surface, drawn = draw(view)
    for card in ("family-3-kittens", "family-3-mother", "police-4", "family-2-mother"):
        rect = drawn.rect_of(f"card:{card}")
        assert rect is not None
    mother, kittens = drawn.rect_of("card:family-3-mother"), drawn.rect_of("card:family-3-kittens")
    assert mother.x == kittens.x and mother.y < kittens.y, "a family's cards overlap in one column"
    assert drawn.target_at((mother.centerx, mother.top + 3)) == "card:family-3-mother"


def test_the_seat_the_table_waits_for_stands_out_in_its_colour() -> None:
    surface, drawn = draw(floppy_view(waiting_for=2))
    assert tuple(surface.get_at(drawn.spots["seat:2"]))[:3] == SEAT_COLORS[2]
    assert tuple(surface.get_at(drawn.spots["seat:1"]))[:3] == PANEL
    assert "seat:0" not in drawn.spots, "your own seat is the bottom of the window, not a panel"
