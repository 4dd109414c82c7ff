"""The tag registry, duplicate suppression and the configuration file (issue 4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.box.tags import Registry, TagTaken
from controller.box.taps import TapFilter
from controller.config import ConfigError, load_config

UID = bytes.fromhex("04112233445566")


def test_an_enrolled_uid_resolves_to_its_card_and_ndef_text_needs_no_enrolment(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "tags.sqlite")
    assert reg.resolve(UID) is None
    reg.enroll(UID, "red-3")
    assert reg.resolve(UID) == "red-3"
    assert reg.resolve(bytes.fromhex("0499"), text="parrot-2") == "parrot-2"
    assert reg.resolve(bytes.fromhex("0499"), text="not a card") is None


def test_a_tag_enrolled_to_another_card_is_refused(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "tags.sqlite")
    reg.enroll(UID, "red-3")
    reg.enroll(UID, "red-3")  # the same pair again is harmless
    with pytest.raises(TagTaken, match="already red-3"):
        reg.enroll(UID, "red-4")


def test_another_programs_database_in_the_registrys_place_is_kept_aside_untouched(tmp_path: Path) -> None:
    """Issue 11 item 4: the box never writes its tables into a file that is not its own."""
    other = sqlite3.connect(tmp_path / "tags.sqlite")
    other.execute("CREATE TABLE songs (title TEXT)")
    other.execute("INSERT INTO songs VALUES ('Alle meine Entchen')")
    other.commit()
    other.close()
    registry = Registry(tmp_path / "tags.sqlite")
    registry.enroll(b"\x04\xa1", "red-pirate-2")
    assert registry.resolve(b"\x04\xa1") == "red-pirate-2"
    kept = sqlite3.connect(registry.moved_aside)
    assert kept.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall() == [("songs",)]
    kept.close()
    registry.close()


def test_an_interrupted_enrolment_resumes_with_the_cards_left(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "tags.sqlite")
    reg.enroll(bytes([1]), "family-1-mother")
    reg.enroll(bytes([2]), "family-1-father")
    reg.close()
    again = Registry(tmp_path / "tags.sqlite")
    left = again.remaining("policecats")
    assert left[0] == "family-1-kittens" and len(left) == 34


def test_tapping_again_and_again_within_the_window_does_not_stretch_it() -> None:
    taps = TapFilter(window=2.0)
    assert taps.seen("a", "x", 0.0)
    for t in (0.5, 1.0, 1.5):
        taps.gone("a", "x")
        assert not taps.seen("a", "x", t)
    taps.gone("a", "x")
    assert taps.seen("a", "x", 2.0)


def test_tap_filter_is_per_reader() -> None:
    taps = TapFilter(window=2.0)
    assert taps.seen("a", "x", 0.0)
    assert taps.seen("b", "x", 0.1), "another reader is another tap"
    assert not taps.seen("a", "x", 0.2)
    taps.gone("a", "x")
    assert not taps.seen("a", "x", 1.0)
    taps.gone("a", "x")
    assert taps.seen("a", "x", 3.5)


@pytest.mark.parametrize("text, message", [
    ("volume = 2.0\n", "key 'volume': bad value 2.0"),
    ("colume = 0.5\n", "unknown key 'colume'"),
    ("language = 'xx'\n", "key 'language': bad value 'xx'"),
    ("[games.pirates]\nwins_needed = 0\n", "wins_needed"),
    ("[games.chess]\n", "no game 'chess'"),
    ("volume = \n", "not TOML"),
])
def test_a_broken_config_is_one_line_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "box.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    line = str(info.value)
    assert line.startswith(str(path)) and message in line and "\n" not in line


def test_no_config_file_means_defaults_and_volume_never_exceeds_its_cap(tmp_path: Path) -> None:
    path = tmp_path / "box.toml"
    path.write_text("volume = 0.9\nvolume_max = 0.5\n[games.floppy-ears]\nbark_rule = false\n")
    config = load_config(path)
    assert config.volume == 0.5 and config.options("floppy-ears") == {"bark_rule": False}
    assert load_config(None).profile == "sim"


@pytest.mark.parametrize("command", [["run"], ["enroll", "pirates"], ["tags", "write", "pirates"]])
def test_a_missing_profile_is_one_line_for_every_command(tmp_path: Path, capsys, command) -> None:
    from controller.cli import main

    assert main([*command, "--profile", "nosuch", "--state-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamebox: profile 'nosuch' not found") and err.count("\n") == 1


def test_uids_are_keyed_alike_by_the_box_and_the_registry(tmp_path: Path) -> None:
    reg = Registry(tmp_path / "tags.sqlite")
    reg.enroll("04AABBCCDDEEFF", "red-3")
    assert reg.resolve(bytes.fromhex("04aabbccddeeff")) == "red-3"
