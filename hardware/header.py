"""The Pi's 40-pin header, and which of its pins each part of a profile takes.

:func:`uses` is the one list of what a profile wires to the header: the
profile loader refuses a profile whose list has a GPIO twice, a GPIO the Pi
does not have, or a strip off its SPI port's MOSI (:func:`check`), and
``gamebox wiring`` draws the same list. A Pi 3, 4 and 5 share this header.
:func:`check` is called by the profile loader, so ``gamebox doctor``, the
box and the drawing all refuse a profile for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware import config
from hardware.config import Problem

#: What each header pin is, by its number on the board (pin 1 is the square pad, by the board's corner).
PINS: dict[int, str] = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14", 9: "GND", 10: "GPIO15",
    11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND", 15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24",
    19: "GPIO10", 20: "GND", 21: "GPIO9", 22: "GPIO25", 23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1", 29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND",
    35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}
PIN_OF_GPIO: dict[int, int] = {int(name[4:]): pin for pin, name in PINS.items() if name.startswith("GPIO")}
GROUND = tuple(pin for pin, name in PINS.items() if name == "GND")

#: The buses the box uses, with the overlays of hardware/README.md: SPI0 with CE0/CE1 (dtparam=spi=on),
#: SPI1 with CE0 (dtoverlay=spi1-1cs), I²C1, and the UART on GPIO14/15.
SPI = {
    0: {"SCLK": 11, "MOSI": 10, "MISO": 9, "CE0": 8, "CE1": 7},
    1: {"SCLK": 21, "MOSI": 20, "MISO": 19, "CE0": 18},
}
SPI_CHIP_SELECTS = {(0, 0): 8, (0, 1): 7, (1, 0): 18, (1, 1): 17, (1, 2): 16}  # (bus, device): GPIO
I2C = {"SDA": 2, "SCL": 3}
UART = {"TXD": 14, "RXD": 15}
PI_UARTS = (None, "/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")  # the ones on GPIO14/15


def function(gpio: int) -> str:
    """The bus function of ``gpio`` the box knows ("SPI0 MOSI"), or ""."""
    for port, pins in SPI.items():
        for name, number in pins.items():
            if number == gpio:
                return f"SPI{port} {name}"
    for bus, pins in (("I2C1", I2C), ("UART", UART)):
        for name, number in pins.items():
            if number == gpio:
                return f"{bus} {name}"
    return ""


@dataclass(frozen=True)
class Use:
    """One GPIO a part takes: the part, its own pin's name, the profile key that puts it there.

    ``shared`` names a bus several parts of one kind may share (``"SPI1"``);
    ``wired`` is False for a pin the bus's overlay takes that nothing is wired to.
    """

    gpio: int
    part: str
    terminal: str
    key: str
    value: object
    shared: str = ""
    wired: bool = True

    @property
    def pin(self) -> int | None:
        """The header pin, or None for a GPIO the Pi does not have."""
        return PIN_OF_GPIO.get(self.gpio)


def uses(profile: config.Profile) -> list[Use]:
    """Every GPIO the profile's real parts take, part by part: strips, buttons, readers."""
    found: list[Use] = []
    for name, strip in profile.leds.strips.items():
        if strip.driver == "neopixel_spi":
            key = f"leds.strips.{name}"
            data = strip.pin if strip.pin is not None else SPI[strip.spi_port]["MOSI"]
            named = strip.pin is not None
            found.append(Use(data, f"LED strip {name}", "DIN", f"{key}.pin" if named else f"{key}.spi_port",
                             strip.pin if named else strip.spi_port))
            # Every byte on this MOSI becomes colours: the strip gets the bus to itself.
            found += [Use(gpio, f"LED strip {name}", f"SPI{strip.spi_port} {signal}", f"{key}.spi_port", strip.spi_port,
                          wired=False) for signal, gpio in SPI[strip.spi_port].items() if signal != "MOSI"]
    for name, button in profile.buttons.items():
        if button.driver == "gpio":
            found.append(Use(button.pin, f"{name} button", "leg", f"buttons.{name}.pin", button.pin))
    for name, reader in profile.readers.items():
        found += _reader(name, reader)
    return found


