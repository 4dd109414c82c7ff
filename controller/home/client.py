"""The page's side of the control socket: one connection per request, bounded in time and size."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from controller.control.server import MAX_REQUEST

ASK_SECONDS = 30.0


class BoxAway(Exception):
    """The box's daemon is not there (stopped, starting again) or did not answer."""


async def ask(path: Path, op: str, **args: Any) -> dict[str, Any]:
    """One op's answer (``ok`` true or false); :class:`BoxAway` when the daemon cannot be reached."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(str(path), limit=MAX_REQUEST + 1024), ASK_SECONDS)
    except (OSError, asyncio.TimeoutError) as exc:
        raise BoxAway(f"the box is not answering ({exc.__class__.__name__})") from None
    try:
        writer.write(json.dumps({"op": op, "args": args}).encode() + b"\n")
        await asyncio.wait_for(writer.drain(), ASK_SECONDS)
        line = await asyncio.wait_for(reader.readline(), ASK_SECONDS)
        if not line:
            raise BoxAway("the box closed the connection")
        return json.loads(line)
    except (OSError, asyncio.TimeoutError, ValueError) as exc:
        raise BoxAway(f"the box did not answer ({exc.__class__.__name__})") from None
    finally:
        writer.close()
