"""``gamebox doctor``: a table of every device, and an exit code a script can use."""

from __future__ import annotations

import io

from hardware.doctor import run_doctor
from hardware.factory import build_devices
from hardware.profile import PROFILES_DIR

SIM = (PROFILES_DIR / "sim.toml").read_text()


def doctor(profile, **options) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = run_doctor(profile, settle=0, out=out, **options)
    return code, out.getvalue().splitlines()


def row(lines: list[str], device: str) -> list[str]:
    (line,) = [line for line in lines if line.startswith(device + " ")]
    return line.split(None, 3)


def test_the_sim_profile_is_all_well():
    code, lines = doctor("sim")
    assert code == 0
    assert lines[0].startswith("gamebox doctor: profile sim (")
    assert lines[1].split() == ["device", "driver", "status", "detail"]
    buttons = [f"button:{name}" for name in ("die", "yellow", "green", "blue", "red")]
    devices = [*buttons, "reader:table", "leds", "speaker"]
    assert [line.split()[0] for line in lines[2:-1]] == devices
    assert all(row(lines, device)[1:3] == ["sim", "ok"] for device in devices)
    assert "60 pixels" in row(lines, "leds")[3]
    assert lines[-1] == "All devices work."


def test_a_profile_with_a_reader_that_is_not_plugged_in_needs_attention(tmp_path):
    path = tmp_path / "kitchen.toml"
    missing = "/dev/input/by-id/usb-no-such-reader-event-kbd"
    keyboard = f'[readers.table]\ndriver = "keyboard"\ndevice = "{missing}"'
    path.write_text(SIM.replace('[readers.table]\ndriver = "sim"', keyboard))
    code, lines = doctor(str(path))
    assert code == 1
    device, driver, status, detail = row(lines, "reader:table")
    assert (driver, status) == ("keyboard", "FAULT")
    assert detail.startswith(f"cannot open {missing}")
    assert row(lines, "leds")[2] == "ok"
    assert "fix reader:table: the reader is not plugged in, or not at this path: ls /dev/input/by-id" in lines
    assert lines[-1] == "1 device needs attention."


def test_devices_can_be_injected_with_faults_and_taps():
    built = {}

    def build(profile, sink, clock):
        devices = build_devices(profile, sink, clock)
        devices.speaker.unplug()
        devices.readers["table"].start()
        devices.readers["table"].tap("04a1b2c3d4e5f6", "red-3")
        built["leds"] = devices.leds
        return devices

    code, lines = doctor("sim", build=build)
    assert code == 1
    assert row(lines, "speaker")[2:] == ["FAULT", "no audio device"]
    assert "fix speaker: no sound card: check aplay -l, the audio cable, or the speaker in the profile" in lines
    assert "seen: TagSeen(reader=table, uid=04a1b2c3d4e5f6, text=red-3)" in lines
    frames = built["leds"].frames
    assert any(pixel != (0, 0, 0) for frame in frames for pixel in frame.pixels), "segments lit while checking"
    assert all(pixel == (0, 0, 0) for pixel in frames[-1].pixels), "and dark again afterwards"


def test_a_broken_profile_is_exit_code_2_and_one_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(SIM.replace("pixels = 60", "pixels = -1"))
    code, lines = doctor(str(path))
    assert code == 2
    assert lines == [f"gamebox doctor: {path}: leds.strips.main.pixels = -1: must be greater than or equal to 1"]


def test_the_sim_profile_plays_a_test_sound(tmp_path):
    wav = tmp_path / "card-ok.wav"
    wav.write_bytes(b"RIFF")
    built = {}

    def build(profile, sink, clock):
        built["devices"] = build_devices(profile, sink, clock)
        return built["devices"]

    code, _lines = doctor("sim", build=build, sounds={"card-ok": wav})
    assert code == 0
    assert [p.name for p in built["devices"].speaker.played] == ["card-ok"]


def test_likely_fixes_name_what_a_person_can_do():
    from hardware.doctor import likely_fix

    assert "raspi-config nonint do_spi 0" in likely_fix("[Errno 2] No such file or directory: '/dev/spidev0.0'")
    assert "spi group" in likely_fix("[Errno 13] Permission denied: '/dev/spidev0.0'")
    assert "cs_pin" in likely_fix("RuntimeError: Did not receive expected ACK from PN532!")
    assert "wiring" in likely_fix("something nobody foresaw")
