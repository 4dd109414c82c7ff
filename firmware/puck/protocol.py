"""The line protocol's text, as the puck speaks it (firmware/PROTOCOL.md).

Bytes come off the USB line in any chunks; :class:`LineReader` turns them
into whole lines and refuses what no sane box sends (an endless line,
bytes that are not printable ASCII) without ever raising, so noise on the
line costs one ``ERR`` answer and nothing else.
"""

MAX_LINE = 80  # longer lines are cut off and answered with ERR too-long
TOO_LONG = None  # what LineReader.feed yields for a line over MAX_LINE

NAMED_FACES = ("cat", "dog", "mouse", "whistle")
NUMBERS = ("1", "2", "3", "4", "5", "6")
FACES = NAMED_FACES + NUMBERS


class LineReader:
    """Collects bytes into lines ending in ``\\n`` (a ``\\r`` before it is dropped)."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._overlong = False

    def feed(self, data: bytes) -> list:
        """The lines completed by ``data``: ``str`` each, or ``TOO_LONG`` for one that overflowed."""
        lines: list = []
        for byte in data:
            if byte == 10:  # "\n"
                if self._overlong:
                    lines.append(TOO_LONG)
                else:
                    lines.append(_text(self._buffer))
                self._buffer = bytearray()
                self._overlong = False
            elif self._overlong:
                continue
            elif len(self._buffer) >= self._limit:
                self._overlong = True
            elif byte != 13:  # "\r"
                self._buffer.append(byte)
        return lines


def _text(raw: bytearray) -> str:
    """Printable ASCII as it is; anything else as "?", so it is never a decoding error."""
    return "".join(chr(b) if 32 <= b < 127 else "?" for b in raw).strip()


def split(line: str) -> tuple:
    """(verb, rest): ``"FACE cat"`` is ``("FACE", "cat")``, ``"PING"`` is ``("PING", "")``."""
    parts = line.split(" ", 1)
    return parts[0], (parts[1].strip() if len(parts) > 1 else "")


def hello(version: str, protocol: int, leds: int, caps: tuple) -> str:
    """The puck's introduction: firmware version, protocol, ring size and what it can do."""
    return "HELLO %s proto=%d leds=%d caps=%s" % (version, protocol, leds, ",".join(caps))


def err(reason: str, line: str = "") -> str:
    """The answer to a line the puck cannot use; it quotes (the start of) the line."""
    return ("ERR %s %s" % (reason, line[:32])).strip()
