"""The simulator's view: a :class:`TableView` read off the running box, its devices and the virtual table.

Everything comes from what a person at the table could see or hear: the
LEDs as the strip shows them, the last line the box said, the referee's
public state, and, for the seat at the window, its own cards (from the
virtual table, which moves the physical cards as the box rules).
"""

from __future__ import annotations

from typing import Any

from controller.daemon import Daemon
from controller.games import GAME_IDS
from controller.stage.narration import spoken_text
from controller.window.cards import hand_order
from controller.window.seats import Seats
from controller.window.view import SeatView, TableView, answer_text, hint, seat_name

MENU_CARDS = tuple(f"control-game-{g}" for g in GAME_IDS) + tuple(f"control-players-{n}" for n in range(2, 6))
"""What you hold while the box shows its menu: the control cards that choose a game and the players."""

ANSWERS = {
    "rejected": "the box said no",
    "unknown_card": "the box does not know that card",
    "other_game": "that card is from another game",
    "not_now": "not now",
}


def last_said(daemon: Daemon, language: str = "en") -> str:
    """The text of the last line the box spoke."""
    for _at, kind, name in reversed(daemon.stage.transcript):
        if kind == "say":
            return spoken_text(name, language)
    return ""


def last_answer(daemon: Daemon, you: int | None) -> str:
    """The box's last answer: what the action it took did (the shows of its events), or that it refused one."""
    box = daemon.box
    shows = [name for _at, kind, name in daemon.stage.transcript if kind == "show"]
    for at in range(len(shows) - 1, -1, -1):
        name = shows[at]
        if name == "accepted" and box.engine is not None and box.engine.log:
            before = shows[:at]
            since = len(before) - before[::-1].index("accepted") if "accepted" in before else 0
            return answer_text(box.engine.log[-1], you, shows[since:at])
        if name in ANSWERS:
            return ANSWERS[name]
    return ""


def box_view(daemon: Daemon, seats: Seats, you: int, *, language: str = "en", focus: str | None = None,
             die_down: bool = False, notice: str | None = None) -> TableView:
    """What the table looks like now, from seat ``you``."""
    box = daemon.box
    leds = daemon.devices.leds
    hold_time = getattr(daemon.devices.buttons.get("die"), "hold_time", 2.0)
    common: dict[str, Any] = {
        "you": you,
        "leds": tuple((name, tuple(leds.shown(name))) for name in leds.segments),
        "prompt": last_said(daemon, language),
        "answer": last_answer(daemon, you),
        "focus": focus,
        "die_down": die_down,
        "hold_time": hold_time,
    }
    engine = box.engine
    if engine is None:
        return TableView(None, hand=MENU_CARDS, hint=notice or hint(None, True, None, you, hold_time), **common)
    auto = seats.sync()
    state = engine.view()
    game, awaiting = engine.game, state["awaiting"]
    waiting_for = seats.awaited()
    sizes, ears, tableau = state.get("hand_sizes"), state.get("ears"), state.get("tableau")
    seat_views = tuple(
        SeatView(
            seat=s,
            name=seat_name(s, you),
            hand=sizes[s] if sizes is not None else None,
            ears=tuple(ears[s]) if ears is not None else None,
            ears_hidden=s == you,
            ship=state["ships"][s] if game == "pirates" else None,
            score=state["scores"][s] if game == "policecats" else None,
            cards=tuple(tableau[s]) if tableau is not None else (),
            families=len(state["families"][s]) if game == "policecats" else None,
            police=state.get("police") == s,
        )
        for s in range(engine.players)
    )
    if tableau is not None:  # Policecats: no hands, your cats lie in front of you
        hand = tuple(sorted(tableau[you], key=hand_order))
    else:
        hand = tuple(sorted(auto.table.hand(you), key=hand_order)) if auto else ()
    choosing = awaiting == "choose_color"
    rolls = [a for a in engine.log if a.get("type") == "roll"]
    yours = waiting_for == you and not engine.over
    return TableView(
        game,
        players=engine.players,
        current=state["current"],
        awaiting=awaiting,
        waiting_for=waiting_for,
        seats=seat_views,
        top=state.get("top"),
        stack=state.get("stack"),
        color=box.wish if choosing else state.get("color"),
        choosing_color=choosing,
        hand=hand,
        own_ears=tuple(ears[you]) if ears is not None else None,
        wins_needed=engine.options.get("wins_needed", 0) if game == "pirates" else 0,
        winners=tuple(state.get("winners") or ()),
        hint=notice or hint(awaiting, yours, waiting_for, you, hold_time),
        die_face=rolls[-1].get("face") if rolls and awaiting != "roll" else None,
        **common,
    )
