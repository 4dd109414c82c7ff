"""The puck's logic under CPython and, through mp_run.py, under MicroPython's unix port.

Plain functions and asserts only (no pytest imports, no CPython-only
modules), so the same file runs in both interpreters. Time is a number
passed in: nothing here waits.
"""

from puck import PROTOCOL, VERSION, faces, ring, settings, ticks

try:
    from tests.firmware.rp2_standins import StandInBoard  # CPython, in the suite
except ImportError:
    from rp2_standins import StandInBoard  # MicroPython, from mp_run.py

from puck.app import App  # noqa: E402
from puck.core import Puck  # noqa: E402
from puck.hold import REPL, RUN, PowerOnHold  # noqa: E402
from puck.protocol import FACES, TOO_LONG, LineReader  # noqa: E402

LEDS = 12


def booted(now=0, leds=LEDS, shake=True):
    """A puck that has said HELLO and heard the box's first PING."""
    puck = Puck(now, leds, shake)
    puck.received("PING", now)
    puck.take_lines()
    return puck


def hold(puck, down, start, ms, every=5):
    """The button held at ``down`` for ``ms``, sampled every ``every`` ms as the main loop does; the end time."""
    now = start
    while now < start + ms:
        puck.button(down, now)
        now += every
    return now


def press(puck, start, down_ms=80, up_ms=80):
    return hold(puck, False, hold(puck, True, start, down_ms), up_ms)


def said(puck):
    """The lines the puck has to send, without the ticks a PRESS or a PONG carries (see the tests of the ticks)."""
    return [line.split(" t=")[0] for line in puck.take_lines()]


def lit(pixels):
    return [rgb != (0, 0, 0) for rgb in pixels]


# -- the button ---------------------------------------------------------------------
def test_a_press_is_one_press_line_however_the_contacts_chatter():
    puck = booted()
    now = 0
    for level in (True, False, True, False, True):  # 2 ms bounces on the way down
        puck.button(level, now)
        now += 2
    now = hold(puck, True, now, 60)
    for level in (False, True, False):  # and on the way up
        puck.button(level, now)
        now += 2
    hold(puck, False, now, 60)
    assert said(puck) == ["PRESS"]


def test_chatter_shorter_than_the_debounce_time_is_no_press():
    puck = booted()
    now = hold(puck, True, 0, settings.DEBOUNCE_MS - 5, every=1)
    hold(puck, False, now, 100)
    assert puck.take_lines() == []


def test_ten_presses_a_second_are_ten_presses():
    puck = booted()
    now = 0
    for _ in range(10):
        now = press(puck, now, down_ms=50, up_ms=50)
    assert now == 1000
    assert said(puck) == ["PRESS"] * 10


def test_a_press_across_the_ticks_wrap_still_counts():
    start = ticks.PERIOD - 30
    puck = booted(start)
    now = start
    for _ in range(20):
        puck.button(True, ticks.add(now, 0))
        now += 5
    assert said(puck) == ["PRESS"]
    assert ticks.diff(5, ticks.PERIOD - 5) == 10


def test_a_press_and_a_pong_carry_the_puck_s_ticks_across_the_wrap():
    """So a box that could not read for a while can tell an old press from a new one (PROTOCOL.md, "Presses")."""
    start = ticks.PERIOD - 10
    puck = booted(start)
    puck.received("PING", start)
    now = start
    for _ in range(12):
        puck.button(True, now)
        now = ticks.add(now, 5)
    pressed = ticks.add(start, settings.DEBOUNCE_MS)
    assert pressed < start, "past the wrap"
    assert puck.take_lines() == ["PONG t=%d" % start, "PRESS t=%d" % pressed], "the moment the press counted"
    assert len("PRESS t=%d" % (ticks.PERIOD - 1)) <= 80


