"""Leading-edge debouncing: instant presses, no chatter, and the contact's last word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hardware.debounce import Debouncer

BOUNCE = 0.03


def run(edges: list[tuple[float, bool]], bounce: float = BOUNCE) -> tuple[list[tuple[float, bool]], Debouncer]:
    """Feed edges in time order, calling settle when it is due, as the button's timer does."""
    debouncer = Debouncer(bounce)
    out: list[tuple[float, bool]] = []

    def settle_until(now: float) -> None:
        while debouncer.due is not None and debouncer.due <= now:
            due = debouncer.due
            changed = debouncer.settle(due)
            if changed is not None:
                out.append((due, changed))

    for at, level in edges:
        settle_until(at)
        changed = debouncer.edge(level, at)
        if changed is not None:
            out.append((at, changed))
    settle_until(float("inf"))
    return out, debouncer


def test_the_first_edge_counts_at_once():
    assert run([(1.0, True)])[0] == [(1.0, True)]


def test_chatter_inside_the_bounce_time_is_ignored():
    assert run([(0.0, True), (0.001, False), (0.002, True), (0.5, False)])[0] == [(0.0, True), (0.5, False)]


def test_a_release_inside_the_bounce_time_is_reported_when_it_ends():
    assert run([(0.0, True), (0.01, False)])[0] == [(0.0, True), (BOUNCE, False)]


def test_zero_bounce_time_passes_every_change():
    edges = [(0.0, True), (0.0, False), (0.0, True)]
    assert run(edges, bounce=0.0)[0] == edges


times = st.lists(st.floats(min_value=0.0, max_value=0.2, allow_nan=False), min_size=1, max_size=40)


@given(times, st.lists(st.booleans(), min_size=40, max_size=40))
def test_any_chatter_gives_alternating_spaced_changes_ending_where_the_contact_rests(raw_times, levels):
    edges = list(zip(sorted(raw_times), levels, strict=False))
    out, debouncer = run(edges)
    states = [level for _, level in out]
    assert states == [index % 2 == 0 for index in range(len(states))], "press, release, press, ..."
    gaps = [later - earlier for (earlier, _), (later, _) in zip(out, out[1:], strict=False)]
    assert all(gap >= BOUNCE - 1e-12 for gap in gaps)
    assert debouncer.state == edges[-1][1]
    assert debouncer.due is None


@given(st.floats(min_value=BOUNCE, max_value=10.0))
def test_a_press_after_a_quiet_spell_is_never_delayed(quiet):
    out, _ = run([(0.0, True), (0.01, False), (BOUNCE + quiet, True)])
    assert out[-1] == (BOUNCE + quiet, True)
