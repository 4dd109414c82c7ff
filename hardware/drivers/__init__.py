"""Real drivers, one module per kind of hardware.

Each module imports its hardware library (gpiozero, adafruit_pn532,
pirc522, evdev, neopixel_spi, pygame, serial) only inside the driver that
needs it, so importing them, and ``hardware`` itself, works on any machine.
"""
