"""The idle menu invites people to play (kiosk), and any input ends the invitation."""

from pathlib import Path

from tests.box.helpers import make_box


def test_the_idle_menu_starts_the_attract_show_and_a_press_ends_it(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, attract_after=30.0)
    assert box.next_deadline() == clock.t + 30.0
    clock.advance(29)
    box.poll()
    assert "attract" not in stage.show_names
    clock.advance(1)
    box.poll()
    assert stage.shows[-1][0] == "attract" and stage.scenes[-1].attract
    assert box.next_deadline() is None, "nothing more to wake for while inviting"
    box.press("die")
    assert not stage.scenes[-1].attract and box.next_deadline() == clock.t + 30.0


def test_no_attract_deadline_during_a_game(tmp_path: Path) -> None:
    box, stage, clock = make_box(tmp_path, attract_after=30.0)
    box.new_game("pirates", 2)
    assert box.next_deadline() is None
