"""`gamebox doctor` on a Pi: groups, device nodes, the pin factory and the audio device, on a fake /dev tree."""

from __future__ import annotations

import io
import os
from pathlib import Path

from hardware.doctor import run_doctor
from hardware.factory import build_devices
from hardware.host import Host, check_host
from hardware.profile import PROFILES_DIR, load_profile

PI = (PROFILES_DIR / "pi-reference.toml").read_text()
NODES = ("dev/spidev0.0", "dev/spidev1.0", "dev/gpiochip0", "dev/snd/pcmC0D0p", "dev/i2c-1", "dev/ttyAMA0")


def fake_pi(tmp_path: Path, model: str = "Raspberry Pi 4 Model B Rev 1.5", missing: tuple[str, ...] = ()) -> Path:
    """A root with the reference build's device nodes, all owned by group "spi" (this test's own gid), mode 660."""
    for node in NODES:
        if node not in missing:
            path = tmp_path / node
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o660)
            path.chmod(0o660)
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/group").write_text(f"spi:x:{os.getegid()}:gamebox\n")
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    return tmp_path


def service(root: Path, *, in_group: bool = True, **answers) -> Host:
    """The service user: not the nodes' owner, in their group or not."""
    settings = {
        "pin_factory": lambda: "LGPIOFactory",
        "installed": lambda name: False,
        "audio_devices": lambda: ["bcm2835 Headphones, bcm2835 Headphones"],
    }
    groups = frozenset({os.getegid()} if in_group else set())
    return Host(root=root, uid=os.geteuid() + 1, groups=groups, **(settings | answers))


def doctor(profile, host: Host) -> tuple[int, list[str]]:
    """Doctor with the sim's devices (their rows are tested elsewhere) and ``profile``'s needs checked on ``host``."""
    out = io.StringIO()
    code = run_doctor(
        profile, build=lambda _, sink, clock: build_devices(load_profile("sim"), sink, clock), settle=0, out=out,
        host=host,
    )
    return code, out.getvalue().splitlines()


def needs(lines: list[str]) -> list[str]:
    start = lines.index("what the service needs, as this user sees it:")
    return [line.strip() for line in lines[start + 1 :] if line.startswith("  ")]


def test_a_pi_set_up_as_the_readme_says_meets_every_need(tmp_path):
    code, lines = doctor("pi-reference", service(fake_pi(tmp_path)))
    assert needs(lines) == [
        "ok     /dev/spidev1.0 (reader table): /dev/spidev1.0, read and write",
        "ok     /dev/spidev0.0 (LED strip main): /dev/spidev0.0, read and write",
        "ok     /dev/gpiochip (GPIO): /dev/gpiochip0, read and write",
        "ok     /dev/snd (speaker): /dev/snd/pcmC0D0p, read and write",
        "ok     gpiozero pin factory: LGPIOFactory",
        "ok     audio device: the default; SDL sees: 'bcm2835 Headphones, bcm2835 Headphones'",
    ]
    assert (code, lines[-1]) == (0, "All devices work.")


def test_a_missing_group_spi_left_off_a_fallback_pin_factory_and_an_absent_speaker_are_each_named(tmp_path):
    root = fake_pi(tmp_path, missing=("dev/spidev1.0",))
    profile = tmp_path / "kitchen.toml"
    profile.write_text(PI.replace("max_volume = 0.8", 'device = "USB Audio"\nmax_volume = 0.8'))
    host = service(root, in_group=False, pin_factory=lambda: "RPiGPIOFactory")
    code, lines = doctor(str(profile), host)
    assert needs(lines) == [
        "FAULT  /dev/spidev1.0 (reader table): missing; "
        "SPI1 is off: add dtoverlay=spi1-1cs to /boot/firmware/config.txt and reboot",
        "FAULT  /dev/spidev0.0 (LED strip main): /dev/spidev0.0 belongs to group spi, which this user is not in: "
        "sudo usermod -aG spi <service user>",
        "FAULT  /dev/gpiochip (GPIO): /dev/gpiochip0 belongs to group spi, which this user is not in: "
        "sudo usermod -aG spi <service user>",
        "FAULT  /dev/snd (speaker): /dev/snd/pcmC0D0p belongs to group spi, which this user is not in: "
        "sudo usermod -aG spi <service user>",
        "FAULT  gpiozero pin factory: RPiGPIOFactory, not lgpio: set GPIOZERO_PIN_FACTORY=lgpio and run where "
        "lgpio can write its pipe (its working directory, or LG_WD)",
        "FAULT  audio device: 'USB Audio' is not there; SDL sees: 'bcm2835 Headphones, bcm2835 Headphones' "
        "(speaker.device)",
    ]
    assert (code, lines[-1]) == (1, "6 needs of the service not met.")


def test_a_pi_5_says_which_readers_it_supports(tmp_path):
    rc522 = '[readers.table]\ndriver = "rc522"\nspi_bus = 1\nrst_pin = 25\n'
    profile = tmp_path / "rc522.toml"
    profile.write_text(PI.split("[readers.table]")[0] + rc522 + "[leds]" + PI.split("[leds]")[1])
    pi5 = fake_pi(tmp_path / "pi5", model="Raspberry Pi 5 Model B Rev 1.0")
    checks = {check.name: check for check in check_host(load_profile(profile), service(pi5))}
    assert checks["/dev/gpiochip (reader table)"].ok  # RPi.GPIO's stand-in uses the GPIO chip, not /dev/gpiomem
    assert not checks["RC522 on a Pi 5"].ok
    assert "or use a PN532 or a USB keyboard reader (they work on every Pi)" in checks["RC522 on a Pi 5"].detail
    mended = service(pi5, installed=lambda name: name == "rpi-lgpio")
    assert {c.name: c.ok for c in check_host(load_profile(profile), mended)}["RC522 on a Pi 5"]
    pi4 = fake_pi(tmp_path / "pi4")
    names = [check.name for check in check_host(load_profile(profile), service(pi4))]
    assert "RC522 on a Pi 5" not in names and "/dev/gpiomem (reader table)" in names


def test_a_pn532_on_uart_needs_the_gpio_uart_of_its_model(tmp_path):
    uart = tmp_path / "uart.toml"
    uart.write_text(PI.replace('bus = "spi"\nspi_port = 1\ncs_pin = 16', 'bus = "uart"'))
    pi5 = fake_pi(tmp_path / "pi5", model="Raspberry Pi 5 Model B Rev 1.0")
    pi4 = fake_pi(tmp_path / "pi4", missing=("dev/ttyAMA0",))
    on_5 = {check.name: check.ok for check in check_host(load_profile(uart), service(pi5))}
    on_4 = {check.name: check.ok for check in check_host(load_profile(uart), service(pi4))}
    assert on_5["/dev/ttyAMA0 (reader table)"] and not on_4["/dev/serial0 (reader table)"]


def test_the_sim_profile_has_no_needs_on_the_host(tmp_path):
    code, lines = doctor("sim", service(tmp_path, in_group=False, pin_factory=lambda: "none"))
    assert "what the service needs, as this user sees it:" not in lines
    assert (code, lines[-1]) == (0, "All devices work.")
