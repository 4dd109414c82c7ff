"""The virtual Pi's own judges (``systemd/vm/run.py``), tried on recordings made here: a check that cannot fail
proves nothing, and one that fails on a sound that did play hides the box's speaker. And its image's promise: the
venv it seeds is the one systemd/install.sh brings up to date."""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import wave
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "systemd" / "vm"))
run = pytest.importorskip("run")  # noqa: E402  (needs numpy, the [test] extra's)

SOUNDS = ROOT / "sounds"


def mono(name: str) -> np.ndarray:
    with wave.open(str(SOUNDS / name)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32)


def record(path: Path, *parts: tuple[float, np.ndarray], seconds: float = 12.0, killed: bool = False) -> Path:
    """What qemu's wav audiodev writes: 44.1 kHz stereo of the guest's mix; sizes zero when qemu was killed."""
    mix = np.zeros(int(seconds * 22050), np.float32)
    for at, sound in parts:
        start = int(at * 22050)
        mix[start:start + len(sound)] += sound
    noise = np.random.default_rng(1).normal(0, 30, len(mix) * 2)
    stereo = np.repeat(np.repeat(mix, 2) + noise, 2)  # 22.05 kHz held to 44.1 kHz, both channels
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(np.clip(stereo, -32768, 32767).astype("<i2").tobytes())
    if killed:
        with open(path, "r+b") as f:
            f.seek(4), f.write(bytes(4)), f.seek(40), f.write(bytes(4))
    return path


def test_the_fanfare_is_found_under_the_winners_voice_line(tmp_path: Path) -> None:
    """The winner's show plays the fanfare and says the line at once (``controller/stage/shows.toml``,
    ``[show.winner.pirates]``): the speaker's mix still holds the fanfare."""
    heard = record(tmp_path / "speaker.wav", (1.0, mono("card-ok.wav")),
                   (4.0, mono("treasure-fanfare.wav")), (4.0, mono("voice/en/treasure-2.wav")))
    assert run.sound_found(heard, SOUNDS / "treasure-fanfare.wav") > 0.8
    assert run.sound_found(heard, SOUNDS / "card-ok.wav") > 0.8


def test_a_sound_that_did_not_play_is_not_found(tmp_path: Path) -> None:
    """Other brass (the round's fanfare, the goodbye) and the voice are not the treasure fanfare."""
    heard = record(tmp_path / "speaker.wav", (1.0, mono("round-fanfare.wav")), (3.0, mono("game-over.wav")),
                   (3.5, mono("voice/en/treasure-2.wav")), (7.0, mono("ship-horn.wav")))
    assert run.sound_found(heard, SOUNDS / "treasure-fanfare.wav") < 0.75
    assert run.sound_found(heard, SOUNDS / "siren.wav") < 0.75


def test_a_recording_cut_off_by_a_killed_machine_is_read_to_its_end(tmp_path: Path) -> None:
    heard = record(tmp_path / "speaker.wav", (8.0, mono("treasure-fanfare.wav")), killed=True)
    assert run.sound_found(heard, SOUNDS / "treasure-fanfare.wav") > 0.8


def test_the_seeded_venv_is_the_one_install_sh_uses_with_the_requirements_it_installs() -> None:
    """Seeded elsewhere, or with other packages, the image would have install.sh make a new venv or install wheels
    again, and its check line would claim an update that was a first install."""
    images = pytest.importorskip("image")
    script = (ROOT / "systemd" / "install.sh").read_text()
    prefix = re.search(r"^readonly PREFIX=(.+)$", script, re.M).group(1)
    venv = re.search(r"^readonly VENV=(.+)$", script, re.M).group(1).replace("$PREFIX", prefix)
    assert images.SEEDED_VENV == venv
    assert re.search(r'pip" install .*-e "\$\{PREFIX\}\[pi\]"', script)  # the extra whose requirements are seeded
    assert "gpiozero>=2.0" in images.requirements() and "pygame-ce>=2.4" in images.requirements()


