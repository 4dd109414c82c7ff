"""``gamebox demo``: bots play the real box, in the terminal, at a pace a person can follow.

With no arguments it is a short show (about a minute: a two-player game of
Floppy Ears, twice as fast as people play, every line the box says
printed), since a newcomer should see what the box does before deciding to
watch more; ``--game G`` or ``--all`` play whole games at a person's pace.

Nothing here plays the games: the daemon runs on the simulated devices, and
bots at every seat tap control cards to choose the game, then tap cards and
press the die button through the virtual table, exactly as people would.
The terminal shows what the box says, its answers, and the LED segments
(in colour where the terminal has it, as letters where it does not).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, TextIO

from controller.autoplay import Autoplayer, Input, perform
from controller.config import load_config
from controller.daemon import Daemon
from controller.games import GAME_IDS, engine_class
from controller.stage.lights import CARD_COLORS, SEAT_COLORS
from controller.stage.narration import player_name, spoken_text
from hardware.clock import Clock

PLAYERS = {"floppy-ears": 3, "pirates": 3, "policecats": 4}
PACE = 1.2  # seconds between two inputs at speed 1
SHOW = ("floppy-ears", 2, 2.0)
"""The short show: game, players and speed; with seed 1 its game takes about 110 s of box time, 55 s to watch."""


class ScaledClock:
    """The real clock run ``speed`` times faster: the whole box (call windows, lights) speeds up alike."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self._start = time.monotonic()

    def monotonic(self) -> float:
        return (time.monotonic() - self._start) * self.speed

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.speed)


def colour_terminal(stream: TextIO) -> bool:
    """Colour only on a terminal that is not dumb, unless NO_COLOR says otherwise."""
    return stream.isatty() and os.environ.get("TERM", "dumb") != "dumb" and "NO_COLOR" not in os.environ


_NAMED = {**{name[0].upper(): rgb for name, rgb in CARD_COLORS.items()}, "P": SEAT_COLORS[4], "W": (255, 255, 255)}


def pixels_text(pixels: list[tuple[int, int, int]], colour: bool) -> str:
    """A segment as coloured blocks, or as letters (Y G B R P W, '.' for off) on a plain terminal."""
    if colour:
        return "".join(f"\x1b[38;2;{r};{g};{b}m█" if (r, g, b) != (0, 0, 0) else " " for r, g, b in pixels) + "\x1b[0m"
    out = []
    for px in pixels:
        if max(px) < 48:  # dark enough to read as off
            out.append(".")
            continue
        letter = min(_NAMED, key=lambda k: sum((a - b) ** 2 for a, b in zip(px, _NAMED[k])))
        out.append(letter)
    return "".join(out)


#: The LED segments each game uses: the others stay dark, so the demo leaves them out.
SEGMENTS = {"floppy-ears": ("turn-ring",), "pirates": ("turn-ring", "sea-route"),
            "policecats": ("turn-ring", "police-track")}

#: What a newcomer needs to read the lights, segment by segment.
LEGEND = {
    "turn-ring": "turn-ring: whose turn, in the player's colour on their side of the box (Player 1 Y yellow, "
                 "2 G green, 3 B blue, 4 R red, 5 P purple), the colour to match in the middle of it; "
                 "all one colour while a colour is chosen; '.' is off",
    "sea-route": "sea-route: the sea (B) from the harbour to Treasure Island (Y at the end), each ship a dot "
                 "in its player's colour",
    "police-track": "police-track: who holds the policecat (their colour; dim while nobody does), or in the "
                    "alarm variant the track, the figure (W) moving on with each whistle",
}

#: What a call is, said the first time a player makes or forgets one (rules F8, P8).
CALLS = {
    "woof": "a call: when a player's cards (hand and ears together) drop to one, they press the die button within "
            "the call window to bark \"woof\" (F8); a forgotten bark costs a penalty card, hung on an ear",
    "woof-woof": "a call: playing the last card, a player presses the die button within the call window to bark "
                 "\"woof woof\" (F8); forgotten, it costs a penalty card and the game goes on",
    "mau": "a call: a player left with one card presses the die button within the call window to call \"Mau\" "
           "(P8); a forgotten call costs a penalty card",
    "mau-mau": "a call: playing the last card, a player presses the die button within the call window to call "
               "\"Mau Mau\" (P8); forgotten, the round does not end",
}


def describe(seat: int | None, action: dict[str, Any]) -> str:
    who = player_name(seat) if seat is not None else "the table"
    kind = action["type"]
    if "card" in action:
        return f"{who} taps {action['card']}" + (f" and calls {action['call']}" if action.get("call") else "")
    if kind in ("draw", "pass", "roll"):
        return f"{who} presses the die button ({kind})"
    if kind == "choose_color":
        return f"{who} chooses {action['color']}"
    if kind == "send_kittens":
        return f"{who} sends the kittens to {player_name(action['to'])}"
    return f"{who}: {kind}"


