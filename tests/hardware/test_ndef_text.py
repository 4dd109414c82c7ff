"""Reading a card's NDEF text from NTAG21x memory, 16 bytes at a time."""

from __future__ import annotations

import ndef
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.ndef_text import TagReadError, read_ndef_text
from tests.hardware.tags import FakeTag, ndef_tlv, ntag_memory, text_message

UID = bytes.fromhex("04a1b2c3d4e5f6")


def reading(tag: FakeTag, fail_from_page: int | None = None):
    pages: list[int] = []

    def read16(page: int) -> bytes | None:
        pages.append(page)
        if fail_from_page is not None and page >= fail_from_page:
            return None
        return tag.read16(page)

    return read16, pages


def test_a_short_text_is_read_in_one_chunk():
    read16, pages = reading(FakeTag.ntag(UID, "red"))
    assert read_ndef_text(read16) == "red"
    assert pages == [3]


def test_a_longer_text_reads_only_the_chunks_it_needs():
    read16, pages = reading(FakeTag.ntag(UID, "family-9-kittens"))
    assert read_ndef_text(read16) == "family-9-kittens"
    assert pages == [3, 7]


def test_a_long_tlv_after_a_lock_control_block_on_an_ntag215():
    message = text_message("x" * 300)
    data = bytes([0x01, 0x03, 0xA0, 0x10, 0x44]) + ndef_tlv(message)
    tag = FakeTag(UID, ntag_memory(UID, data, pages=135))
    assert read_ndef_text(reading(tag)[0]) == "x" * 300


def test_the_first_text_record_wins_over_other_records():
    message = b"".join(ndef.message_encoder([ndef.UriRecord("https://haba.de"), ndef.TextRecord("blue-5")]))
    tag = FakeTag(UID, ntag_memory(UID, ndef_tlv(message)))
    assert read_ndef_text(reading(tag)[0]) == "blue-5"


@pytest.mark.parametrize(
    "data",
    [
        b"\x03\x00\xfe",  # an empty NDEF message
        b"\xfe",  # nothing but the terminator
        ndef_tlv(b"".join(ndef.message_encoder([ndef.UriRecord("https://haba.de")]))),
        ndef_tlv(b"\xd1\x01\xff"),  # a record cut short
        b"\x03\xf0" + b"\x00" * 20,  # a length past the end of memory
    ],
)
def test_cards_without_readable_text_have_none(data):
    assert read_ndef_text(reading(FakeTag(UID, ntag_memory(UID, data)))[0]) is None


def test_a_blank_card_without_capability_container_has_none():
    tag = FakeTag(UID, bytearray(180))
    assert read_ndef_text(reading(tag)[0]) is None


def test_a_card_lifted_mid_read_is_an_error_not_a_card_without_text():
    read16, _ = reading(FakeTag.ntag(UID, "family-9-kittens"), fail_from_page=7)
    with pytest.raises(TagReadError):
        read_ndef_text(read16)


@given(st.text(max_size=100).filter(lambda text: len(text.encode()) <= 120))
def test_any_text_that_fits_an_ntag213_is_read_back(text):
    assert read_ndef_text(reading(FakeTag.ntag(UID, text))[0]) == text
