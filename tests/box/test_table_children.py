"""Children at the table (issue 12): a mashed die button, mistakes taken back, a card tapped straight back.

Everything here goes through the box's inputs (taps, presses, holds) on a
fake clock, as fingers at the table would.
"""

from __future__ import annotations

import random
from pathlib import Path

from controller.box.box import Box
from controller.box.tags import Registry
from controller.storage.journal import Journal
from tests.box.helpers import Clock, RecordingStage, make_box

FLOPPY_SETUP = ("red-1", "blue-2", "green-3", "yellow-4", "red-2", "blue-3")  # two ears each, three seats


def floppy_ears_under_way(tmp_path: Path, players: int = 3, **config) -> tuple[Box, RecordingStage, Clock]:
    """Floppy Ears with every ear hung and the first card turned up: seat 0 to play."""
    box, stage, clock = make_box(tmp_path, seed=7, **config)
    box.new_game("floppy-ears", players)
    for card in FLOPPY_SETUP[: 2 * players] + ("green-7",):
        clock.advance(3)
        box.tap("table", card)
    assert box.engine.awaiting == "play" and box.engine.current == 0
    clock.advance(box.config.handover)  # "Player one, yellow: your turn!"
    return box, stage, clock


def accepted_log(box: Box, clock: Clock) -> list[tuple[float, int | None, dict]]:
    """(when, whose turn it was, action) of every action the box accepts from now on."""
    seen: list[tuple[float, int | None, dict]] = []
    turn = [box.engine.current]

    def record(action, _outcome) -> None:
        seen.append((clock.t, turn[0], action))
        turn[0] = box.engine.current

    box.listeners.append(record)
    return seen


# -- the handover ------------------------------------------------------------------------------
def test_four_presses_in_four_tenths_of_a_second_draw_for_one_player_only(tmp_path: Path) -> None:
    """The reported case: four presses in 0.4 s were draws for P1, P2, P3, P1 (docs/rulings.md F6: a draw ends the turn)."""
    box, stage, clock = floppy_ears_under_way(tmp_path)
    seen = accepted_log(box, clock)
    for _ in range(4):
        box.press("die")
        clock.advance(0.1)
    assert [a["type"] for _, _, a in seen] == ["draw"] and seen[0][2]["player"] == 0
    assert stage.refusals[-3:] == ["wait", "wait", "wait"], "each early press is answered with 'wait'"
    assert box.engine.current == 1 and len(box.engine.log) == 8


def test_ten_presses_a_second_never_act_for_two_turns(tmp_path: Path) -> None:
    """Mashing for a whole minute: each turn change is followed by the handover time, and no press acts twice."""
    box, stage, clock = floppy_ears_under_way(tmp_path)
    seen = accepted_log(box, clock)
    presses = 0
    while clock.t < 1060 and not box.engine.over:
        box.press("die")
        presses += 1
        clock.advance(0.1)
        box.poll()
    assert len(seen) <= presses
    turns = [(t, action["player"]) for t, _, action in seen]
    assert len(turns) > 10, "the mashing did play"
    for (t0, seat0), (t1, seat1) in zip(turns, turns[1:]):
        if seat1 != seat0:
            assert t1 - t0 >= box.config.handover - 1e-9, f"seat {seat1} acted {t1 - t0:.1f} s after seat {seat0}"
    assert "wait" in stage.refusals and "wait" in [c["code"] for n, c in stage.shows if n == "rejected"]


def test_a_press_after_the_handover_counts_for_the_new_player(tmp_path: Path) -> None:
    box, stage, clock = floppy_ears_under_way(tmp_path)
    box.press("die")
    assert box.engine.current == 1
    clock.advance(box.config.handover - 0.01)
    box.press("die")
    assert stage.refusals[-1] == "wait" and box.engine.current == 1
    clock.advance(0.01)
    box.press("die")
    assert box.engine.log[-1] == {"type": "draw", "player": 1} and box.engine.current == 2


def test_the_handover_is_no_longer_than_the_your_turn_prompt(tmp_path: Path) -> None:
    """A child who waits for "Player one, yellow: your turn!" to end is never told to wait."""
    from controller.stage.stage import VOICE, wav_seconds

    box, _stage, _clock = make_box(tmp_path)
    spoken = min(wav_seconds(VOICE / "en" / f"turn-{seat}.wav") for seat in range(1, 6))
    assert 0.5 * spoken <= box.config.handover <= spoken


