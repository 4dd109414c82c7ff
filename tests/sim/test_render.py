"""The renderer draws a table view exactly: LEDs in their colours, the pile's card, your ears face down (issue 6)."""

from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from controller.stage.lights import CARD_COLORS, SEAT_COLORS
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
    for game, strip, pixels in (("pirates", "sea-route", SEA), ("policecats", "police-track", TRACK)):
        surface, drawn = draw(replace(floppy_view(), game=game), size)
        for segment, pixels in ((strip, pixels), ("turn-ring", RING)):
            points = drawn.leds[segment]
            assert len(points) == len(pixels)
            for point, rgb in zip(points, pixels):
                assert surface.get_rect().collidepoint(point)
                assert tuple(surface.get_at(point))[:3] == rgb, (segment, point)


def test_unlit_leds_are_black_dots_with_a_rim_so_a_dark_strip_is_still_seen() -> None:
    dark = tuple((0, 0, 0) for _ in range(24))
    surface, drawn = draw(replace(floppy_view(leds=(("sea-route", dark),)), game="pirates"))
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


def police_view(**changes) -> TableView:
    seats = (
        SeatView(0, "You", cards=(), score=0, families=0),
        SeatView(1, "Player 2", cards=("family-6-mother", "family-6-father"), score=3, families=0, police=True),
        SeatView(2, "Player 3", cards=("family-5-kittens",), score=4, families=0),
    )
    view = dict(players=3, current=1, awaiting="roll", waiting_for=1, seats=seats, stack=26,
                leds=(("sea-route", SEA), ("police-track", TRACK), ("turn-ring", RING)))
    view.update(changes)
    return TableView("policecats", **view)


def die_face_pixels(view: TableView) -> bytes:
    surface, drawn = draw(view)
    return pygame.image.tobytes(surface.subsurface(drawn.rect_of("die")), "RGB")


def test_policecats_the_die_shows_the_face_just_rolled() -> None:
    """Issue 12, bug 5: the die graphic showed the same face whatever was rolled."""
    faces = {face: die_face_pixels(police_view(die_face=face, awaiting="lure")) for face in ("cat", "dog", "mouse", "whistle")}
    assert len(set(faces.values())) == 4, "each face is drawn differently"
    assert faces["dog"] == die_face_pixels(police_view(die_face="dog", awaiting="lure")), "the same face, the same die"
    _surface, drawn = draw(police_view(die_face="mouse", awaiting="lure"))
    assert "mouse" in drawn.texts


def test_policecats_has_no_hands_so_an_empty_table_in_front_of_you_says_so() -> None:
    _surface, drawn = draw(police_view(hand=()))
    assert "(no cards in your hand)" not in drawn.texts
    assert "(no cats in front of you)" in drawn.texts
    _surface, drawn = draw(floppy_view(hand=()))
    assert "(no cards in your hand)" in drawn.texts


def test_policecats_other_players_cats_are_named_in_words_large_enough_to_read() -> None:
    _surface, drawn = draw(police_view())
    for card, words in (("family-6-mother", "6 mother"), ("family-6-father", "6 father"), ("family-5-kittens", "5 kittens")):
        assert words in drawn.texts, card
        rect = drawn.rect_of(f"card:{card}")
        assert rect.h >= 22 and rect.w >= 70, f"{card} is {rect.w} x {rect.h} px"


def test_the_winners_colour_is_no_players_colour() -> None:
    surface, drawn = draw(police_view(awaiting="over", waiting_for=None, winners=(1,)))
    won = tuple(surface.get_at(drawn.spots["seat:1"]))[:3]
    for seat_colour in SEAT_COLORS:
        distance = sum((a - b) ** 2 for a, b in zip(won, seat_colour)) ** 0.5
        assert distance > 150, f"the winner's {won} is close to a seat's {seat_colour}"


@pytest.mark.parametrize("game, strips", [("floppy-ears", set()), ("pirates", {"sea-route"}),
                                          ("policecats", {"police-track"}), (None, set())])
def test_only_the_strips_a_game_uses_are_drawn(game, strips) -> None:
    view = police_view() if game == "policecats" else floppy_view()
    view = TableView(game, **{f: getattr(view, f) for f in ("players", "seats", "leds", "stack")})
    _surface, drawn = draw(view)
    assert set(drawn.leds) - {"turn-ring"} == strips
    assert ("sea route" in drawn.texts) == ("sea-route" in strips)
    assert ("police track" in drawn.texts) == ("police-track" in strips)
