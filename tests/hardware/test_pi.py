"""What differs between a Pi 4 and a Pi 5, checked against Blinka's own board definitions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hardware import pi

MODELS = {
    "Raspberry Pi 4 Model B Rev 1.5": ("/dev/serial0", False),
    "Raspberry Pi 5 Model B Rev 1.0": ("/dev/ttyAMA0", True),
    "Raspberry Pi 500 Rev 1.0": ("/dev/ttyAMA0", True),
    "Raspberry Pi Compute Module 5 Rev 1.0": ("/dev/ttyAMA0", True),
    "Raspberry Pi 3 Model B Plus Rev 1.3": ("/dev/serial0", False),
}


def fake_root(tmp_path: Path, model: str | None) -> Path:
    if model is not None:
        tree = tmp_path / "proc/device-tree"
        tree.mkdir(parents=True)
        (tree / "model").write_bytes(model.encode() + b"\0")  # as the kernel writes it
    return tmp_path


@pytest.mark.parametrize("model", MODELS)
def test_the_pn532_uart_is_the_gpio14_15_uart_of_each_model(tmp_path, model):
    root = fake_root(tmp_path, model)
    assert pi.model(root) == model
    assert (pi.gpio_uart(root), pi.is_pi5(root)) == MODELS[model]


def test_off_a_pi_the_model_is_empty_and_the_uart_is_the_classic_one(tmp_path):
    root = fake_root(tmp_path, None)
    assert (pi.model(root), pi.gpio_uart(root), pi.is_pi5(root)) == ("", "/dev/serial0", False)


#: Every board pin the drivers ask Blinka for (hardware/drivers/pn532.py, leds.py), and the BCM number it must be.
PINS = {"SCK": 11, "MOSI": 10, "MISO": 9, "SCK_1": 21, "MOSI_1": 20, "MISO_1": 19, "SCL": 3, "SDA": 2, "D16": 16}
BOARDS = {"RASPBERRY_PI_4B": "BCM2XXX", "RASPBERRY_PI_5": "BCM2712"}


@pytest.mark.parametrize("board", BOARDS)
def test_blinka_board_imports_on_a_pi_4_and_a_pi_5_and_names_our_pins(board):
    """`import board` needs gpiod on both models: without it every PN532 and the LED strip fault at open."""
    probe = (
        "import board, busio, digitalio, neopixel_spi, adafruit_pn532.spi, adafruit_pn532.i2c\n"
        f"print(board.board_id, *(int(str(getattr(board, name))) for name in {list(PINS)!r}))"
    )
    env = os.environ | {"BLINKA_FORCEBOARD": board, "BLINKA_FORCECHIP": BOARDS[board]}
    result = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1]
    assert result.stdout.split() == [board, *(str(number) for number in PINS.values())]