# -- undo ----------------------------------------------------------------------------------------
def test_the_undo_card_takes_back_actions_one_by_one_to_the_start_of_the_game(tmp_path: Path) -> None:
    box, stage, clock = floppy_ears_under_way(tmp_path)
    states = []
    for _ in range(3):
        states.append(box.engine.to_json())
        clock.advance(box.config.handover)
        box.press("die")
    journalled = box.journal.latest().actions
    clock.advance(3)
    box.tap("table", "control-undo")
    assert box.engine.to_json() == states[-1], "the referee replayed its log without the last draw"
    assert box.journal.latest().actions == journalled - 1 and box.seq == journalled - 1
    assert box.journal.undone(box.game_id) == [{"type": "draw", "player": 2}]
    assert stage.shows[-1] == ("undone", {"action": "draw", "what": "draw", "player": 2})  # "put the card back on the stack"
    assert stage.prompts[-1] == ("play", {"seat": 2, "game": "floppy-ears"}), "and it is that player's turn again"
    for _ in range(journalled - 1):
        box.removed("table")
        clock.advance(3)
        box.tap("table", "control-undo")
    assert box.engine.log == [] and box.engine.awaiting == "setup"
    assert stage.prompts[-1] == ("hang-left", {"seat": 0})
    box.removed("table")
    clock.advance(3)
    box.tap("table", "control-undo")
    assert stage.refusals[-1] == "nothing_to_undo"


def test_an_undone_game_resumes_without_what_was_taken_back(tmp_path: Path) -> None:
    box, stage, clock = floppy_ears_under_way(tmp_path)
    box.press("die")
    box.tap("table", "control-undo")
    state = box.engine.to_json()
    box.journal.close()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    assert again.start() and again.engine.to_json() == state and again.seq == len(again.engine.log)


def test_a_roll_taken_back_is_rolled_again_afresh_also_after_a_restart(tmp_path: Path) -> None:
    """Each Policecats turn is one roll (docs/rulings.md C2, C5-C7): a roll taken back does not come back as the same roll."""
    box, stage, clock = make_box(tmp_path, seed=11)
    box.new_game("policecats", 3)
    faces = box.play.faces()
    expected = random.Random(11)
    box.press("die")
    assert box.engine.log[-1]["face"] == expected.choice(faces)
    box.tap("table", "control-undo")
    assert box.engine.log == [] and stage.shows[-1][1]["action"] == "roll"
    box.journal.close()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    again.start()
    assert again.die.getstate() == box.die.getstate(), "the taken-back roll is not rolled the same again"
    again.press("die")
    assert again.engine.log[-1]["face"] == expected.choice(faces)
    assert again.snapshot()["last_roll"] == again.engine.log[-1]["face"]


def test_two_holds_of_the_die_button_take_back_the_last_action(tmp_path: Path) -> None:
    box, stage, clock = floppy_ears_under_way(tmp_path)
    box.press("die")
    clock.advance(3)
    box.hold("die")
    assert stage.prompts[-1][0] == "undo-hold-again" and len(box.engine.log) == 8, "one hold only asks"
    clock.advance(box.config.undo_hold_window + 0.1)
    box.hold("die")
    assert len(box.engine.log) == 8, "a second hold too late asks again"
    clock.advance(1)
    box.hold("die")
    assert len(box.engine.log) == 7 and stage.shows[-1][0] == "undone"


def test_undo_takes_back_a_wrong_hang_and_the_ring_shows_whose_ear_and_which_side(tmp_path: Path) -> None:
    """docs/rulings.md F1 ("hangs 2 of them on their ears (left and right)"): a card on the wrong ear is taken off again."""
    box, stage, clock = make_box(tmp_path)
    box.new_game("floppy-ears", 2)
    assert (stage.scenes[-1].current, stage.scenes[-1].ear) == (0, "left")
    box.tap("table", "red-1")
    assert stage.prompts[-1] == ("hang-right", {"seat": 0})
    assert (stage.scenes[-1].current, stage.scenes[-1].ear) == (0, "right")
    clock.advance(3)
    box.tap("table", "control-undo")
    assert stage.shows[-1] == ("undone", {"action": "hang", "what": "hang", "player": 0, "card": "red-1"})
    assert stage.prompts[-1] == ("hang-left", {"seat": 0}) and box.engine.view()["ears"][0] == [None, None]
    clock.advance(3)
    box.tap("table", "blue-2")
    assert box.engine.view()["ears"][0] == ["blue-2", None]


def test_undo_during_a_call_window_takes_back_the_waiting_tap(tmp_path: Path) -> None:
    box, stage, clock = call_window_open(tmp_path)
    log, waiting = list(box.engine.log), box.pending.action
    box.tap("table", "control-undo")
    assert box.pending is None and box.engine.log == log
    assert stage.shows[-1] == ("undone", {"action": "play", "what": "play", "player": waiting["player"],
                                          "card": waiting["card"]})
    clock.advance(box.config.call_window)
    box.poll()
    assert box.engine.log == log, "the taken-back tap is not played when the window would have closed"


