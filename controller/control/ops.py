"""The control socket's requests: each op's arguments as a strict model, and the refusal an op answers with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.decks import DECKS

MAX_REQUEST = 5 * 1024 * 1024  # one line: a restore's base64 backup is the largest


class Refused(Exception):
    """An op the box will not carry out; the message says why, in one line (``more``: fields for the page)."""

    def __init__(self, why: str, **more: Any) -> None:
        super().__init__(why)
        self.more = more


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Nothing(Strict):
    pass


class Limit(Strict):
    limit: int = Field(50, ge=1, le=500)


class ConfigSet(Strict):
    values: dict[str, Any]


class PairCheck(Strict):
    code: str = Field(max_length=16)


class Deck(Strict):
    deck: Literal[(*DECKS, "control")]  # type: ignore[valid-type]


class EnrolBegin(Deck):
    card: str | None = Field(None, max_length=64, description="only this card: re-enrol it")
    write: bool = Field(False, description="write each card's id onto a blank sticker instead (a PN532)")


class Card(Strict):
    card: str = Field(max_length=64)


class Restore(Strict):
    data: str = Field(max_length=MAX_REQUEST)
