"""What a builder may change for their own puck: pins, ring size, power budget and timings.

The defaults match the wiring table in firmware/README.md.
"""

BUTTON_PIN = 15  # GP15: arcade button to GND (internal pull-up)
SHAKE_PIN = 14  # GP14: vibration/tilt switch to GND; None when the puck has none
RING_PIN = 16  # GP16: the ring's DIN (through 330 ohm)
LEDS = 12  # pixels on the ring (8 or more, so every face has its own pattern)

# Power: MicroPython's USB descriptor asks the host for 250 mA (USBD_MAX_POWER_MA),
# so the whole puck stays within that. The ring's lit channels get what is left
# after the Pico and every pixel's own draw while dark (a WS2812 draws about
# 20 mA per colour channel at full level, and about 1 mA dark).
USB_MA = 250
PICO_MA = 50  # the Pico itself at work on USB: a generous allowance, not a measurement
LED_IDLE_MA = 1  # each WS2812B, dark
MAX_LEVEL = 0.5  # brightness ceiling: full WS2812s dazzle a child across the table

DEBOUNCE_MS = 20  # button chatter shorter than this is ignored
SHAKE_EDGES = 6  # switch changes within SHAKE_WINDOW_MS that make a shake
SHAKE_WINDOW_MS = 600
SHAKE_REST_MS = 1500  # after a shake, the switch still rattles: one shake is one roll

MIN_SPIN_MS = 700  # the ring spins at least this long, so a roll looks like one
MAX_SPIN_MS = 3000  # no face by then (the press did not roll): stop spinning
IDLE_MS = 60000  # no press and no face for this long: dim
IDLE_LEVEL = 0.15
LINK_TIMEOUT_MS = 3500  # nothing from the box for this long: the link is lost
POLL_MS = 10  # the main loop's longest wait for the serial line
# Held from power-on, the button stops the puck for flashing (firmware/README.md) only when held
# until the ring is full and then let go; let go sooner, or still held long after, the puck starts.
STOP_HOLD_MS = 3000  # the ring fills in this long
STOP_LET_GO_MS = 3000  # and waits this long for the button to be let go
