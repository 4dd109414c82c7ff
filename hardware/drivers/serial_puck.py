"""The die puck: a Pico on USB serial, speaking firmware/PROTOCOL.md.

Text lines, ASCII, ending in ``\\n``. On opening the port the box says
``HELLO gamebox proto=1`` and the puck answers with its version, protocol
and capabilities; then the box sends ``PING`` every second and the puck
answers ``PONG``, so a puck that hangs is noticed within a few seconds, not
at the next roll. ``PRESS`` from the puck is a :class:`PuckPressed`;
:meth:`SerialPuck.show` sends ``FACE <name>``. A line either side cannot
use is answered with ``ERR <reason> <line>``, and an ``ERR`` is never
answered.

Each opening of the port names a fresh ``link=`` in the box's HELLO, and
nothing the puck says counts until its HELLO names that link: a Pico keeps
what it wrote while nobody read, and delivers it when the port opens again,
so an old ``PRESS`` must not roll the die.

The port is found by its USB id under ``/dev/serial/by-id`` (a glob), so it
does not matter which ttyACM the kernel handed out. The reader thread reads
with a short timeout so it can keep the heartbeat; pulling the plug, or a
puck that stops answering, is a fault, and the port is looked for and
opened again, with growing waits, until the puck is back.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import secrets
import threading
from dataclasses import dataclass
from typing import Any

from hardware.clock import Clock
from hardware.events import EventSink, PuckPressed
from hardware.faults import Backoff, FaultReporter
from hardware.interfaces import DiePuck
from hardware.worker import Threaded, Worker

log = logging.getLogger(__name__)

#: The protocol this box speaks (firmware/PROTOCOL.md).
PROTOCOL = 1
#: Where udev lists a Pico running MicroPython, whatever its serial number.
BY_ID = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_*-if00"
#: Seconds between PINGs; this many unanswered in a row are a lost link.
HEARTBEAT = 1.0
MISSED = 3
#: How long one read waits (real seconds), so the thread looks at the clock this often.
READ_TIMEOUT = 0.05
MAX_LINE = 80  # characters, not counting the ending (\n or \r\n)
#: At most one ERR answer, and one face sent again for a line the puck refused, per this many seconds:
#: a puck fallen back to its REPL echoes what it is sent.
ERR_EVERY = 1.0


#: The puck's ticks (``t=`` in PRESS and PONG) are milliseconds that wrap here, as the rp2 port's ticks_ms.
TICKS_PERIOD = 1 << 30
#: A press older than this (seconds) is dropped: the box could not read the line meanwhile (it was
#: frozen, or busy), and the child who pressed is no longer waiting for that roll.
PRESS_MAX_AGE = 1.0
#: A line whose ticks come this late by the box's reckoning, or less, still sets the reckoning.
ON_TIME = 0.02


def ticks_of(rest: str) -> int | None:
    """The ``t=`` of a PRESS or PONG (what follows the verb); None if it has none or a bad one."""
    for word in rest.split():
        if word.startswith("t="):
            digits = word[2:]
            return int(digits) if digits.isdigit() and int(digits) < TICKS_PERIOD else None
    return None


class PuckTicks:
    """The box's reckoning of the puck's clock: how long ago, by the box's, a tick the puck names was.

    Every line that arrives on time (a PONG a second, the presses) sets the
    reckoning anew, so it follows the two clocks as they drift apart; one
    that comes late, as what a frozen box reads when it wakes, leaves it.
    """

    def __init__(self) -> None:
        self._since: tuple[int, float] | None = None  # the puck's ticks, and the box's time they arrived

    def age(self, ticks: int, now: float) -> float:
        """Seconds since the puck's ``ticks``, for a line with them that arrives ``now``; 0 for the first."""
        if self._since is None:
            self._since = (ticks, now)
            return 0.0
        then, at = self._since
        half = TICKS_PERIOD // 2
        elapsed = ((ticks - then + half) % TICKS_PERIOD - half) / 1000
        late = now - (at + elapsed)
        if late <= ON_TIME:
            self._since = (ticks, now)
        return max(late, 0.0)


@dataclass(frozen=True, slots=True)
class PuckInfo:
    """What the puck said in its HELLO."""

    version: str
    protocol: int  # 0: a HELLO without proto=, the placeholder protocol (PRESS and FACE only)
    leds: int | None = None
    caps: tuple[str, ...] = ()
    link: str | None = None  # the box's link it answers; "-" for none; None from firmware that names none

    def summary(self) -> str:
        parts = [f"firmware {self.version}", f"protocol {self.protocol}"]
        if self.protocol < PROTOCOL:
            parts[-1] += " (older than this box's: flash the puck, firmware/README.md)"
        elif self.protocol > PROTOCOL:
            parts[-1] += f" (newer than this box's {PROTOCOL}: spoken as {PROTOCOL})"
        if self.leds is not None:
            parts.append(f"{self.leds} LEDs")
        if self.caps:
            parts.append("+".join(self.caps))
        return ", ".join(parts)


