"""The ring's other pictures (rolling, waiting for the box) and the limits every frame obeys."""

WHITE = (255, 255, 255)
AMBER = (255, 120, 0)
VIOLET = (150, 0, 255)  # the button held at power-on (puck.hold): no face is violet
SPIN_TAIL = (1.0, 0.45, 0.2, 0.08)  # the comet's head and its fading tail
SPIN_START_MS = 45  # ms per pixel when the roll starts; it slows like a die coming to rest
SPIN_SLOWING = 4  # ms per pixel added each step
PULSE_MS = 2000  # one slow breath of the waiting picture
FRAME_MS = 40  # the breath moves in steps this long: 25 new frames a second, not one per loop pass
READY_TURN_MS = 4800  # the ready dot goes round once in this long
MA_PER_CHANNEL = 20  # a WS2812 channel at full level


def spin_step(elapsed_ms: int) -> int:
    """How many pixels the comet has moved ``elapsed_ms`` into the roll."""
    step, spent, delay = 0, 0, SPIN_START_MS
    while spent + delay <= elapsed_ms:
        spent += delay
        delay += SPIN_SLOWING
        step += 1
    return step


def spin(leds: int, step: int) -> list:
    """A white comet running round the ring, its head ``step`` pixels on from the top."""
    pixels = [(0, 0, 0)] * leds
    for back, level in enumerate(SPIN_TAIL):
        pixels[(step - back) % leds] = scale_rgb(WHITE, level)
    return pixels


def ready(leds: int, position: int) -> list:
    """Linked, and no roll yet: one white dot walking slowly round, so the puck looks alive."""
    pixels = [(0, 0, 0)] * leds
    pixels[position % leds] = scale_rgb(WHITE, 0.3)
    return pixels


def ready_position(leds: int, now: int) -> int:
    return (now // (READY_TURN_MS // leds)) % leds


def filling(leds: int, lit: int) -> list:
    """The button held at power-on: ``lit`` pixels of the ring violet, from the top, as it fills."""
    return [VIOLET if index < lit else (0, 0, 0) for index in range(leds)]


def stopped(leds: int) -> list:
    """Stopped for flashing: every other pixel violet, standing still."""
    return [VIOLET if index % 2 == 0 else (0, 0, 0) for index in range(leds)]


def waiting(leds: int, now: int) -> list:
    """No box on the line: two opposite amber dots breathing slowly."""
    phase = (now - now % FRAME_MS) % PULSE_MS
    level = 0.1 + 0.9 * (phase if phase < PULSE_MS // 2 else PULSE_MS - phase) / (PULSE_MS // 2)
    pixels = [(0, 0, 0)] * leds
    pixels[0] = pixels[leds // 2] = scale_rgb(AMBER, level)
    return pixels


def scale_rgb(rgb: tuple, level: float) -> tuple:
    return (int(rgb[0] * level), int(rgb[1] * level), int(rgb[2] * level))


def current_ma(pixels: list) -> float:
    """What the ring draws showing ``pixels``, by the WS2812's 20 mA per channel."""
    return sum(r + g + b for r, g, b in pixels) * MA_PER_CHANNEL / 255


def limit(pixels: list, level: float, budget_ma: float) -> list:
    """``pixels`` at ``level``, then dimmed as a whole if they would draw more than ``budget_ma``."""
    draw = current_ma(pixels) * level
    if draw > budget_ma:
        level = level * budget_ma / draw
    return [scale_rgb(rgb, level) for rgb in pixels]
