"""Fixtures shared by the hardware tests."""

from __future__ import annotations

import pytest

from hardware.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mock_pins():
    """gpiozero's mock pin factory, reset after each test so pins are free again."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous
