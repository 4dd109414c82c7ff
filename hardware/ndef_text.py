"""Reading the NDEF text record written on an NTAG21x sticker.

A card can carry its own id as text ("red-3"), so a family can make a new
card with any phone app. NTAG213/215/216 (and Ultralight) keep a capability
container on page 3 and TLV blocks from page 4; the NDEF message sits in
the 0x03 block. Readers fetch 16 bytes (four pages) per command, so this
module asks for as few chunks as it can. ``ndef`` (ndeflib) decodes the
message; it is imported only here, when a tag is read.
"""

from __future__ import annotations

from collections.abc import Callable

CC_PAGE = 3
DATA_PAGE = 4
PAGE = 4
CHUNK = 16
_CC_MAGIC = 0xE1
_NULL, _NDEF, _TERMINATOR = 0x00, 0x03, 0xFE

#: Reads 16 bytes starting at a page; returns None when the tag did not answer.
ReadChunk = Callable[[int], "bytes | bytearray | None"]


class TagReadError(Exception):
    """The tag stopped answering mid-read (lifted too soon): try again next time."""


class _Memory:
    """The tag's data area, fetched chunk by chunk as the TLV walk needs it."""

    def __init__(self, read: ReadChunk, size: int, first: bytes) -> None:
        self._read = read
        self.size = size
        self._data = bytearray(first[:size])

    def get(self, offset: int, count: int) -> bytes | None:
        end = offset + count
        if end > self.size:
            return None
        while len(self._data) < end:
            self._data += _chunk(self._read, DATA_PAGE + len(self._data) // PAGE)
        return bytes(self._data[offset:end])


def _chunk(read: ReadChunk, page: int) -> bytes:
    chunk = read(page)
    if chunk is None or len(chunk) < CHUNK:
        raise TagReadError(f"page {page} did not read")
    return bytes(chunk[:CHUNK])


def read_ndef_text(read: ReadChunk) -> str | None:
    """The first text record on the tag, or None when it has none.

    Raises :class:`TagReadError` when the tag stops answering, so a card
    lifted mid-read is not remembered as a card without text.
    """
    head = _chunk(read, CC_PAGE)
    if head[0] != _CC_MAGIC:
        return None
    memory = _Memory(read, size=head[2] * 8, first=bytes(head[PAGE:CHUNK]))
    message = _ndef_message(memory)
    return None if message is None else text_of_message(message)


def _ndef_message(memory: _Memory) -> bytes | None:
    offset = 0
    while offset < memory.size:
        kind = memory.get(offset, 1)
        if kind is None or kind[0] == _TERMINATOR:
            return None
        if kind[0] == _NULL:
            offset += 1
            continue
        length = memory.get(offset + 1, 1)
        if length is None:
            return None
        header = 2
        size = length[0]
        if size == 0xFF:
            long = memory.get(offset + 2, 2)
            if long is None:
                return None
            size, header = int.from_bytes(long, "big"), 4
        if kind[0] == _NDEF:
            return memory.get(offset + header, size)
        offset += header + size
    return None


def text_of_message(message: bytes) -> str | None:
    """The first text record of an NDEF message, or None."""
    import ndef

    try:
        for record in ndef.message_decoder(message):
            if isinstance(record, ndef.TextRecord):
                return record.text
    except ndef.DecodeError:
        return None
    return None


# -- writing ---------------------------------------------------------------------

#: Writes 4 bytes to one page; returns False when the tag did not take them.
WritePage = Callable[[int, bytes], bool]


class TagWriteError(Exception):
    """The tag did not take a page (lifted, locked, or too small)."""


def text_pages(text: str, language: str = "en") -> bytes:
    """The NDEF TLV for one text record, terminated and padded to whole pages, to write from page 4."""
    import ndef

    message = b"".join(ndef.message_encoder([ndef.TextRecord(text, language)]))
    if len(message) >= 0xFF:
        raise ValueError(f"text of {len(text)} characters is too long for a short NDEF TLV")
    tlv = bytes([_NDEF, len(message)]) + message + bytes([_TERMINATOR])
    return tlv + bytes(-len(tlv) % PAGE)


def write_ndef_text(write: WritePage, read: ReadChunk, text: str, language: str = "en") -> None:
    """Write ``text`` as the tag's only NDEF record and read it back; raise TagWriteError if it did not hold.

    Page 3 (the capability container) is checked, not written: a blank NTAG21x
    comes formatted for NDEF, and rewriting it could lock the tag.
    """
    head = _chunk(read, CC_PAGE)
    if head[0] != _CC_MAGIC:
        raise TagWriteError("not an NDEF-formatted NTAG (no capability container)")
    data = text_pages(text, language)
    if len(data) > head[2] * 8:
        raise TagWriteError(f"{len(data)} bytes do not fit on this tag ({head[2] * 8} bytes)")
    for index in range(0, len(data), PAGE):
        if not write(DATA_PAGE + index // PAGE, data[index:index + PAGE]):
            raise TagWriteError(f"page {DATA_PAGE + index // PAGE} was not written")
    if read_ndef_text(read) != text:
        raise TagWriteError("the text did not read back")