def test_a_request_the_guests_tty_echoes_back_is_not_taken_for_its_answer(tmp_path: Path) -> None:
    """Found in a run: the control line echoes what reached it before the agent makes it raw (a reboot's first
    requests), and the echo, with the request's id, was read as the answer (``KeyError: 'rc'``)."""
    qemu = pytest.importorskip("qemu")
    host, guest = socket.socketpair()
    machine = qemu.Machine.__new__(qemu.Machine)  # its control line alone: no qemu behind it
    machine._agent, machine._agent_buffer, machine._ids = host, b"", 0
    machine.started, machine.commands = 0.0, tmp_path / "commands.log"

    def guest_side() -> None:
        request = guest.recv(4096)
        guest.sendall(request.replace(b"\n", b"\r\n"))  # the cooked tty's echo
        guest.sendall(json.dumps({"id": json.loads(request)["id"], "rc": 0, "out": "answered\n"}).encode() + b"\n")

    threading.Thread(target=guest_side, daemon=True).start()
    try:
        assert machine.sh("true", timeout=5.0) == (0, "answered\n")
    finally:
        host.close()
        guest.close()


def said(*lines: str, volume: float = 0.6) -> list[tuple[float, np.ndarray]]:
    """Voice lines one after another, as the box's stage says them (0.15 s apart, controller/stage/stage.py's GAP)."""
    parts, at = [], 1.0
    for line in lines:
        sound = mono(f"voice/en/{line}.wav") * volume
        parts.append((at, sound))
        at += len(sound) / 22050 + 0.15
    return parts


DIGITS = {str(d): SOUNDS / f"voice/en/number-{d}.wav" for d in range(10)}


def test_a_pairing_code_is_heard_digit_by_digit_in_the_order_said(tmp_path: Path) -> None:
    """The box says the code one digit at a time (``[show.pair_code]``); a digit said twice running is two digits."""
    hearing = pytest.importorskip("hearing")
    heard = record(tmp_path / "speaker.wav", (0.2, mono("card-ok.wav")),
                   *said(*(f"number-{d}" for d in "703395"), volume=0.4))
    assert hearing.words_said(heard, DIGITS) == list("703395")


def test_only_what_was_said_after_the_start_is_heard(tmp_path: Path) -> None:
    """The check reads the recording from the moment it laid the pairing card: an earlier code is not this one."""
    hearing = pytest.importorskip("hearing")
    heard = record(tmp_path / "speaker.wav", *said(*(f"number-{d}" for d in "111111")))
    halfway = hearing.HEADER + int(2.5 * 44100) * 4  # 2.5 s into the 44.1 kHz stereo recording: 3 digits said after
    assert hearing.words_said(heard, DIGITS, start=halfway) == list("111")
    assert hearing.words_said(heard, DIGITS) == list("111111")


def test_the_box_s_other_lines_are_not_taken_for_a_code(tmp_path: Path) -> None:
    """The menu's prompts and a refusal, said where a code could have been: none of their words is a digit."""
    hearing = pytest.importorskip("hearing")
    heard = record(tmp_path / "speaker.wav", *said("choose-game", "game-pirates", "choose-players", "card-on-pile",
                                                   "volume-max", "game-is-over"), seconds=20.0)
    assert hearing.words_said(heard, DIGITS) == []


def test_the_language_the_box_switched_to_is_heard_and_not_before(tmp_path: Path) -> None:
    """After the phone's change the box says "Deutsch" (its ``language`` prompt in the new language)."""
    hearing = pytest.importorskip("hearing")
    german = SOUNDS / "voice/de/language.wav"
    before = record(tmp_path / "before.wav", *said("choose-game", "language", "choose-players"))
    after = record(tmp_path / "after.wav", (1.0, mono("voice/de/language.wav") * 0.6))
    hop = hearing.WORD_HOP
    assert hearing.sound_found(before, german, hop=hop) < 0.8 < hearing.sound_found(after, german, hop=hop)


def test_the_guest_s_page_port_is_the_one_its_unit_listens_on() -> None:
    qemu = pytest.importorskip("qemu")
    unit = (ROOT / "systemd" / "gamebox-home.service").read_text()
    assert f"--http-port {qemu.PAGE_PORT} " in re.search(r"^ExecStart=.*$", unit, re.M).group(0) + " "
