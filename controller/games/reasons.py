"""Why a referee (or the box) refuses: a precise reason key beside each docs/scenarios.md code.

A code says what kind of refusal it is (``not_eligible``) and stays as the
scenario files and rule docs write it; the key says exactly why
(``kittens_need_parent``), so the box can tell a child the true reason. The
shows choose the spoken line by key (``controller/stage/shows.toml``,
``[show.rejected.<key>]``), and a test checks every key here has one in all
six languages.
"""

from __future__ import annotations

#: reason key -> the code it refines.
REASONS: dict[str, str] = {
    # any referee
    "not_an_action": "wrong_action",
    "game_over": "game_over",
    "no_such_seat": "wrong_action",
    "not_your_turn": "not_your_turn",
    "no_such_action": "wrong_action",
    "not_awaited": "wrong_action",
    "missing_field": "wrong_action",
    "bad_field": "wrong_action",
    "bad_color": "wrong_action",
    "bad_call": "wrong_action",
    "not_in_game": "unknown_card",
    "card_on_pile": "card_elsewhere",
    "no_match": "no_match",
    # Floppy Ears
    "bad_ear": "wrong_action",
    "card_on_ear": "card_elsewhere",
    "card_in_other_hand": "card_elsewhere",
    "no_hand_cards": "card_elsewhere",
    "joker_start": "joker_start",
    "ear_taken": "not_eligible",
    # Pirate & Co.
    "no_cards_left": "wrong_action",
    "left_out": "unknown_card",
    "must_draw": "must_draw",
    "parrot_on_parrot": "parrot_on_parrot",
    "special_start": "special_start",
    # Policecats
    "bad_face": "wrong_action",
    "no_parent_there": "not_eligible",
    "already_revealed": "card_elsewhere",
    "on_alarm_track": "card_elsewhere",
    "complete_family": "not_eligible",
    "not_yours": "card_elsewhere",
    "own_card": "card_elsewhere",
    "not_on_table": "card_elsewhere",
    "protected_by_policecat": "not_eligible",
    "kittens_need_parent": "not_eligible",
    "policecat_card_stays": "not_eligible",
    # the box's own refusals (it knows what a tap or press cannot be now)
    "roll_first": "wrong_action",
    "choose_color_first": "wrong_action",
    "tap_a_card": "wrong_action",
    "no_color_now": "wrong_action",
    "cannot_start": "wrong_action",
    "players_not_allowed": "wrong_action",
    "no_language": "wrong_action",
    "tag_taken": "card_elsewhere",
    "write_failed": "wrong_action",
    "wait": "wait",
    "nothing_to_undo": "nothing_to_undo",
    "not_available": "not_available",
}

#: Why a roll changed nothing (the ``key`` of a ``nothing_happens`` event).
NOTHING_HAPPENS: frozenset[str] = frozenset({"no_cat", "protected_by_policecat"})

#: Why a control or game card is refused by the box before any referee sees it (the ``not_now`` show's ``key``).
NOT_NOW: frozenset[str] = frozenset({"game_under_way", "choose_game_first"})

__all__ = ["NOTHING_HAPPENS", "NOT_NOW", "REASONS"]
