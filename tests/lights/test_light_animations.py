"""LED animations, frame by frame at chosen times: what a child at the table would see.

Time is always injected (``frame(t)``); nothing here sleeps. A small
``draw_loop`` plays the box's part: it redraws only when an animation says its
frame may change, which is how the tests see that a still strip costs nothing.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.stage.lights import (
    ANIMATIONS, CARD_COLORS, SEAT_COLORS, Animation, Attract, DieRoll, PoliceTrack, RejectionFlash, ResumedSweep,
    SeaRoute, ShipSail, Siren, Still, TreasureSparkle, TurnRing, Waiting, WishedColor,
)
from controller.stage.lights.colors import ISLAND, OFF, SEA

N = 60
REST = [(30, 10, 5)] * N


def examples(brightness: float = 1.0) -> dict[str, Animation]:
    """One instance of every registered animation."""
    made: dict[str, Animation] = {
        "die-roll": DieRoll(n=N, face=5, brightness=brightness),
        "ship-sail": ShipSail(n=N, steps=3, ships=(0, 1, 2, 1), seat=1, brightness=brightness),
        "sea-route": SeaRoute(n=N, steps=3, ships=(0, 1, 2), brightness=brightness),
        "treasure-sparkle": TreasureSparkle(n=N, seed=11, brightness=brightness),
        "siren": Siren(n=N, brightness=brightness),
        "police-track": PoliceTrack(n=N, position=4, brightness=brightness),
        "turn-ring": TurnRing(n=N, seat=2, players=4, match=CARD_COLORS["red"], brightness=brightness),
        "wished-color": WishedColor(n=N, color=CARD_COLORS["green"], brightness=brightness),
        "rejection-flash": RejectionFlash(n=N, brightness=brightness),
        "resumed-sweep": ResumedSweep(n=N, brightness=brightness),
        "attract": Attract(n=N, brightness=brightness),
        "waiting": Waiting(n=N, color=CARD_COLORS["blue"], seconds=3.0, brightness=brightness),
        "still": Still(n=N, pixels=[(200.0, 120.0, 40.0)] * N, brightness=brightness),
    }
    assert set(made) == set(ANIMATIONS)
    return made


TIMES = [0.0, 0.05, 0.2, 0.37, 0.8, 1.0, 1.5, 2.2, 3.1, 10.0]


def draw_loop(anim: Animation, until: float, started: float = 1000.1) -> list[float]:
    """The box's side: draw at t=0, then only when ``next_change`` says; the times it drew.

    Time is read as a clock would give it (``now - started`` in floats), so a
    wake-up a hair before a step is part of what is tested.
    """
    drawn, now = [0.0], started
    for _ in range(100_000):
        nxt = anim.next_change(now - started)
        if nxt is None or nxt > until:
            return drawn
        now = started + nxt
        drawn.append(now - started)
    raise AssertionError("the animation never let the loop move on")


def lit(frame: list[tuple[int, int, int]]) -> list[int]:
    return [i for i, p in enumerate(frame) if p != OFF]


def runs(indices: list[int], n: int) -> int:
    """Number of separate groups of lit pixels round a ring of n."""
    s = set(indices)
    return sum(1 for i in s if (i - 1) % n not in s) if len(s) < n else 1


def dominant(p: tuple[int, int, int]) -> str:
    return "rgb"[max(range(3), key=lambda c: p[c])]


# -- every animation ---------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ANIMATIONS))
def test_frames_have_one_valid_colour_per_pixel(name: str) -> None:
    anim = examples()[name]
    for t in TIMES:
        frame = anim.frame(t)
        assert len(frame) == N
        assert all(len(p) == 3 and all(isinstance(c, int) and 0 <= c <= 255 for c in p) for p in frame)


@pytest.mark.parametrize("name", sorted(ANIMATIONS))
@pytest.mark.parametrize("brightness", [0.0, 0.25, 0.6])
def test_the_brightness_cap_holds_on_every_frame(name: str, brightness: float) -> None:
    full, capped = examples(1.0)[name], examples(brightness)[name]
    ceiling = int(255 * brightness + 0.5)
    for t in TIMES:
        a, b = full.frame(t), capped.frame(t)
        assert max(max(p) for p in b) <= ceiling
        # the cap dims, it does not change the picture
        assert all(abs(y - x * brightness) <= 1 for pa, pb in zip(a, b) for x, y in zip(pa, pb))


@pytest.mark.parametrize("name", sorted(ANIMATIONS))
def test_a_finished_animation_stays_still_and_asks_for_no_redraw(name: str) -> None:
    anim = examples()[name]
    if anim.duration is None:
        assert name == "attract"  # the only one that runs until replaced; it has its own tests below
        return
    end = anim.duration
    assert anim.done(end) and anim.next_change(end) is None
    assert anim.frame(end) == anim.frame(end + 0.01) == anim.frame(end + 3600)
    if end > 0:
        assert not anim.done(end / 2) and anim.next_change(end / 2) is not None


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(ANIMATIONS)), t=st.floats(0, 6), u=st.floats(0, 1, exclude_max=True))
def test_nothing_changes_before_next_change(name: str, t: float, u: float) -> None:
    anim = examples()[name]
    nxt = anim.next_change(t)
    if nxt is None:
        assert anim.frame(t + 100 * u) == anim.frame(t)
    else:
        assert nxt > t
        # up to the microsecond of slack that absorbs float clock readings
        assert anim.frame(t + max(0.0, nxt - t - 2e-6) * u) == anim.frame(t)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(ANIMATIONS)), started=st.floats(0, 1e6))
def test_a_box_sleeping_until_next_change_always_moves_on(name: str, started: float) -> None:
    anim = examples()[name]
    until = 3.0 if anim.duration is None else anim.duration + 1
    drawn = draw_loop(anim, until, started)
    assert len(drawn) <= until * type(anim).fps + 3
    if anim.duration is not None:
        assert anim.done(drawn[-1])


def test_names_are_kebab_case_and_classes_are_animations() -> None:
    for name, cls in ANIMATIONS.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name)
        assert issubclass(cls, Animation)


def test_bad_parameters_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="brightness"):
        Siren(n=10, brightness=1.5)
    with pytest.raises(ValueError, match="rest"):
        RejectionFlash(n=10, rest=[(0, 0, 0)] * 9)
    with pytest.raises(ValueError, match="face"):
        DieRoll(n=10, face=7)
    with pytest.raises(ValueError, match="seat"):
        TurnRing(n=10, seat=3, players=3)
    with pytest.raises(ValueError, match="pixel"):
        Attract(n=0)


def test_time_before_the_start_shows_the_first_frame() -> None:
    anim = ShipSail(n=N, ships=(0, 0), seat=0)
    assert anim.frame(-1.0) == anim.frame(0.0)


# -- colours -------------------------------------------------------------------------

def test_five_distinct_seat_colours_the_first_four_being_the_card_colours() -> None:
    assert len(SEAT_COLORS) == 5 and len(set(SEAT_COLORS)) == 5
    assert list(SEAT_COLORS[:4]) == [CARD_COLORS[c] for c in ("yellow", "green", "blue", "red")]


# -- die roll ----------------------------------------------------------------------

@pytest.mark.parametrize("face", range(1, 7))
def test_the_die_stops_showing_as_many_pips_as_the_face(face: int) -> None:
    die = DieRoll(n=N, face=face)
    assert runs(lit(die.frame(die.duration)), N) == face


def test_the_die_spins_and_slows_down_before_it_stops() -> None:
    die = DieRoll(n=N, face=3, spin=1.4)

    def head(t: float) -> int:
        frame = die.frame(t)
        return max(range(N), key=lambda i: sum(frame[i]))

    early = (head(0.3) - head(0.1)) % N  # pixels covered in 0.2 s, early
    late = (head(1.35) - head(1.15)) % N  # and late
    assert early > late > 0
    assert len(lit(die.frame(0.5))) <= 4  # one light and its tail, not the face yet


def test_the_die_redraws_only_while_it_spins() -> None:
    die = DieRoll(n=N, face=2, spin=1.4)
    drawn = draw_loop(die, until=600)
    assert drawn[-1] == pytest.approx(1.4)
    assert len(drawn) <= 1.4 * DieRoll.fps + 2


# -- sea route -----------------------------------------------------------------------

def test_ships_sharing_a_cell_each_show_in_their_own_colour() -> None:
    frame = SeaRoute(n=N, steps=3, ships=(1, 1, 1, 1)).frame(0)
    for seat in range(4):
        assert frame.count(SEAT_COLORS[seat]) == 1


def test_treasure_island_is_the_last_cell() -> None:
    frame = SeaRoute(n=N, steps=3, ships=(0, 0)).frame(0)
    assert frame[-1] == ISLAND and frame[N // 2 + 3] == SEA


def test_a_ship_sails_one_cell_on_and_the_others_stay() -> None:
    before = SeaRoute(n=N, steps=3, ships=(0, 1, 2)).frame(0)
    sail = ShipSail(n=N, steps=3, ships=(0, 1, 2), seat=1)
    after = SeaRoute(n=N, steps=3, ships=(0, 2, 2)).frame(0)
    assert sail.frame(0) == before  # calm sea, the ship still in its old cell
    assert sail.frame(sail.duration) == after
    for seat in (0, 2):
        assert all(sail.frame(t).count(SEAT_COLORS[seat]) == 1 for t in TIMES)


def test_the_sailing_ship_moves_forward_over_rising_waves() -> None:
    sail = ShipSail(n=N, steps=3, ships=(0, 0), seat=1, sail=1.6)
    yellow_free = [sail.frame(t) for t in (0.2, 0.8, 1.4)]

    def green_at(frame: list[tuple[int, int, int]]) -> float:
        weights = [(i, p[1] - p[2] * 0.3) for i, p in enumerate(frame) if p[1] > 120 and p[0] < 80]
        return sum(i * w for i, w in weights) / sum(w for _, w in weights)

    xs = [green_at(f) for f in yellow_free]
    assert xs[0] < xs[1] < xs[2]
    mid = sail.frame(0.8)
    assert max(p[2] for p in mid) > SEA[2] + 60  # a wave crest, brighter than calm water


def test_a_ship_at_the_island_stays_there() -> None:
    sail = ShipSail(n=N, steps=3, ships=(3, 0), seat=0)
    assert sail.arrived() == [3, 0]


# -- treasure sparkle ------------------------------------------------------------------

def test_the_sparkle_is_the_same_for_the_same_seed_and_differs_for_another() -> None:
    a, b, c = (TreasureSparkle(n=N, seed=s) for s in (5, 5, 6))
    assert [a.frame(t) for t in TIMES] == [b.frame(t) for t in TIMES]
    assert [a.frame(t) for t in TIMES[1:6]] != [c.frame(t) for t in TIMES[1:6]]


def test_the_sparkle_neither_uses_nor_disturbs_the_global_random_generator() -> None:
    random.seed(1)
    state = random.getstate()
    first = [TreasureSparkle(n=N, seed=9).frame(t) for t in TIMES]
    assert random.getstate() == state
    random.seed(2)
    assert [TreasureSparkle(n=N, seed=9).frame(t) for t in TIMES] == first


def test_the_sparkle_glints_gold_and_white_then_hands_back_the_rest_frame() -> None:
    sparkle = TreasureSparkle(n=N, seed=3, sparkle=3.0, rest=REST)
    frames = [sparkle.frame(i / 30) for i in range(5, 60)]
    assert all(p[0] >= p[1] >= p[2] for f in frames for p in f)  # warm: gold to white, never blue
    assert any(p[2] > 150 for f in frames for p in f)  # some glints reach white
    assert sparkle.frame(3.0) == REST


# -- siren and police track ----------------------------------------------------------

def test_the_siren_shows_blue_and_red_together_and_they_flash_in_turn() -> None:
    siren = Siren(n=N, wail=2.0)
    for t in (0.0, 0.3, 0.9, 1.7):
        colours = {dominant(p) for p in siren.frame(t)}
        assert colours == {"r", "b"}
    a, b = siren.frame(0.0), siren.frame(2 / Siren.fps)
    assert max(p[2] for p in a) > max(p[2] for p in b)  # blue blazes first ...
    assert max(p[0] for p in b) > max(p[0] for p in a)  # ... then red


def test_the_siren_runs_along_the_track() -> None:
    siren = Siren(n=N)
    first = [dominant(p) for p in siren.frame(0.0)]
    later = [dominant(p) for p in siren.frame(1 / Siren.fps)]
    assert later[2:] == first[:-2]


def test_after_the_siren_the_track_is_shown_again() -> None:
    track = PoliceTrack(n=N, cards=9, position=2).frame(0)
    siren = Siren(n=N, wail=1.5, rest=track)
    assert siren.frame(1.5) == track


def test_the_track_shows_where_the_figure_stands() -> None:
    frame = PoliceTrack(n=18, cards=9, position=4).frame(0)
    assert frame[6] == frame[7] != frame[4]  # the figure (white) on card 4, pixels 6..7
    assert frame[6] == (255, 255, 255)


# -- turn ring and wished colour -------------------------------------------------------

def test_the_turn_ring_lights_the_players_arc_in_their_colour_with_the_colour_to_match() -> None:
    ring = TurnRing(n=24, seat=1, players=3, match=CARD_COLORS["red"])
    frame = ring.frame(ring.duration)
    arc = frame[8:16]  # seat 1 of 3 on 24 pixels: the middle third (2 of 8 either side kept) in the match colour
    seat, red = SEAT_COLORS[1], CARD_COLORS["red"]
    assert arc == [seat, seat, red, red, red, red, seat, seat]
    others = frame[:8] + frame[16:]
    assert all(max(p) <= 26 for p in others)  # the others glow dimly in their own colours
    assert frame[0] != OFF and dominant(frame[0]) == "r" and dominant(frame[20]) == "b"


def test_the_turn_ring_fades_in_then_stays_still() -> None:
    ring = TurnRing(n=24, seat=0, players=2, fade=0.25)
    assert max(ring.frame(0)[0]) < max(ring.frame(0.12)[0]) < max(ring.frame(0.25)[0])
    drawn = draw_loop(ring, until=3600)
    assert len(drawn) <= 0.25 * TurnRing.fps + 2  # an hour of the same turn: a handful of redraws


def test_the_turn_ring_follows_configured_seat_arcs() -> None:
    ring = TurnRing(n=30, seat=1, players=2, arcs=[(0, 5), (20, 5)])
    frame = ring.frame(1)
    assert frame[20:25] == [SEAT_COLORS[1]] * 5
    assert frame[5:20] == [OFF] * 15


def test_the_turn_ring_can_be_rotated_to_where_seat_one_sits() -> None:
    frame = TurnRing(n=20, seat=0, players=2, offset=15).frame(1)
    assert frame[15] == frame[4] == SEAT_COLORS[0] and frame[5] != SEAT_COLORS[0]


def test_the_wished_colour_blinks_then_stays() -> None:
    wish = WishedColor(n=N, color=CARD_COLORS["blue"], blinks=3)
    pattern = [wish.frame(k / WishedColor.fps)[0] == CARD_COLORS["blue"] for k in range(8)]
    assert pattern[:6] == [True, False, True, False, True, False]
    assert wish.frame(wish.duration) == [CARD_COLORS["blue"]] * N
    assert wish.next_change(wish.duration) is None


# -- rejection flash and resumed sweep -----------------------------------------------

def test_a_rejection_flashes_red_over_the_turn_ring_and_gives_it_back() -> None:
    ring = TurnRing(n=N, seat=0, players=2, brightness=0.5).frame(1)
    flash = RejectionFlash(n=N, flashes=2, rest=ring, brightness=0.5)
    assert flash.frame(0) == [(128, 0, 0)] * N
    assert flash.frame(1 / RejectionFlash.fps) == ring  # between flashes: the ring, not darkness
    assert flash.frame(flash.duration) == ring  # the ring is not dimmed a second time


def test_the_resumed_sweep_uncovers_the_game_from_one_end_to_the_other() -> None:
    sweep = ResumedSweep(n=N, rest=REST, sweep=1.2)
    shown = [sum(1 for p in sweep.frame(t) if p == REST[0]) for t in (0.2, 0.5, 0.8, 1.1)]
    assert shown == sorted(shown) and shown[0] < shown[-1]
    frame = sweep.frame(0.6)
    head = max(range(N), key=lambda i: sum(frame[i]))
    assert all(p == OFF for p in frame[head + 1:])  # ahead of the comet: still dark
    assert sweep.frame(1.2) == REST


# -- attract mode ----------------------------------------------------------------------

def test_attract_mode_flows_in_the_seat_colours_and_never_stops_by_itself() -> None:
    attract = Attract(n=N)
    assert attract.duration is None
    assert attract.frame(0) != attract.frame(1)
    assert attract.next_change(3600) == pytest.approx(3600 + 1 / Attract.fps)
    frame = attract.frame(0)
    assert {dominant(p) for p in frame} >= {"r", "g", "b"}


def test_attract_mode_can_fall_asleep_and_go_dark_and_still() -> None:
    attract = Attract(n=N, sleep_after=600)
    assert attract.frame(600) == [OFF] * N
    assert attract.next_change(600) is None
    assert lit(attract.frame(300))
