"""The simulator's input language: one hardware event per line of text.

``tap <card-id or uid-hex>``, ``remove``, ``press <button>``, ``hold <button>``,
``wait <seconds>`` (let the box's handover or call window pass, as a player would).
Each line drives the simulated devices, never the box directly, so a script
piped into ``gamebox run`` goes through the same debouncing, tap filtering
and event loop as a finger on the real box.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import sys
import threading
from typing import Any, BinaryIO, Callable, Iterator

from controller.decks import deck_of
from hardware.clock import Clock

PRESS_SECONDS = 0.01  # a click: the sim buttons do not bounce, and far shorter than a hold
MAX_LINE = 1024  # bytes: the longest command is a few dozen; a longer line is refused, not held in memory


def lines_of(stream: BinaryIO, limit: int = MAX_LINE) -> Iterator[str | Exception]:
    """Each line of ``stream`` as text, or a ``ValueError`` saying why it was refused.

    Reads bytes, so one invalid UTF-8 byte refuses its line only (whatever
    the locale), and a line longer than ``limit`` is skipped as it streams
    past: at most ``limit`` bytes of it are ever held.
    """
    line, dropped = bytearray(), 0
    while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if dropped or len(line) + len(piece) > limit:
                dropped += len(line) + len(piece)
                line.clear()
            else:
                line += piece
            if end < 0:
                break
            start = end + 1
            if dropped:
                yield ValueError(f"line of {dropped} bytes refused (at most {limit})")
            else:
                yield _decoded(bytes(line))
            line.clear()
            dropped = 0
    if dropped:
        yield ValueError(f"line of {dropped} bytes refused (at most {limit})")
    elif line:
        yield _decoded(bytes(line))


def _decoded(raw: bytes) -> str | Exception:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ValueError(f"line refused: not UTF-8 ({exc.reason} at byte {exc.start})")


def card_uid(card: str) -> bytes:
    """A stable 7-byte NTAG-like UID for a card typed by name; its text record names the card."""
    return b"\x04" + hashlib.sha1(card.encode()).digest()[:6]


class SimInput:
    """Turns text lines into presses and taps on a profile's simulated devices."""

    def __init__(self, devices: Any, clock: Clock, out: Callable[[str], None], lift: bool = True) -> None:
        """``lift``: a tapped card is lifted at once; without it, it lies there until the next tap or ``remove``."""
        self.devices, self.clock, self.out, self.lift = devices, clock, out, lift

    async def read_stdin(self) -> None:
        """Run every line of standard input, in order, until it ends.

        A daemon thread reads (standard input may be a pipe, a terminal or a
        file, and a blocked read must not keep the process alive at SIGTERM);
        the lines are carried out on the loop. It reads the descriptor itself,
        unbuffered: a thread blocked in ``sys.stdin.buffer`` holds that
        buffer's lock, and Python aborts (SIGABRT) when it closes
        ``sys.stdin`` at exit and finds the lock taken.
        """
        try:
            stream: BinaryIO = io.FileIO(sys.stdin.fileno(), "rb", closefd=False)
        except (AttributeError, OSError, ValueError):  # no descriptor behind it (an embedding, a test's stand-in)
            stream = sys.stdin.buffer
        await self.read(stream)

    async def read(self, stream: BinaryIO) -> None:
        """Run every line of a byte stream; a line that is not text or is too long gets one ``error:`` line."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | Exception | None] = asyncio.Queue()
        room = threading.Semaphore(256)  # lines read ahead: a fast pipe waits instead of filling memory

        def read() -> None:
            try:
                for line in lines_of(stream):
                    room.acquire()
                    loop.call_soon_threadsafe(lines.put_nowait, line)
            except (OSError, ValueError) as exc:  # standard input closed under us
                loop.call_soon_threadsafe(lines.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read, name="stdin", daemon=True).start()
        while (line := await lines.get()) is not None:
            room.release()
            if isinstance(line, Exception):
                self.out(f"error: {line}")
            else:
                await self.command(line.strip())

    async def command(self, line: str) -> None:
        """Carry out one line; a line that means nothing gets one ``error:`` line back."""
        words = line.split()
        if not words or words[0].startswith("#"):
            return
        verb, args = words[0].lower(), words[1:]
        if verb in ("press", "hold"):  # a button's name in any case: press RED
            args = [arg.lower() for arg in args]
        buttons, readers = self.devices.buttons, self.devices.readers
        if verb == "tap" and len(args) == 1 and readers:
            await self.tap(args[0])
        elif verb == "remove" and not args and readers:
            next(iter(readers.values())).remove()
        elif verb in ("press", "hold") and len(args) == 1 and args[0] in buttons:
            button = buttons[args[0]]
            if verb == "hold":
                button.hold()
            else:
                button.press()
            await self.clock.sleep(PRESS_SECONDS)
            button.release()
            await self.clock.sleep(PRESS_SECONDS)
        elif verb == "wait" and len(args) == 1 and _seconds(args[0]) is not None:
            await self.clock.sleep(_seconds(args[0]))
        elif verb == "wait" and len(args) == 1:
            self.out(f"error: cannot wait {args[0]!r}: a wait is 0 to 60 seconds")
        else:
            self.out(f"error: cannot do {line!r} (tap CARD|UID, remove, press|hold {'|'.join(sorted(buttons))}, "
                     "wait SECONDS from 0 to 60)")

    async def tap(self, what: str) -> None:
        """Lay a card (by id, carrying its text record) or a bare tag (by hex UID) on the first reader, and lift it."""
        reader = next(iter(self.devices.readers.values()))
        if deck_of(what.lower()) is not None:  # a card id in any case: RED-3 is red-3
            what = what.lower()
            uid, text = card_uid(what), what
        else:
            try:
                uid, text = bytes.fromhex(what.replace(":", "")), None
            except ValueError:
                uid, text = card_uid(what), what
        reader.tap(uid, text)
        await asyncio.sleep(0)
        if self.lift:
            reader.remove()


def _seconds(text: str) -> float | None:
    """A wait of 0 to 60 seconds, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 60.0 else None