def test_the_ticks_are_micropython_s_own_there_and_the_rp2_port_s_arithmetic_under_cpython():
    """On a Pico, time.ticks_diff keeps to small integers; a Python stand-in with 2**30 would make long ones each call."""
    import time

    if hasattr(time, "ticks_diff"):  # MicroPython (mp_run.py)
        assert ticks.diff is time.ticks_diff and ticks.add is time.ticks_add
        return
    half = ticks.PERIOD // 2
    assert ticks.PERIOD == 1 << 30
    assert ticks.add(ticks.PERIOD - 1, 1) == 0 and ticks.add(0, -1) == ticks.PERIOD - 1
    assert ticks.diff(ticks.add(7, half - 1), 7) == half - 1, "the longest interval a difference can tell"
    assert ticks.diff(ticks.add(7, half), 7) == -half, "one more looks like the past, as time.ticks_diff says"


# -- the shake switch -----------------------------------------------------------------
def rattle(puck, start, changes, every=40):
    level, now = False, start
    for _ in range(changes):
        level = not level
        puck.shake(level, now)
        now += every
    return now


def test_a_bump_is_not_a_shake_and_a_shake_is_one_roll():
    puck = booted()
    now = rattle(puck, 0, 2)  # set down on the table
    assert puck.take_lines() == []
    now = rattle(puck, now + 2000, 30)  # shaken for over a second
    assert said(puck) == ["PRESS"]
    puck.received("PING", now)  # the box is still there
    puck.take_lines()
    rattle(puck, now + settings.SHAKE_REST_MS, settings.SHAKE_EDGES)
    assert said(puck) == ["PRESS"], "a new shake after the rest is a new roll"


