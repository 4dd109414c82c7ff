"""NFC tags as the fakes hold them: a uid and the bytes of an NTAG21x."""

from __future__ import annotations

from dataclasses import dataclass, field

import ndef

NTAG213_PAGES = 45  # 180 bytes, 144 of them for data


def text_message(text: str) -> bytes:
    return b"".join(ndef.message_encoder([ndef.TextRecord(text, "en")]))


def ndef_tlv(message: bytes) -> bytes:
    """The NDEF TLV block (short or long form) followed by the terminator."""
    if len(message) < 0xFF:
        return bytes([0x03, len(message)]) + message + b"\xfe"
    return bytes([0x03, 0xFF]) + len(message).to_bytes(2, "big") + message + b"\xfe"


def ntag_memory(uid: bytes, data: bytes = b"", pages: int = NTAG213_PAGES) -> bytearray:
    """NTAG21x memory: uid pages, capability container, then ``data`` from page 4."""
    memory = bytearray(pages * 4)
    assert len(data) <= (pages - 9) * 4, "more data than the tag holds"
    uid7 = uid.ljust(7, b"\x00")
    memory[0:3] = uid7[0:3]
    memory[3] = 0x88 ^ uid7[0] ^ uid7[1] ^ uid7[2]
    memory[4:8] = uid7[3:7]
    memory[8] = uid7[3] ^ uid7[4] ^ uid7[5] ^ uid7[6]
    memory[12:16] = bytes([0xE1, 0x10, (pages - 9) * 4 // 8, 0x00])
    memory[16 : 16 + len(data)] = data
    return memory


@dataclass
class FakeTag:
    """A card: its uid and its memory (readers return 16 bytes from any page)."""

    uid: bytes
    memory: bytearray = field(default_factory=bytearray)

    @classmethod
    def ntag(cls, uid: bytes, text: str | None = None) -> FakeTag:
        data = ndef_tlv(text_message(text)) if text is not None else b"\x03\x00\xfe"
        return cls(uid, ntag_memory(uid, data))

    def write4(self, page: int, data: bytes) -> bool:
        """Write one user page (from page 4 up); False for the read-only head or past the end."""
        start = page * 4
        if page < 4 or start + 4 > len(self.memory):
            return False
        self.memory[start : start + 4] = data
        return True

    def read16(self, page: int) -> bytes:
        start = page * 4
        return bytes(self.memory[start : start + 16]).ljust(16, b"\x00")
