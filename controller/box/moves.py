"""What a tap or a press means in the game under way: the action the referee awaits with it.

:class:`Moves` reads the referee of the :class:`~controller.box.play.Play`
room to turn a card of the game, the die button or a colour button into
the action it stands for, and hands that action to the room to referee and
journal. A card that needs its call ("woof", "Mau") is held in the call
window instead; an input the referee does not await is answered with why.
"""

from __future__ import annotations

from typing import Any

from controller.box.play import Play
from controller.games.base import COLORS, Engine, Rejection, player_name

#: What the referee awaits, as a printed refusal says it to people (never the phase's internal name).
AWAITED: dict[str, str] = {
    "start_card": "the first card turned up", "reveal": "to turn over the top card", "play": "to play a card or take one",
    "after_draw": "to play or keep the card drawn", "choose_color": "to choose a colour", "roll": "to roll the die",
    "send_kittens": "to tap the kittens' mother or father", "give": "to give a cat", "lure": "to take a cat",
}


def awaited(engine: Engine) -> str:
    """What the box waits for, in words: ``Player 2 to roll the die``, ``Player 1 to hang a card on the left ear``."""
    hang = engine.next_hang()
    if hang is not None:
        seat, what = hang[0], f"to hang a card on the {hang[1]} ear"
    else:
        seat, what = engine.current, AWAITED.get(engine.awaiting, "another move")
    return f"{player_name(seat)} {what}" if seat is not None and what.startswith("to ") else what


class Moves:
    """Turns taps and presses into the game's actions."""

    def __init__(self, play: Play) -> None:
        self.play = play

    def card(self, card: str) -> None:
        """A card of this game, tapped with no call waiting: the action the referee awaits with it."""
        play = self.play
        engine = play.engine
        assert engine is not None
        awaiting, seat = engine.awaiting, engine.current
        action: dict[str, Any]
        if awaiting == "start_card":
            action = {"type": "start_card", "card": card}
        elif (hang := engine.next_hang()) is not None:
            seat, ear = hang
            action = {"type": "hang", "player": seat, "ear": ear, "card": card}
        elif awaiting == "reveal":
            action = {"type": "reveal", "player": seat, "card": card}
        elif awaiting in ("play", "after_draw"):
            if (refusal := _on_anothers_ear(engine, card)) is not None:
                play.answer(refusal)
                return
            action = {"type": "play", "player": seat, "card": card}
            call = engine.call_needed(action)
            if call:
                assert play.game_id is not None
                play.calls.open(play.game_id, play.seq, action, call, play.now())
                return
        elif awaiting == "send_kittens":
            family = engine.view().get("pending_kittens")
            owner = play.owner_of(card)
            if owner is None or card not in (f"family-{family}-mother", f"family-{family}-father"):
                play.answer(Rejection("not_eligible", f"{card} is not a mother or father of family {family} on the table",
                                      "no_parent_there"))
                return
            action = {"type": "send_kittens", "player": seat, "to": owner}
        elif awaiting in ("give", "lure"):
            action = {"type": awaiting, "player": seat, "card": card}
        else:  # roll, choose_color: a card is not what is awaited
            play.answer(Rejection("wrong_action", f"a card was tapped; the box waits for {awaited(engine)}",
                                  "roll_first" if awaiting == "roll" else "choose_color_first"))
            return
        play.act(action)

    def make_call(self) -> None:
        play = self.play
        pending = play.calls.take()
        assert pending is not None
        play.act(dict(pending.action, call=pending.call))

    def die_press(self) -> None:
        play = self.play
        engine = play.engine
        assert engine is not None and play.die is not None
        kind, seat = engine.button_action(), engine.current
        if kind == "roll":
            play.act({"type": "roll", "player": seat, "face": play.die.choice(play.faces())})
        elif kind is not None:
            play.act({"type": kind, "player": seat})
        elif engine.awaiting == "choose_color":
            play.wish = COLORS[(COLORS.index(play.wish) + 1) % len(COLORS)]
            play.stage.prompt(f"color-{play.wish}")
            play.scene()
        else:  # a press (or a bark) while a card is awaited: the answer says again what is awaited
            play.answer(Rejection("wrong_action", f"the die button does nothing now; the box waits for {awaited(engine)}",
                                  "tap_a_card"))

    def color_button(self, button: str) -> None:
        play = self.play
        engine = play.engine
        if engine is not None and engine.awaiting == "choose_color" and button in COLORS:
            if play.handover.waiting(play.now()):
                self.wait()
            else:
                play.act({"type": "choose_color", "player": engine.current, "color": button})
        elif play.playing and play.calls.pending is None:
            play.answer(Rejection("wrong_action", f"the {button} button does nothing now; the box waits for "
                                  f"{awaited(engine)}", "no_color_now"))

    def choose_wish(self) -> None:
        """A hold while the colour is being chosen: the colour on the turn ring is chosen."""
        play = self.play
        assert play.engine is not None
        play.act({"type": "choose_color", "player": play.engine.current, "color": play.wish})

    def wait(self) -> None:
        """A press in the handover time: it does nothing but say so."""
        play = self.play
        seat = play.engine.current if play.engine is not None else None
        whose = f"Player {seat + 1}'s turn" if seat is not None else "the next turn"
        play.stage.show("rejected", code="wait",
                        reason=f"too soon: {whose} starts in {play.handover.left(play.now()):.1f} s")


def _on_anothers_ear(engine: Engine, card: str) -> Rejection | None:
    """Floppy Ears: a card on another player's ear is played out of turn (its own ear is where it is played from)."""
    for seat, ears in enumerate(engine.view().get("ears") or []):
        if card in ears and seat != engine.current:
            return Rejection("not_your_turn", f"{card} hangs on {player_name(seat)}'s ear; it is "
                             f"{player_name(engine.current)}'s turn")
    return None