class Demo:
    """The box plus bots, printing as they play."""

    def __init__(self, clock: Clock, wait: Callable[[float], Awaitable[None]], out: TextIO,
                 colour: bool, language: str = "en", state_dir: Path | None = None, profile: str = "sim") -> None:
        self.clock, self.wait, self.stream, self.colour = clock, wait, out, colour
        self.language = language
        self._state = tempfile.TemporaryDirectory(prefix="gamebox-demo-") if state_dir is None else None
        config = load_config(None, state_dir=str(state_dir or self._state.name), profile=profile, language=language)
        self.daemon = Daemon(config, clock=clock, stdin=False, out=lambda _line: None, notify=lambda _m: None)
        self._seen = 0
        self._leds = ""
        self._last = ""  # the line printed last: the same line straight again is left out
        self._segments: tuple[str, ...] = ()  # the segments the game under way uses
        self._explained: set[str] = set()  # the calls already explained

    def say(self, text: str) -> None:
        if text == self._last:
            return
        self._last = text
        self.stream.write(text + "\n")
        self.stream.flush()

    def explain(self, action: dict[str, Any]) -> None:
        """The first time a call is made (or due and forgotten), say what a call is."""
        box = self.daemon.box
        call = action.get("call") or (box.engine.call_needed({k: v for k, v in action.items() if k != "call"})
                                      if action["type"] == "play" and box.engine is not None else None)
        if call in CALLS and call not in self._explained:
            self._explained.add(call)
            self.say(f"    ({CALLS[call]})")

    def echo(self) -> None:
        """Print what the box said and showed since last time, then its LEDs if they changed."""
        transcript = self.daemon.stage.transcript
        for _at, kind, name in transcript[self._seen:]:
            if kind == "say":
                self.say(f"    box says: {spoken_text(name, self.language)}")
            elif kind == "show" and name in ("rejected", "unknown_card", "other_game", "device_fault"):
                self.say(f"    box answers: {name.replace('_', ' ')}")
        self._seen = len(transcript)
        leds = self.daemon.devices.leds
        parts = [f"{name} {pixels_text(leds.shown(name), self.colour)}" for name in leds.segments
                 if name in self._segments]
        text = "  ".join(parts)
        if text != self._leds:
            self._leds = text
            self.say(f"    lights: {text}")

    async def play(self, games: list[tuple[str, int]], seed: int) -> list[tuple[str, list[int]]]:
        """Play each game to its end; return the winners of each."""
        task = asyncio.create_task(self.daemon.run())
        await self.daemon.ready.wait()
        results = []
        try:
            for n, (game, players) in enumerate(games):
                self.say(f"== {game}, {players} players ==")
                self._segments = tuple(name for name in SEGMENTS[game] if name in self.daemon.devices.leds.segments)
                for name in self._segments:
                    self.say(f"    legend: {LEGEND[name]}")
                await self._inputs([Input("tap", f"control-game-{game}"), Input("tap", f"control-players-{players}")])
                if self.daemon.stopping.is_set():
                    return results
                box = self.daemon.box
                auto = Autoplayer(box, seed + n, ["greedy", "random", "forgetful" if game == "floppy-ears" else "greedy"])
                while not box.engine.over:
                    if self.daemon.stopping.is_set():  # Ctrl-C or SIGTERM: the daemon is closing
                        return results
                    seat, action = auto.choose()
                    self.say(describe(seat, action))
                    self.explain(action)
                    await self._inputs(auto.inputs(action))
                winners = box.engine.view()["winners"]
                await self.wait(3.0)
                self.echo()
                self.say(f"== {game}: " + ", ".join(player_name(w) for w in winners) + " won ==")
                results.append((game, winners))
        finally:
            self.daemon.stopping.set()
            await task
            if self._state is not None:
                self._state.cleanup()
        return results

    async def _inputs(self, inputs: list[Input]) -> None:
        await perform(self.daemon.devices, inputs, self.wait, pace=PACE)
        # a person waits until the box has finished speaking before acting again
        await self.wait(max(0.0, self.daemon.stage.quiet_at() - self.clock.monotonic()))
        self.echo()


def audio_device_likely() -> bool:
    """Whether a sound server or card is there, so the demo tries real sound only where it can work."""
    if sys.platform != "linux":
        return True
    runtime = Path(os.environ.get("XDG_RUNTIME_DIR", "/nonexistent"))
    servers = [runtime / "pulse" / "native", runtime / "pipewire-0"]
    return any(p.exists() for p in servers) or bool(os.environ.get("PULSE_SERVER")) or any(Path("/dev/snd").glob("pcmC*p"))


def plan(game: str | None, players: int | None, every: bool, speed: float | None) -> tuple[list[tuple[str, int]], float]:
    """The games to play and how fast: the short show unless a game (or all of them) is asked for."""
    if every:
        return [(g, players or PLAYERS[g]) for g in GAME_IDS], speed or 1.0
    if game:
        return [(game, players or PLAYERS[game])], speed or 1.0
    show_game, show_players, show_speed = SHOW
    return [(show_game, players or show_players)], speed or show_speed


def run_demo(game: str | None, players: int | None, seed: int, speed: float | None, every: bool = False,
             stream: TextIO = sys.stdout) -> int:
    """The ``gamebox demo`` command."""
    games, speed = plan(game, players, every, speed)
    for name, count in games:
        engine_class(name).check_options(count, {})  # OptionsError: one line, before anything starts
    pace = "at a person's pace" if speed == 1 else f"{speed:g} times as fast as people play"
    what = "a short show of the box" if not (game or every) else "whole games"
    stream.write(f"gamebox demo: {what}, bots at every seat, {pace}. Ctrl-C stops it.\n")
    if not (game or every):
        stream.write("A whole game at a person's pace: gamebox demo --game pirates (or --all for one of each).\n")
    clock = ScaledClock(speed)
    # speech faster than it was recorded would be cut off: the box speaks aloud only at a person's pace
    profile = "desktop" if speed <= 1 and audio_device_likely() else "sim"
    demo = Demo(clock, clock.sleep, stream, colour_terminal(stream), profile=profile)
    results = asyncio.run(demo.play(games, seed))
    if len(results) < len(games):
        stream.write("stopped\n")
        return 130
    stream.write("winners: " + "; ".join(f"{g}: {', '.join(player_name(w) for w in ws)}" for g, ws in results) + "\n")
    return 0
