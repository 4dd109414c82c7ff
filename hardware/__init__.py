"""The hardware-abstraction layer: the box's buttons, readers, LEDs and speaker.

The box talks to small interfaces (:mod:`hardware.interfaces`) and hears
back through events (:mod:`hardware.events`). A profile
(:mod:`hardware.profile`, files in ``hardware/profiles/``) says whether the
devices are simulated (any PC, every test) or real (a Raspberry Pi), and how
they are wired. Real-driver libraries are imported only when a real device
is started, so ``import hardware`` works on any machine. Nothing here
imports the box (``controller``).
"""

from hardware.clock import Clock, FakeClock, SystemClock
from hardware.events import (
    ButtonHeld,
    ButtonPressed,
    ButtonReleased,
    DeviceFault,
    DeviceRecovered,
    Event,
    EventSink,
    PuckPressed,
    TagGone,
    TagSeen,
)
from hardware.interfaces import Button, DiePuck, LedStrip, Segment, Speaker, TagReader

# Profiles need pydantic, which takes a while to import: only when asked for.
_LAZY = {"Profile": "profile", "ProfileError": "profile", "load_profile": "profile"}
_LAZY |= {"Devices": "factory", "build_devices": "factory"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"hardware.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'hardware' has no attribute {name!r}")


__all__ = [
    "Button",
    "ButtonHeld",
    "ButtonPressed",
    "ButtonReleased",
    "Clock",
    "DeviceFault",
    "DeviceRecovered",
    "Devices",
    "DiePuck",
    "Event",
    "EventSink",
    "FakeClock",
    "LedStrip",
    "Profile",
    "ProfileError",
    "PuckPressed",
    "Segment",
    "Speaker",
    "SystemClock",
    "TagGone",
    "TagReader",
    "TagSeen",
    "build_devices",
    "load_profile",
]