def _reader(name: str, reader: config.ReaderConfig) -> list[Use]:
    key, part = f"readers.{name}", f"reader {name}"
    if reader.driver == "pn532":
        found: list[Use] = []
        if reader.bus == "spi":
            found += _spi_bus(part, reader.spi_port, f"{key}.spi_port")
            if reader.cs_pin is not None:
                found.append(Use(reader.cs_pin, part, "SS", f"{key}.cs_pin", reader.cs_pin))
        elif reader.bus == "i2c":
            found += [Use(gpio, part, signal, f"{key}.bus", reader.bus, "I2C1") for signal, gpio in I2C.items()]
            if reader.req_pin is not None:
                found.append(Use(reader.req_pin, part, "P32 (REQ)", f"{key}.req_pin", reader.req_pin))
        elif reader.uart in PI_UARTS:  # the Pi sends on TXD into the board's RX, and hears its TX on RXD
            found += [Use(UART["TXD"], part, "RX", f"{key}.uart", reader.uart, "UART"),
                      Use(UART["RXD"], part, "TX", f"{key}.uart", reader.uart, "UART")]
        if reader.reset_pin is not None:
            found.append(Use(reader.reset_pin, part, "RSTPDN", f"{key}.reset_pin", reader.reset_pin))
        return found
    if reader.driver == "rc522":
        found = _spi_bus(part, reader.spi_bus, f"{key}.spi_bus")
        select = SPI_CHIP_SELECTS.get((reader.spi_bus, reader.spi_device))
        if select is not None:
            found = [u for u in found if u.gpio != select]  # its chip select is wired, not only reserved
            found.append(Use(select, part, "SDA (CS)", f"{key}.spi_device", reader.spi_device, f"SPI{reader.spi_bus}"))
        found.append(Use(reader.rst_pin, part, "RST", f"{key}.rst_pin", reader.rst_pin))
        return found
    return []  # sim and keyboard readers take no pin


def _spi_bus(part: str, port: int, key: str) -> list[Use]:
    """A reader's share of an SPI bus: the clock and data lines wired, the overlay's chip selects reserved."""
    wires = {"SCLK": "SCK", "MOSI": "MOSI", "MISO": "MISO"}
    return [
        Use(gpio, part, wires.get(signal, f"SPI{port} {signal}"), key, port, f"SPI{port}", wired=signal in wires)
        for signal, gpio in SPI[port].items()
    ]


def check(profile: config.Profile) -> None:
    """Every GPIO on the Pi's header, a strip on its port's MOSI, none used twice (a bus only by one kind of part)."""
    for use in uses(profile):
        if use.pin is None:
            hint = f"; header pin {use.gpio} is {PINS[use.gpio]}" if use.gpio in PINS else ""
            raise Problem(use.key, use.value, f"a Pi has no GPIO{use.gpio}, only GPIO0 to GPIO27 (a profile names "
                                              f"GPIO numbers, not header pins{hint})")
    for name, strip in profile.leds.strips.items():
        if strip.driver == "neopixel_spi" and strip.pin is not None:
            _check_strip_pin(f"leds.strips.{name}.pin", strip.pin, strip.spi_port)
    used: dict[int, Use] = {}
    for use in uses(profile):
        holder = used.setdefault(use.gpio, use)
        if (holder.shared or holder.key) != (use.shared or use.key):
            raise Problem(use.key, use.value, f"GPIO{use.gpio} is already used by {holder.key}")


def _check_strip_pin(path: str, pin: int, port: int) -> None:
    """neopixel_spi makes the strip's pulses out of SPI bytes: only a MOSI carries them."""
    mosi = {number: spi["MOSI"] for number, spi in SPI.items()}
    if pin == mosi[port]:
        return
    if pin in mosi.values():
        other = next(number for number, gpio in mosi.items() if gpio == pin)
        raise Problem(path, pin, f"GPIO{pin} is SPI{other}'s MOSI, but spi_port = {port}: set spi_port = {other}")
    choices = " or ".join(f"GPIO{gpio} (pin {PIN_OF_GPIO[gpio]}, SPI{n} MOSI)" for n, gpio in mosi.items())
    raise Problem(path, pin, f"GPIO{pin} carries no SPI MOSI: a neopixel_spi strip's data line goes to {choices}")