def parse_hello(rest: str) -> PuckInfo | None:
    """``1.0.0 proto=1 leds=12 caps=button,ring`` as a PuckInfo; None if it is not one."""
    words = rest.split()
    if not words:
        return None
    fields = dict(word.split("=", 1) for word in words[1:] if "=" in word)
    try:
        protocol = int(fields.get("proto", "0"))
        leds = int(fields["leds"]) if "leds" in fields else None
    except ValueError:
        return None
    caps = tuple(cap for cap in fields.get("caps", "").split(",") if cap)
    return PuckInfo(words[0], protocol, leds, caps, fields.get("link"))


def find_port(pattern: str) -> str | None:
    """The first port matching ``pattern`` (a path or a glob), or None when none is plugged in."""
    matches = sorted(glob.glob(pattern))
    return matches[0] if matches else None


def open_serial(device: str, baudrate: int) -> Any:
    import serial

    return serial.Serial(device, baudrate=baudrate, timeout=READ_TIMEOUT)


class LinkLost(Exception):
    """The puck stopped answering the heartbeat."""


class SerialPuck(Threaded, DiePuck):
    """A die puck on a USB serial port found by ``device`` (a path or a by-id glob)."""

    driver = "serial"

    def __init__(
        self,
        name: str,
        sink: EventSink,
        clock: Clock,
        *,
        device: str = BY_ID,
        baudrate: int = 115200,
        backoff: Backoff | None = None,
    ) -> None:
        self.name = name
        self.device = f"puck:{name}"
        self.port_path = device
        self.baudrate = baudrate
        self._sink = sink
        self._clock = clock
        self._faults = FaultReporter(self.device, sink, clock)
        self._backoff = backoff or Backoff(0.5, 2.0, 5.0)
        self._worker = Worker(self.device, self._run, wake=self._wake)
        self._port: Any = None
        self._opened: str | None = None  # the port the glob found
        self._write_lock = threading.Lock()
        self._hello = threading.Event()
        #: What the puck said in its last HELLO; None until it has said one on this connection.
        self.info: PuckInfo | None = None
        self._face: str | None = None
        self._unanswered = 0
        self._ping_due = 0.0
        self._last_err = float("-inf")
        self._last_resend = float("-inf")
        self._ticks = PuckTicks()
        self._link = ""  # named in this connection's HELLO; the puck's lines count once its HELLO names it

    # -- the box's side -------------------------------------------------------------
    def show(self, face: str) -> None:
        self._face = face
        self._send(f"FACE {face}")

    def describe(self) -> str:
        where = self._opened or self.port_path
        if self.info is None:
            return f"die puck on {where}: no HELLO yet"
        return f"die puck {self.info.summary()} on {where}"

    def wait_started(self, timeout: float) -> bool:
        """Wait for the first try to open the port and, if it opened, for the puck's HELLO (so doctor can show its version)."""
        if not self._worker.tried.wait(timeout):
            return False
        if self._port is not None:
            self._hello.wait(timeout)
        return True

    # -- the reader thread ----------------------------------------------------------
    def _wake(self) -> None:
        # stopping is already set: if no port is open yet, the thread sees it
        # before it reads; if one is, cancel_read returns the read at once.
        port = self._port
        if port is not None:
            with contextlib.suppress(Exception):  # closed by the thread meanwhile
                port.cancel_read()

    def _run(self) -> None:
        stopping = self._worker.stopping
        while not stopping.is_set():
            path = find_port(self.port_path)
            try:
                if path is None:
                    raise FileNotFoundError(f"no die puck at {self.port_path}: not plugged in?")
                self._port = open_serial(path, self.baudrate)
            except Exception as error:  # not plugged in, or not ours to open
                self._faults.fault(str(error) if path is None else f"cannot open the die puck at {path}: {error}")
                self._worker.tried.set()
                stopping.wait(self._backoff.next())
                continue
            self._opened = path
            self._worker.tried.set()
            try:
                self._converse()
            except Exception as error:  # serial.SerialException: unplugged; LinkLost: hung
                self._faults.fault(f"die puck at {path}: {error}")
                stopping.wait(self._backoff.next())
            finally:
                port, self._port = self._port, None
                self.info = None
                self._hello.clear()
                with contextlib.suppress(Exception):  # already gone with the puck
                    port.close()

    def _converse(self) -> None:
        """Introduce the box, then read lines and keep the heartbeat until the link breaks or stop."""
        self._unanswered = 0
        self._ping_due = self._clock.monotonic() + HEARTBEAT
        self._link = secrets.token_hex(4)
        self._write(self._introduction())
        if self._face is not None:  # a replugged puck shows the last roll again
            self._write(f"FACE {self._face}")
        buffer = bytearray()
        while not self._worker.stopping.is_set():
            port = self._port
            data = port.read(port.in_waiting or 1)
            if data:
                buffer += data
                buffer = self._take_lines(buffer)
            self._keep_heartbeat()

    def _take_lines(self, buffer: bytearray) -> bytearray:
        while (end := buffer.find(b"\n")) >= 0:
            raw, buffer = buffer[:end], buffer[end + 1 :]
            if raw.endswith(b"\r"):  # the ending's; any other \r is unprintable like the rest
                raw = raw[:-1]
            if len(raw) > MAX_LINE:
                if self.info is not None:  # (before the link, as any line: dropped)
                    self._refuse("too-long", "")
            else:
                self._heard("".join(chr(b) if 32 <= b < 127 else "?" for b in raw).strip())
        if len(buffer) > MAX_LINE + 1:  # no end in sight (room for a line and its \r): answer once its end comes
            buffer = bytearray(b"x" * (MAX_LINE + 2))
        return buffer

    def _keep_heartbeat(self) -> None:
        now = self._clock.monotonic()
        if now < self._ping_due:
            return
        self._ping_due = now + HEARTBEAT
        if self.info is not None and self.info.protocol == 0:
            return  # the placeholder protocol has no PING: its puck is trusted until the port fails
        if self._unanswered >= MISSED:
            raise LinkLost(f"the die puck stopped answering ({MISSED} heartbeats missed)")
        self._write("PING" if self.info is not None else self._introduction())
        self._unanswered += 1

    def _heard(self, line: str) -> None:
        """One line from the puck. Only its own lines since its HELLO answered this opening count: not an echo, not an old line.

        Before that answer the box acts on nothing and answers nothing: what
        comes then was written for an earlier opening, or is the tail of a
        line cut when the port opened.
        """
        verb, _, rest = line.partition(" ")
        if verb == "LOG":
            log.warning("%s says: %s", self.device, rest)
        elif verb == "ERR" or line.startswith("HELLO gamebox"):
            log.warning("%s did not understand the box: %s", self.device, line)
            if verb == "ERR" and self.info is not None and not rest.startswith("bad-face"):
                self._resend_face()
        elif verb == "HELLO" and (info := parse_hello(rest)) is not None:
            if info.link not in (None, self._link):  # at power-on ("-"), or an answer to an earlier opening
                log.info("%s: a HELLO that does not answer this link (%s), waiting for one", self.device, info.link)
                if self.info is not None and info.link == "-":  # it restarted on an open port: greet it again
                    self._write(self._introduction())
                    if self._face is not None:
                        self._write(f"FACE {self._face}")
                return
            self._unanswered = 0
            self._greeted(info)
        elif self.info is None:
            log.info("%s: %r from before the link, dropped", self.device, line)
        elif verb in ("PRESS", "PONG"):
            self._unanswered = 0
            now = self._clock.monotonic()
            ticks = ticks_of(rest)  # none from firmware before 1.2.0: its presses all count
            age = 0.0 if ticks is None else self._ticks.age(ticks, now)
            if verb == "PRESS" and age > PRESS_MAX_AGE:
                log.info("%s: a press from %.1f s ago, dropped (the box could not read meanwhile)", self.device, age)
            elif verb == "PRESS":
                self._sink.post(PuckPressed(self.name, at=now))
        elif line:
            log.warning("%s: a line the box does not understand: %r", self.device, line)
            self._refuse("unknown", line)

    def _greeted(self, info: PuckInfo) -> None:
        self.info = info
        self._ticks = PuckTicks()  # a puck that answers anew may have started again: its ticks with it
        log.info("%s: %s on %s", self.device, info.summary(), self._opened)
        self._hello.set()
        self._backoff.reset()  # the next outage starts with a short wait again
        self._faults.ok()

    def _refuse(self, reason: str, line: str) -> None:
        now = self._clock.monotonic()
        if now - self._last_err >= ERR_EVERY:
            self._last_err = now
            self._write(f"ERR {reason} {line[:32]}".strip())

    def _resend_face(self) -> None:
        """A line of the box's came to the puck spoiled (noise, or glued to a stray byte): send the face again.

        The face is all the puck keeps of what the box said; a PING comes
        again each second, a HELLO until it is answered. A face the puck
        does not have (``bad-face``) is not sent again: it would be refused again.
        """
        now = self._clock.monotonic()
        if self._face is not None and now - self._last_resend >= ERR_EVERY:
            self._last_resend = now
            self._write(f"FACE {self._face}")

    def _introduction(self) -> str:
        return f"HELLO gamebox proto={PROTOCOL} link={self._link}"

    # -- writing (the loop's thread and the reader's) -------------------------------
    def _send(self, line: str) -> None:
        """Write from the box's side: a failure is a fault; the reader thread reopens the port."""
        try:
            self._write(line)
        except Exception as error:  # unplugged
            self._faults.fault(f"die puck at {self._opened or self.port_path}: {error}")

    def _write(self, line: str) -> None:
        port = self._port
        if port is None:
            return
        with self._write_lock:
            # The line starts after a newline too: whatever came before it (a stray byte, the start
            # of a line cut off) ends there as a line of its own, and this one is whole.
            port.write(f"\n{line}\n".encode("ascii", "replace"))
