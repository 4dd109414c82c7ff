"""The line protocol's text, as the puck speaks it (firmware/PROTOCOL.md).

Bytes come off the USB line in any chunks; :class:`LineReader` turns them
into whole lines and refuses what no sane box sends (an endless line,
bytes that are not printable ASCII) without ever raising, so noise on the
line costs one ``ERR`` answer and nothing else.
"""

MAX_LINE = 80  # longer lines are cut off and answered with ERR too-long
TOO_LONG = None  # what LineReader.feed yields for a line over MAX_LINE

NO_LINK = "-"  # a HELLO that answers no box's HELLO: the one at power-on, or to a box without link=
LINK_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"
MAX_LINK = 16

NAMED_FACES = ("cat", "dog", "mouse", "whistle")
NUMBERS = ("1", "2", "3", "4", "5", "6")
FACES = NAMED_FACES + NUMBERS


class LineReader:
    """Collects bytes into lines of at most ``limit`` characters, each ending in ``\\n`` or ``\\r\\n``.

    A ``\\r`` right before the ``\\n`` is part of the ending and not counted;
    any other ``\\r`` is an unprintable byte like the rest (``?``).
    """

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._overlong = False
        self._cr = False  # a "\r" came last: the ending's, if "\n" follows

    def feed(self, data: bytes) -> list:
        """The lines completed by ``data``: ``str`` each, or ``TOO_LONG`` for one that overflowed."""
        lines: list = []
        for byte in data:
            if byte == 10:  # "\n"
                lines.append(TOO_LONG if self._overlong else _text(self._buffer))
                self._buffer = bytearray()
                self._overlong = self._cr = False
                continue
            if self._cr:  # that "\r" was inside the line
                self._cr = False
                self._keep(13)
            if byte == 13:
                self._cr = True
            else:
                self._keep(byte)
        return lines

    def _keep(self, byte: int) -> None:
        if self._overlong:
            return
        if len(self._buffer) >= self._limit:
            self._overlong = True
        else:
            self._buffer.append(byte)


def _text(raw: bytearray) -> str:
    """Printable ASCII as it is; anything else as "?", so it is never a decoding error."""
    return "".join(chr(b) if 32 <= b < 127 else "?" for b in raw).strip()


def split(line: str) -> tuple:
    """(verb, rest): ``"FACE cat"`` is ``("FACE", "cat")``, ``"PING"`` is ``("PING", "")``."""
    parts = line.split(" ", 1)
    return parts[0], (parts[1].strip() if len(parts) > 1 else "")


def hello(version: str, protocol: int, leds: int, caps: tuple, link: str = NO_LINK) -> str:
    """The puck's introduction: firmware version, protocol, ring size, what it can do, and the box's link it answers."""
    return "HELLO %s proto=%d leds=%d caps=%s link=%s" % (version, protocol, leds, ",".join(caps), link)


def link_of(rest: str) -> str:
    """The ``link=`` word of the box's HELLO (what follows ``HELLO``), or ``NO_LINK`` when it has none or a bad one."""
    for word in rest.split(" "):
        if word.startswith("link="):
            token = word[5:]
            if 0 < len(token) <= MAX_LINK and all(c in LINK_CHARS for c in token):
                return token
    return NO_LINK


def err(reason: str, line: str = "") -> str:
    """The answer to a line the puck cannot use; it quotes (the start of) the line."""
    return ("ERR %s %s" % (reason, line[:32])).strip()