# -- the call window survives a power cut ----------------------------------------------------
def call_window_open(tmp_path: Path) -> tuple[Box, RecordingStage, Clock]:
    """Pirate & Co. with Mau calls, a play tapped that needs "Mau" (P8): the window is open."""
    from controller.autoplay import Autoplayer, run_inputs

    box, stage, clock = make_box(tmp_path, seed=5, games={"pirates": {"mau_calls": True}})
    box.new_game("pirates", 2)
    auto = Autoplayer(box, 5)
    for _ in range(2000):
        _seat, action = auto.choose()
        if action["type"] == "play" and action.get("call"):
            clock.advance(3)
            box.tap("table", action["card"])
            assert box.pending is not None
            return box, stage, clock
        run_inputs(box, auto.inputs(action), clock.advance)
    raise AssertionError("no call came up")


def test_a_tap_waiting_for_its_call_survives_a_power_cut(tmp_path: Path) -> None:
    box, stage, clock = call_window_open(tmp_path)
    held, state = box.pending.action, box.engine.to_json()
    box.journal.close()  # the plug is pulled inside the call window
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    assert again.start() and again.engine.to_json() == state
    assert again.pending is not None and again.pending.action == held, "the resumed box offers the same call"
    clock.advance(1)
    again.poll()  # the restored window lasts its whole time again
    assert again.pending is not None
    again.press("die")
    assert again.engine.log[-1] == dict(held, call=again.engine.log[-1]["call"]) and "call" in again.engine.log[-1]
    assert "mau_penalty" not in again.stage.show_names
    again.journal.close()
    third = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    third.start()
    assert third.pending is None, "a call once made is not offered again"


# -- the repeat filter -------------------------------------------------------------------------
def test_a_card_tapped_straight_back_after_another_is_a_new_tap(tmp_path: Path) -> None:
    """A card tapped straight back after another (a lured kittens card, docs/rulings.md C6): any other tag ends the window."""
    box, stage, clock = make_box(tmp_path, repeat_window=2.0)
    box.new_game("pirates", 2)
    box.tap("table", "red-pirate-2")
    clock.advance(0.5)
    box.tap("table", "blue-pirate-7")
    clock.advance(0.5)
    box.tap("table", "red-pirate-2")
    assert stage.refusals == ["no_match", "card_elsewhere"], "the card tapped back was heard (it lies on the pile)"


def test_the_repeat_filter_remembers_one_tag_per_reader_however_many_it_saw(tmp_path: Path) -> None:
    """Issue 11 item 8: 300k unique UIDs grew the daemon by 124 MB."""
    box, stage, clock = make_box(tmp_path)
    for n in range(3000):
        box.tap("table" if n % 2 else "hand", n.to_bytes(7, "big"))
        clock.advance(0.01)
    assert len(box.taps) == 2


def test_the_turn_ring_lights_the_side_of_the_ear_to_hang_at_that_seat(tmp_path: Path) -> None:
    """Through the daemon onto the simulated strip: seat 0's left half, then its right half, then seat 1's."""
    import asyncio

    from controller.autoplay import Input, perform
    from tests.box.daemon_helpers import started, stopped

    async def scenario() -> None:
        daemon, task, clock, _lines = await started(tmp_path)
        daemon.box.new_game("floppy-ears", 2)
        lit = []
        for card in ("red-1", "blue-2", "green-3"):
            await clock.run_for(1)
            ring = daemon.devices.leds.shown("turn-ring")
            brightest = max(sum(px) for px in ring)
            lit.append([i for i, px in enumerate(ring) if sum(px) > brightest / 2])  # other seats glow dimly
            await perform(daemon.devices, [Input("tap", card)], clock.run_for)
        await stopped(daemon, task)
        n = len(daemon.devices.leds.shown("turn-ring"))
        half = n // 4
        assert lit[0] == list(range(n // 2 - half, n // 2)), "seat 0 (yellow), left ear: the later half of its arc"
        assert lit[1] == list(range(0, half)), "seat 0, right ear: the earlier half"
        assert lit[2] == list(range(n - half, n)), "seat 1's left ear"

    asyncio.run(scenario())


def test_the_winning_action_can_be_taken_back_and_the_game_goes_on(tmp_path: Path) -> None:
    from tests.box.helpers import play_to_the_end

    box, stage, clock = make_box(tmp_path, seed=4)
    box.new_game("floppy-ears", 2)
    play_to_the_end(box, clock, 4)
    game_id = box.game_id
    assert box.journal.game(game_id).winners
    box.tap("table", "control-undo")
    assert not box.engine.over and box.journal.game(game_id).ended is None
    box.journal.close()
    again = Box(box.config, Journal(tmp_path / "journal.sqlite"), Registry(tmp_path / "tags.sqlite"), RecordingStage(), clock)
    assert again.start() and again.game_id == game_id, "the game reopened is resumed"