def test_a_slow_wobble_is_not_a_shake():
    puck = booted()
    rattle(puck, 0, 20, every=settings.SHAKE_WINDOW_MS // 2)
    assert puck.take_lines() == []


def test_a_puck_without_a_switch_says_so():
    puck = Puck(0, LEDS, shake=False)
    assert puck.take_lines() == ["HELLO %s proto=%d leds=12 caps=button,ring link=-" % (VERSION, PROTOCOL)]


# -- spinning and faces ---------------------------------------------------------------
def test_the_ring_spins_after_a_press_and_shows_the_face_once_the_spin_has_run():
    puck = booted()
    now = press(puck, 0)
    frames = [puck.frame(now + ms) for ms in range(0, 500, 50)]
    heads = [f.index(max(f)) for f in frames]
    assert len(set(heads)) > 3, "the comet goes round"
    puck.received("FACE dog", now + 100)  # the box answers at once
    puck.tick(now + 200)
    assert puck.frame(now + 200) != puck.frame(now + settings.MIN_SPIN_MS + 50)
    assert puck.face is None, "still rolling"
    puck.tick(now + settings.MIN_SPIN_MS + 10)
    assert puck.face == "dog"
    assert lit(puck.frame(now + settings.MIN_SPIN_MS + 20)) == faces.pattern("dog", LEDS)


def test_a_press_the_box_does_not_answer_with_a_face_stops_spinning():
    puck = booted()
    puck.received("FACE cat", 0)
    now = press(puck, 100)
    puck.received("PING", now + settings.MAX_SPIN_MS - 500)
    puck.tick(now + settings.MAX_SPIN_MS)
    assert puck.spinning_since is None
    assert lit(puck.frame(now + settings.MAX_SPIN_MS)) == faces.pattern("cat", LEDS), "back to the last face"


def test_a_face_without_a_press_is_shown_at_once():
    puck = booted()
    puck.received("FACE 4", 10)
    assert lit(puck.frame(20)) == faces.pattern("4", LEDS)
    assert sum(lit(puck.frame(20))) == 4


def test_every_face_has_its_own_pattern_on_any_ring_so_colour_is_never_needed():
    for leds in range(faces.MIN_LEDS, 33):
        shapes = {}
        for face in FACES:
            shape = tuple(faces.pattern(face, leds))
            assert shape not in shapes, "%s looks like %s on %d pixels" % (face, shapes.get(shape), leds)
            assert any(shape), face
            shapes[shape] = face


def test_the_whistle_flashes_and_the_others_stand_still():
    puck = booted()
    puck.received("FACE whistle", 0)
    flashes = [lit(puck.frame(ms)) for ms in (0, faces.FLASH_MS, 2 * faces.FLASH_MS)]
    assert flashes == [faces.pattern("whistle", LEDS), [False] * LEDS, faces.pattern("whistle", LEDS)]
    puck.received("FACE cat", 600)
    assert puck.frame(600) is puck.frame(600 + faces.FLASH_MS), "nothing new: the same frame, not drawn again"


def test_a_ring_too_small_for_the_patterns_is_refused():
    try:
        Puck(0, leds=6)
    except ValueError as error:
        assert "8" in str(error)
    else:
        raise AssertionError("a 6-pixel ring was accepted")


# -- dimming and power --------------------------------------------------------------
def test_the_ring_dims_when_idle_and_a_press_wakes_it():
    puck = booted()
    puck.received("FACE cat", 0)
    awake = puck.frame(100)
    t = settings.IDLE_MS + 10
    puck.received("PING", t)
    puck.take_lines()
    dim = puck.frame(t)
    assert lit(dim) == lit(awake) and max(max(rgb) for rgb in dim) < max(max(rgb) for rgb in awake) / 3
    now = press(puck, t)
    assert said(puck) == ["PRESS"], "the waking press rolls too"
    puck.received("FACE cat", now)
    puck.tick(now + settings.MIN_SPIN_MS)
    assert puck.frame(now + settings.MIN_SPIN_MS) == awake


def test_the_whole_puck_stays_within_what_the_pico_asks_of_usb_whatever_the_ring_shows():
    """MicroPython's USB descriptor asks the host for 250 mA; the Pico and every dark pixel draw too."""
    for leds in (8, 12, 16, 24, 60):
        puck = booted(leds=leds)
        worst = 0
        for face in FACES:
            puck.received("FACE " + face, 0)
            worst = max(worst, ring.current_ma(puck.frame(0)))
        now = press(puck, 0)
        for ms in range(0, settings.MAX_SPIN_MS, 37):
            worst = max(worst, ring.current_ma(puck.frame(now + ms)))
        pico_ma, dark_pixel_ma = 50, 1
        assert pico_ma + leds * dark_pixel_ma + worst <= 250, (leds, worst)
    small = booted(leds=12)
    small.received("FACE 1", 0)
    assert max(small.frame(0)[0]) == int(faces.NUMBER_COLOUR[0] * settings.MAX_LEVEL), "one dot is not dimmed"
    try:
        Puck(0, leds=200)
    except ValueError as error:
        assert "USB" in str(error)
    else:
        raise AssertionError("a ring that draws the whole budget dark was accepted")


def test_a_week_untouched_stays_dim_and_a_week_without_the_box_stays_waiting_across_the_ticks_wrap():
    """After half the ticks' period (6.2 days on a Pico) an old tick looks new unless the puck has let it go."""
    minute = 60000
    start = ticks.add(0, -3 * 24 * 60 * minute)  # the ticks wrap three days in
    watched, alone = booted(start), booted(start)
    watched.received("FACE cat", start)
    bright = max(max(rgb) for rgb in watched.frame(start))
    now = start
    for _ in range(13 * 24 * 60):  # 13 days, a look each minute (the loop looks every 10 ms)
        now = ticks.add(now, minute)
        watched.received("PING", now)  # the box is there, nobody presses
        watched.take_lines()
        for puck in (watched, alone):
            puck.tick(now)
        assert max(max(rgb) for rgb in watched.frame(now)) < bright / 3, "dim after a minute, and still dim"
        assert alone.picture(now)[0] == "waiting", "a box silent for days is still away"
    now = press(watched, now)
    assert said(watched) == ["PRESS"] and not watched.idle(now), "a press wakes it"


# -- the link -------------------------------------------------------------------------
def test_the_puck_says_hello_at_power_on_and_when_the_box_asks_naming_the_box_s_link():
    puck = Puck(0, LEDS)
    expected = "HELLO %s proto=%d leds=12 caps=button,ring,shake link=" % (VERSION, PROTOCOL)
    assert puck.take_lines() == [expected + "-"], "at power-on it answers no box"
    puck.received("HELLO gamebox proto=1 link=7f3a09c2", 5)
    assert puck.take_lines() == [expected + "7f3a09c2"]
    puck.received("PING", 6)
    puck.received("HELLO gamebox proto=1", 6)  # a box that names no link: what it did not take is stale
    assert puck.take_lines() == [expected + "-"]
    puck.received("HELLO gamebox proto=1 link=NOT!ok", 7)  # or a bad one
    assert puck.take_lines() == [expected + "-"]
    assert len(expected + "0123456789abcdef") <= 80


def test_a_ping_is_answered_and_silence_is_a_lost_link_shown_on_the_ring():
    puck = Puck(0, LEDS)
    assert not puck.linked(0) and lit(puck.frame(0)) == lit(ring.waiting(LEDS, 0)), "no box yet"
    puck.received("PING", 100)
    assert said(puck)[-1] == "PONG"
    puck.received("FACE mouse", 200)
    assert puck.linked(200 + settings.LINK_TIMEOUT_MS - 1)
    late = 200 + settings.LINK_TIMEOUT_MS
    assert not puck.linked(late)
    assert lit(puck.frame(late)) == lit(ring.waiting(LEDS, late))
    puck.received("PING", late + 10)
    assert lit(puck.frame(late + 10)) == faces.pattern("mouse", LEDS), "back when the box is"


def test_before_the_first_roll_one_dot_walks_round_so_the_puck_looks_alive():
    puck = booted()
    step = ring.READY_TURN_MS // LEDS
    frames = []
    for t in range(0, ring.READY_TURN_MS, step):
        puck.received("PING", t)  # the box is there all along
        frames.append(lit(puck.frame(t)))
    assert all(sum(frame) == 1 for frame in frames)
    assert [frame.index(True) for frame in frames] == list(range(LEDS)), "round once, a pixel at a time"
    puck.received("FACE 1", ring.READY_TURN_MS)
    assert puck.frame(ring.READY_TURN_MS + 3 * step) == puck.frame(ring.READY_TURN_MS), "the face 1 stands still"


# -- what the puck does not understand -----------------------------------------------
def test_a_press_while_the_box_is_silent_is_not_sent_so_it_cannot_roll_later():
    """A box that stopped reading gets the USB buffer's old lines when it reads again: a press must not be among them."""
    puck = booted()
    now = press(puck, settings.LINK_TIMEOUT_MS + 10)
    assert puck.take_lines() == []
    assert puck.picture(now)[0] == "waiting", "no spin: the ring keeps saying the box is away"
    puck.received("PING", now)
    press(puck, now)
    assert said(puck) == ["PONG", "PRESS"]


def test_lines_it_does_not_understand_are_answered_never_obeyed():
    puck = booted()
    for line in ("WIBBLE", "FACE", "FACE purple", "face cat", "PRESS"):
        puck.received(line, 0)
    assert puck.take_lines() == [
        "ERR unknown WIBBLE", "ERR bad-face", "ERR bad-face purple", "ERR unknown face cat", "ERR unknown PRESS",
    ]
    assert puck.face is None


def test_an_err_from_the_box_is_not_answered():
    puck = booted()
    puck.received("ERR unknown PONG", 0)
    puck.received("", 0)
    assert puck.take_lines() == []


def test_the_line_reader_joins_chunks_and_survives_noise():
    reader = LineReader()
    assert reader.feed(b"FA") == []
    assert reader.feed(b"CE cat\r\nPI") == ["FACE cat"]
    assert reader.feed(b"NG\n\xff\x00\x80garbage\n") == ["PING", "???garbage"]
    assert reader.feed(b"x" * 500 + b"\nPING\n") == [TOO_LONG, "PING"]


def test_a_line_of_80_characters_may_end_in_crlf_and_a_stray_cr_is_unprintable():
    reader = LineReader()
    assert reader.feed(b"F" * 80 + b"\r\n") == ["F" * 80], "the ending is not counted"
    assert reader.feed(b"F" * 81 + b"\r\n") == [TOO_LONG]
    assert reader.feed(b"FACE\r cat\r\r\n") == ["FACE? cat?"], "only the ending's CR is dropped"
    assert reader.feed(b"PING\r") == [] and reader.feed(b"\n") == ["PING"], "an ending split across reads"


def test_noise_from_the_line_becomes_err_answers():
    puck = booted()
    for line in LineReader().feed(b"\xfe\xfe\n" + b"y" * 200 + b"\n"):
        puck.received(line, 0)
    assert puck.take_lines() == ["ERR unknown ??", "ERR too-long"]


# -- the button held from power-on ------------------------------------------------------
def held_from_power_on(down_ms, start=0, up_ms=100, every=10):
    """The button down from power-on for ``down_ms``, then up: the choice, when it came, and the frames."""
    hold = PowerOnHold(start, LEDS)
    frames = []
    now = start
    while ticks.diff(now, start) < down_ms + up_ms:
        choice = hold.update(ticks.diff(now, start) < down_ms, now)
        frames.append(hold.frame(now))
        if choice is not None:
            return choice, ticks.diff(now, start), frames
        now = ticks.add(now, every)
    return None, None, frames


def test_a_press_at_power_on_shorter_than_the_ring_takes_to_fill_starts_the_puck():
    """A child pressing, or a brown-out while the button is down: the puck starts as soon as it is let go."""
    choice, at, frames = held_from_power_on(500)
    assert choice == RUN and at < 500 + 2 * settings.DEBOUNCE_MS
    lit_counts = [sum(lit(frame)) for frame in frames]
    assert lit_counts[0] >= 1 and lit_counts == sorted(lit_counts) and lit_counts[-1] < LEDS, "it fills as it is held"


def test_held_until_the_ring_is_full_and_let_go_stops_the_puck_for_flashing_with_the_ring_saying_so():
    start = ticks.add(0, -1000)  # across the ticks' wrap too
    choice, at, frames = held_from_power_on(settings.STOP_HOLD_MS + 500, start)
    assert choice == REPL
    full = [index for index, frame in enumerate(frames) if sum(lit(frame)) == LEDS]
    assert full and full[0] * 10 >= settings.STOP_HOLD_MS, "the ring is full, let go now, once letting go stops it"
    assert lit(frames[-1]) == [index % 2 == 0 for index in range(LEDS)], "stopped: every other pixel, still"
    assert ring.current_ma(frames[-2]) <= settings.USB_MA - settings.PICO_MA - LEDS * settings.LED_IDLE_MA


def test_a_puck_lying_on_its_button_starts_anyway():
    choice, at, _frames = held_from_power_on(10 * 60000, up_ms=0)
    assert choice == RUN and at == settings.STOP_HOLD_MS + settings.STOP_LET_GO_MS


def test_a_bounce_while_held_is_not_letting_go():
    hold = PowerOnHold(0, LEDS)
    for now in range(0, settings.STOP_HOLD_MS + 200, 5):
        bouncing = 1000 <= now < 1000 + settings.DEBOUNCE_MS - 5
        assert hold.update(not bouncing, now) is None
    assert hold.update(False, settings.STOP_HOLD_MS + 200) is None
    assert hold.update(False, settings.STOP_HOLD_MS + 200 + settings.DEBOUNCE_MS) == REPL


# -- the main loop on a stand-in board --------------------------------------------------
def test_the_main_loop_reads_the_line_writes_answers_and_draws_only_changes():
    board = StandInBoard()
    app = App(board)
    app.step()
    assert board.written.startswith(b"HELLO " + VERSION.encode())
    board.incoming = b"PING\nFACE cat\n"
    board.now = 10
    app.step()
    app.step()
    assert b"\nPONG t=10\n" in board.written
    assert len(board.shown) == 2 and lit(board.shown[-1]) == faces.pattern("cat", LEDS)
    board.down = True
    for _ in range(5):
        board.now += 10
        app.step()
    assert b"\nPRESS t=" in board.written
