"""The box daemon's control socket (issue 33), against a real daemon on the sim profile and a fake clock.

Every op is asked over the real Unix socket the family's page uses; what it
changes is checked where a family would notice it: what the box says, the
config file, the tag registry, the game that resumes after a restore.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import stat
import tomllib
from pathlib import Path

import pytest

from controller.control import server as control
from controller.home.client import ask
from controller.control.pairing import TRIES
from controller.storage.journalfile import SCHEMA_VERSION
from controller.daemon import Daemon
from controller.config import load_config
from controller.siminput import card_uid
from hardware.clock import FakeClock
from tests.box.daemon_helpers import play_game_on_devices, started, stopped

pytestmark = pytest.mark.timeout(60)


def run(coro):
    return asyncio.run(coro)


async def boxed(tmp_path: Path, config_text: str | None = None, **config):
    """A daemon on the sim profile with a config file (the page keeps settings there) and its socket path."""
    path = tmp_path / "box.toml"
    path.write_text(config_text if config_text is not None else 'language = "en"\nvolume = 0.5\n')
    cfg = load_config(path, state_dir=str(tmp_path / "state"), seed=config.pop("seed", 1), **config)
    clock = FakeClock(1000.0)
    lines: list[str] = []
    daemon = Daemon(cfg, clock=clock, stdin=False, out=lines.append, notify=lambda _m: None)
    task = asyncio.create_task(control.run_daemon(daemon, path))
    await daemon.ready.wait()
    return daemon, task, clock, lines, control.socket_path(cfg.state_dir)


async def hold_die(daemon: Daemon, clock: FakeClock) -> None:
    button = daemon.devices.buttons["die"]
    button.hold()
    await clock.run_for(0.05)
    button.release()
    await clock.run_for(0.05)


async def tap_tag(daemon: Daemon, clock: FakeClock, uid: str) -> None:
    reader = next(iter(daemon.devices.readers.values()))
    reader.tap(bytes.fromhex(uid), None)
    await clock.run_for(0.2)
    reader.remove()
    await clock.run_for(0.1)


def spoken_code(lines: list[str]) -> str:
    """The digits the box said after its pair_code show (the sim narrates each spoken line)."""
    start = max(i for i, line in enumerate(lines) if line.startswith("show: pair_code"))
    return "".join(line.removeprefix("say: ") for line in lines[start + 1:start + 7])


def test_the_socket_is_private_and_answers_what_display_shows(tmp_path: Path) -> None:
    async def go():
        daemon, task, _clock, _lines, path = await boxed(tmp_path)
        try:
            assert stat.S_IMODE(path.stat().st_mode) == 0o660 and stat.S_ISSOCK(path.stat().st_mode)
            view = await ask(path, "view")
            assert view["ok"] and view["snapshot"]["mode"] == "menu" and view["snapshot"]["volume"] == 0.5
            assert daemon.box.new_game("pirates", 2)
            view = await ask(path, "view")
            assert view["snapshot"]["mode"] == "playing" and view["status"]["game"] == "pirates"
            assert "game: \"pirates\"" in view["lines"]
        finally:
            await stopped(daemon, task)
        assert not path.exists()  # the socket goes with the box

    run(go())


def test_bad_requests_get_one_line_each_and_the_box_plays_on(tmp_path: Path) -> None:
    async def go():
        daemon, task, _clock, _lines, path = await boxed(tmp_path)
        try:
            reader, writer = await asyncio.open_unix_connection(str(path))
            answers = []
            for line in (b"not json", b"[1,2]", b'{"op": "rm -rf"}', b'{"op": "history", "args": {"limit": "9"}}',
                         b'{"op": "history", "args": {"limit": 10, "sql": "DROP"}}', b'{"op": "view", "x": 1}',
                         b"[" * 100_000 + b"]" * 100_000, b'{"op": "enrol.begin", "args": {"deck": "../etc"}}'):
                writer.write(line + b"\n")
                answers.append(json.loads(await reader.readline()))
            assert [a["ok"] for a in answers] == [False] * 8
            assert answers[0]["error"] == "not JSON" and "no op 'rm -rf'" in answers[2]["error"]
            assert answers[3]["error"].startswith("limit:") and answers[4]["error"].startswith("sql:")
            writer.write(b'{"op": "view"}\n')  # the same connection still works
            assert json.loads(await reader.readline())["ok"]
            writer.close()
        finally:
            await stopped(daemon, task)

    run(go())


def test_an_oversized_request_and_too_many_connections_are_turned_away(tmp_path: Path) -> None:
    async def go():
        daemon, task, _clock, _lines, path = await boxed(tmp_path)
        try:
            reader, writer = await asyncio.open_unix_connection(str(path), limit=2**24)
            writer.write(b'{"op": "view", "args": {"x": "' + b"a" * (control.MAX_REQUEST + 10) + b'"}}\n')
            answer = json.loads(await reader.readline())
            assert not answer["ok"] and "at most" in answer["error"]
            assert await reader.read() == b""  # and the connection is closed
            held = [await asyncio.open_unix_connection(str(path)) for _ in range(control.MAX_CONNECTIONS)]
            await asyncio.sleep(0.05)
            one_more = await ask(path, "view")
            assert not one_more["ok"] and "busy" in one_more["error"]
            for _, w in held:
                w.close()
            await asyncio.sleep(0.05)
            assert (await ask(path, "view"))["ok"]
        finally:
            await stopped(daemon, task)

    run(go())


def test_a_setting_is_validated_by_the_box_model_written_atomically_and_taken_live(tmp_path: Path) -> None:
    async def go():
        daemon, task, _clock, lines, path = await boxed(tmp_path)
        config_file = tmp_path / "box.toml"
        try:
            got = await ask(path, "config.get")
            assert got["fields"]["call_window"]["value"] == 2.5 and got["fields"]["call_window"]["le"] == 10.0
            before = config_file.read_bytes()
            bad = await ask(path, "config.set", values={"call_window": 99.0, "volume": "loud",
                                                        "games": {"pirates": {"wins_needed": "x"}}})
            assert not bad["ok"] and set(bad["problems"]) == {"call_window", "volume", "games"}
            assert {k: (r["key"], r.get("le")) for k, r in bad["reasons"].items()} == {
                "call_window": ("p_le", 10.0), "volume": ("p_number", None), "games": ("p_option_range", None)}  # the page's words
            assert {k: bad["reasons"]["games"][k] for k in ("game", "option", "lo", "hi")} == {
                "game": "pirates", "option": "wins_needed", "lo": 1, "hi": 99}  # which game, which rule, what fits
            assert config_file.read_bytes() == before  # an invalid value is never written
            good = await ask(path, "config.set", values={"language": "de", "call_window": 4.0, "debounce_ms": 30,
                                                         "games": {"floppy-ears": {"bark_rule": False}}})
            assert good["ok"] and good["restart"] == ["debounce_ms"]  # read by the buttons at start only
            written = tomllib.loads(config_file.read_text())
            assert written["language"] == "de" and written["games"]["floppy-ears"] == {"bark_rule": False}
            assert written["volume"] == 0.5  # what was there stays
            assert daemon.box.language == "de" and daemon.box.calls.seconds == 4.0
            assert daemon.box.menu.options("floppy-ears")["bark_rule"] is False  # the next game's rule
            assert "say: Deutsch" in lines  # the box says so, in its new language
            assert not list(tmp_path.glob(".box.toml.*"))  # no temporary file left
        finally:
            await stopped(daemon, task)

    run(go())


def test_a_box_started_without_a_config_file_says_where_settings_cannot_go(tmp_path: Path) -> None:
    async def go():
        cfg = load_config(None, state_dir=str(tmp_path), seed=1)
        daemon = Daemon(cfg, clock=FakeClock(1000.0), stdin=False, out=lambda _l: None, notify=lambda _m: None)
        task = asyncio.create_task(control.run_daemon(daemon, None))
        await daemon.ready.wait()
        try:
            answer = await ask(control.socket_path(tmp_path), "config.set", values={"volume": 0.3})
            assert not answer["ok"] and "without --config" in answer["error"]
            assert daemon.box.volume == 0.6
        finally:
            await stopped(daemon, task)

    run(go())


def test_pairing_needs_a_hold_of_the_die_and_the_code_survives_only_a_few_wrong_tries(tmp_path: Path) -> None:
    async def go():
        daemon, task, clock, lines, path = await boxed(tmp_path)
        try:
            assert not (await ask(path, "pair.check", code="000000"))["ok"]  # no code until the box makes one
            await hold_die(daemon, clock)
            assert not any(line.startswith("show: pair_code") for line in lines)  # a hold alone is the game's
            assert (await ask(path, "pair.begin"))["ok"]
            menu = daemon.box.snapshot()["menu"]
            await hold_die(daemon, clock)
            code = spoken_code(lines)
            assert len(code) == 6 and code.isdigit()
            assert daemon.box.engine is None and daemon.box.snapshot()["menu"] == menu  # no game, no press either
            assert (await ask(path, "pair.check", code=code))["ok"]
            assert not (await ask(path, "pair.check", code=code))["ok"]  # one phone per code
            await ask(path, "pair.begin")
            await hold_die(daemon, clock)
            code = spoken_code(lines)
            wrong = str((int(code) + 1) % 10**6).zfill(6)
            answers = [await ask(path, "pair.check", code=wrong) for _ in range(TRIES)]
            assert [a["tries_left"] for a in answers] == list(range(TRIES - 1, -1, -1))
            assert not (await ask(path, "pair.check", code=code))["ok"]  # the right code, too late: it is gone
            reader = next(iter(daemon.devices.readers.values()))
            reader.tap(card_uid("control-pair"), "control-pair")  # the pairing card: someone is at the box
            await clock.run_for(0.2)
            reader.remove()
            await clock.run_for(0.1)
            assert (await ask(path, "pair.check", code=spoken_code(lines)))["ok"]
        finally:
            await stopped(daemon, task)

    run(go())


def test_a_stranger_cannot_arm_the_die_mid_game_and_a_hold_keeps_its_game_meaning(tmp_path: Path) -> None:
    """The attack: a phone on the home network asks for a code while a game is under way, to take the family's next
    hold of the die. The box refuses in words, the hold stays the game's (the undo gesture asks "hold again"), and
    the pairing card still pairs mid-game."""
    async def go():
        daemon, task, clock, lines, path = await boxed(tmp_path)
        try:
            assert daemon.box.new_game("pirates", 2)
            answer = await ask(path, "pair.begin")
            assert not answer["ok"] and answer["key"] == "pair_playing" and "game" in answer["error"]
            said = len(lines)
            await hold_die(daemon, clock)
            assert not any(line.startswith("show: pair_code") for line in lines[said:])
            assert "say: Hold the button again to take back." in lines[said:], lines[said:]  # the undo gesture's first hold
            reader = next(iter(daemon.devices.readers.values()))
            reader.tap(card_uid("control-pair"), "control-pair")
            await clock.run_for(0.2)
            reader.remove()
            await clock.run_for(0.1)
            assert (await ask(path, "pair.check", code=spoken_code(lines)))["ok"]
            assert daemon.box.engine is not None and not daemon.box.engine.over  # the game goes on
        finally:
            await stopped(daemon, task)

    run(go())


def test_an_armed_box_says_so_and_one_client_cannot_keep_it_armed(tmp_path: Path) -> None:
    """Armed in the menu, the box says out loud what a hold now does and lights; asking again does not stretch the
    minute, and after a few arms in a row the box waits before it can be armed again (the page limits each address)."""
    async def go():
        daemon, task, clock, lines, path = await boxed(tmp_path)
        try:
            said = len(lines)
            first = await ask(path, "pair.begin")
            assert first["ok"] and "show: pair_armed" in lines[said:]
            assert any(line.startswith("say: ") and "phone" in line for line in lines[said:])
            await clock.run_for(30)
            ring = daemon.devices.leds.shown("turn-ring")
            assert all(b > 2 * max(r, g) > -1 and b > 0 for r, g, b in ring), ring  # glowing blue while it waits
            again = await ask(path, "pair.begin")
            assert again["ok"] and again["armed_for"] <= first["armed_for"] - 29  # not renewed
            await clock.run_for(31)
            assert not next(r for r in daemon.rooms if isinstance(r, control.ControlRoom)).pairing.armed()
            assert not all(b > 2 * max(r, g) for r, g, b in daemon.devices.leds.shown("turn-ring"))  # the menu's again  # the minute is over: a hold is the menu's again
            answers = []
            for _ in range(10):
                answers.append(await ask(path, "pair.begin"))
                await clock.run_for(61)
            refused = [a for a in answers if not a["ok"]]
            assert refused and refused[0]["key"] == "pair_busy", answers
            await clock.run_for(3600)
            assert (await ask(path, "pair.begin"))["ok"]  # an hour later a family's phone may ask again
            assert daemon.box.new_game("pirates", 2)  # armed, then a game begins: the game's holds are its own
            await clock.run_for(1)
            assert not all(b > 2 * max(r, g) for r, g, b in daemon.devices.leds.shown("turn-ring"))
            said = len(lines)
            await hold_die(daemon, clock)
            assert not any(line.startswith("show: pair_code") for line in lines[said:])
        finally:
            await stopped(daemon, task)

    run(go())


def test_enrolling_a_deck_walks_card_by_card_and_refuses_a_wrong_tag_there_and_then(tmp_path: Path) -> None:
    async def go():
        daemon, task, clock, lines, path = await boxed(tmp_path)
        try:
            cards = await ask(path, "cards", deck="floppy-ears")
            assert len(cards["cards"]) == 36 and not any(c["enrolled"] for c in cards["cards"])
            walk = await ask(path, "enrol.begin", deck="floppy-ears")
            assert walk["next"] == "yellow-1" and (walk["enrolled"], walk["total"]) == (0, 36)
            await tap_tag(daemon, clock, "04a1b2c3")
            await tap_tag(daemon, clock, "04a1b2c3")  # the same tag again: it is yellow-1 already
            state = await ask(path, "enrol.state")
            assert state["next"] == "yellow-2" and state["enrolled"] == 1
            assert "already yellow-1" in state["said"][-1] and state["wrong"] == "yellow-1"
            assert any(line.startswith("refused:") for line in lines)  # said by the box, there and then
            assert daemon.box.engine is None  # a tap while enrolling is no card of a game
            forgot = await ask(path, "enrol.forget", card="yellow-1")
            assert forgot["ok"] and not (await ask(path, "cards", deck="floppy-ears"))["cards"][0]["enrolled"]
            again = await ask(path, "enrol.begin", deck="floppy-ears", card="yellow-1")
            assert again["next"] == "yellow-1"
            await tap_tag(daemon, clock, "04ffeedd")
            assert (await ask(path, "enrol.state"))["walking"] is False  # the one card walk is done
            assert daemon.box.registry.resolve(bytes.fromhex("04ffeedd")) == "yellow-1"
            assert daemon.box.new_game("floppy-ears", 2)
            refused = await ask(path, "enrol.begin", deck="pirates")
            assert not refused["ok"] and "game is under way" in refused["error"]
        finally:
            await stopped(daemon, task)

    run(go())


def test_stickers_are_written_card_by_card_and_one_that_names_a_card_is_left_alone(tmp_path: Path) -> None:
    async def go():
        daemon, task, clock, _lines, path = await boxed(tmp_path)
        reader = next(iter(daemon.devices.readers.values()))
        try:
            assert (await ask(path, "cards", deck="pirates"))["can_write"]  # the sim reader writes as a PN532 does
            walk = await ask(path, "enrol.begin", deck="pirates", write=True)
            assert walk["writing"] and walk["next"] == "yellow-pirate-1" and walk["total"] == 52
            await tap_tag(daemon, clock, "04c0ffee")
            assert reader.written[bytes.fromhex("04c0ffee")] == "yellow-pirate-1"
            reader.tap(bytes.fromhex("04beef00"), "red-3")  # a sticker that already says a card
            await clock.run_for(0.2)
            reader.remove()
            await clock.run_for(0.1)
            state = await ask(path, "enrol.state")
            assert (state["enrolled"], state["next"]) == (1, "yellow-pirate-2") and "already says red-3" in state["said"][-1]
            assert bytes.fromhex("04beef00") not in reader.written
            assert daemon.box.registry.resolve(bytes.fromhex("04c0ffee")) == "yellow-pirate-1"
        finally:
            await stopped(daemon, task)

    run(go())


def test_doctor_and_history_over_the_socket(tmp_path: Path) -> None:
    async def go():
        daemon, task, clock, _lines, path = await boxed(tmp_path)
        try:
            doctor = await ask(path, "doctor")
            devices = {row["device"] for row in doctor["rows"]}
            assert {"button:die", "journal"} <= devices and all(row["status"] == "ok" for row in doctor["rows"])
            assert doctor["storage"]["free"] > 0
            daemon.box.tap("reader", "deadbeef")  # an unknown tag: the box logs a warning, the page shows it
            doctor = await ask(path, "doctor")
            assert "unknown tag deadbeef" in doctor["faults"][0]["words"]
            assert daemon.box.new_game("pirates", 2)
            await play_game_on_devices(daemon, clock, 3)
            await daemon.durable()
            history = await ask(path, "history", limit=5)
            assert history["games"][0]["game"] == "pirates" and history["games"][0]["winners"]
        finally:
            await stopped(daemon, task)

    run(go())


def digest(daemon: Daemon) -> str:
    return hashlib.sha1(daemon.box.engine.to_json().encode()).hexdigest()


def test_a_backup_made_mid_game_restores_and_the_game_resumes_exactly(tmp_path: Path) -> None:
    async def go():
        daemon, task, clock, _lines, path = await boxed(tmp_path)
        try:
            daemon.registry.enroll(bytes.fromhex("04010203"), "red-3")
            assert daemon.box.new_game("pirates", 2)
            from controller.autoplay import Autoplayer, perform
            auto = Autoplayer(daemon.box, 5, None)
            for _ in range(6):
                _seat, action = auto.choose()
                await perform(daemon.devices, auto.inputs(action), clock.run_for)
            await daemon.durable()
            at_backup, seq = digest(daemon), daemon.box.seq
            backup = await ask(path, "backup")
            assert backup["ok"] and backup["bytes"] > 0
            for _ in range(4):  # the game goes on after the backup
                _seat, action = auto.choose()
                await perform(daemon.devices, auto.inputs(action), clock.run_for)
            await daemon.durable()
            daemon.registry.enroll(bytes.fromhex("04999999"), "blue-3")
            assert daemon.box.seq > seq
            answer = await ask(path, "restore", data=backup["data"])
            assert answer["ok"] and answer["restarting"]
        finally:
            code = await task
        assert code == control.RESTART  # systemd starts the box again
        daemon2, task2, _clock2, lines2 = await started(tmp_path / "state")
        try:
            assert daemon2.box.seq == seq and digest(daemon2) == at_backup
            assert daemon2.registry.resolve(bytes.fromhex("04010203")) == "red-3"
            assert daemon2.registry.resolve(bytes.fromhex("04999999")) is None
            assert not any("lost" in line for line in lines2)  # the restored journal is no loss of the SD card
        finally:
            await stopped(daemon2, task2)

    run(go())


def test_a_restore_from_a_newer_journal_or_not_a_backup_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    import io
    import sqlite3
    import zipfile

    async def go():
        daemon, task, _clock, _lines, path = await boxed(tmp_path)
        try:
            backup = base64.b64decode((await ask(path, "backup"))["data"])
            unpacked = tmp_path / "unpacked"
            unpacked.mkdir()
            zipfile.ZipFile(io.BytesIO(backup)).extractall(unpacked)
            db = sqlite3.connect(unpacked / "journal.sqlite")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
            db.close()
            newer = io.BytesIO()
            with zipfile.ZipFile(newer, "w") as z:
                for name in ("journal.sqlite", "tags.sqlite", "manifest.json"):
                    z.write(unpacked / name, name)
            db = sqlite3.connect(unpacked / "journal.sqlite")  # the same games, made by another box
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("UPDATE settings SET value=? WHERE key='box'", (json.dumps("0" * 32),))
            db.commit()
            db.close()
            other = io.BytesIO()
            with zipfile.ZipFile(other, "w") as z:
                for name in ("journal.sqlite", "tags.sqlite", "manifest.json"):
                    z.write(unpacked / name, name)
            for data, why in ((newer.getvalue(), "newer than this box"), (other.getvalue(), "from another box"),
                              (b"PK\x03\x04junk", "not a gamebox backup"), (b"hello", "not a gamebox backup")):
                answer = await ask(path, "restore", data=base64.b64encode(data).decode())
                assert not answer["ok"] and why in answer["error"]
            assert not daemon.stopping.is_set() and (await ask(path, "view"))["ok"]
            assert not list((tmp_path / "state").glob(".restore-*"))
        finally:
            await stopped(daemon, task)

    run(go())
