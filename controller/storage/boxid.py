"""The box's own id: kept in its state folder, written into every journal the box makes.

A journal knows which box made it, so a box never moves aside, overwrites
or plays into another box's journal (its state folder replaced by a link
to another's, another box's journal copied in): it says so in one line
(:mod:`controller.storage.journalfile`). The id belongs to the state
folder, so a folder moved to a new SD card is still the same box; a box
whose id file was lost takes the id of the journal beside it rather than
refusing its own games.
"""

from __future__ import annotations

import logging
import re
import secrets
from pathlib import Path
from controller.storage.walsync import write_mark

log = logging.getLogger("gamebox.journal")

BOX_ID_NAME = "box-id"
_WELL_FORMED = re.compile(r"[A-Za-z0-9_-]{1,64}")


def read_box_id(state_dir: str | Path) -> str | None:
    """The id kept in ``state_dir``, creating nothing; None when there is none or it does not parse (logged)."""
    path = Path(state_dir) / BOX_ID_NAME
    try:
        text = path.read_text(errors="replace").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("box id %s cannot be read (%s); taken as missing", path, exc.strerror or exc)
        return None
    if not _WELL_FORMED.fullmatch(text):
        log.warning("box id %s does not parse (%r); taken as missing", path, text[:40])
        return None
    return text


def box_id(state_dir: str | Path, claim: str | None = None) -> str:
    """This box's id: the one kept in ``state_dir``, else ``claim`` (the id of the journal found there), else a new
    random one; a new id is kept (written, fsynced, renamed into place) before it is used. ``OSError`` when it
    cannot be kept."""
    known = read_box_id(state_dir)
    if known is not None:
        return known
    new = claim if claim is not None and _WELL_FORMED.fullmatch(claim) else secrets.token_hex(8)
    write_mark(Path(state_dir) / BOX_ID_NAME, new)
    return new
