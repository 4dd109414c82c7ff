"""The ``gamebox`` command: one entry point, a sub-command per job.

Each sub-command imports what it needs when it runs, so ``gamebox scenario``
starts without pygame or the hardware layer. Errors a person can fix are one
line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from controller.games import GAME_IDS


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object, like '{\"bark_rule\": false}'")
    return value


def cmd_scenario(args: argparse.Namespace) -> int:
    from controller.scenario import run_files

    code, lines = run_files(args.files)
    print("\n".join(lines))
    return code


def cmd_selfplay(args: argparse.Namespace) -> int:
    from controller.games import engine_class
    from controller.games.base import OptionsError
    from controller.selfplay import selfplay
    from controller.table.bots import make_bot

    bots = args.bots.split(",")
    try:
        engine_class(args.game).check_options(args.players, args.options)
        for kind in bots:
            make_bot(kind, None, args.game)
    except (OptionsError, ValueError) as exc:
        return _fail(str(exc))
    summary = selfplay(args.game, args.players, args.games, args.seed, args.options, bots)
    if args.json:
        print(json.dumps(summary.as_dict(), sort_keys=True))
    else:
        print("\n".join(summary.lines()))
    return 0 if summary.ok else 1


def cmd_demo(args: argparse.Namespace) -> int:
    from controller.demo import run_demo
    from controller.games.base import OptionsError

    if args.speed is not None and args.speed <= 0:
        return _fail("--speed must be above 0")
    if args.all and args.game:
        return _fail("--all plays every game: leave out --game")
    try:
        return run_demo(args.game, args.players, args.seed, args.speed, args.all)
    except OptionsError as exc:
        return _fail(str(exc))


def cmd_sim(args: argparse.Namespace) -> int:
    from controller.games import engine_class
    from controller.games.base import OptionsError
    from controller.window.screen import NoDisplay
    from controller.window.sim import PLAYERS, run_sim

    if args.players is not None and args.game is None:
        return _fail("--players needs --game")
    if args.moves < 0:
        return _fail("--moves must be 0 or more")
    try:
        if args.game:
            engine_class(args.game).check_options(args.players or PLAYERS[args.game], {})
        return run_sim(args.game, args.players, args.seed, args.screenshot, args.moves)
    except (OptionsError, NoDisplay) as exc:
        return _fail(str(exc))
    except OSError as exc:
        if args.screenshot is None:
            raise
        return _fail(f"cannot save the screenshot: {exc}")


def cmd_display(args: argparse.Namespace) -> int:
    from controller.window.display import run_display
    from controller.window.screen import NoDisplay

    try:
        return run_display(_config(args), args.screenshot, args.fullscreen)
    except NoDisplay as exc:
        return _fail(str(exc))
    except OSError as exc:
        if args.screenshot is None:
            raise
        return _fail(f"cannot save the screenshot: {exc}")


def cmd_enroll(args: argparse.Namespace) -> int:
    from controller.enroll import run_enroll

    return run_enroll(args.deck, _config(args))


def cmd_tags(args: argparse.Namespace) -> int:
    from controller.enroll import run_write

    return run_write(args.deck, _config(args))


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller.secrets import secret_rows
    from controller.stage.stage import sound_files
    from controller.storage.diskcheck import check_storage
    from hardware.doctor import run_doctor

    config = _config(args)
    rows = [*check_storage(config.state_dir), *_station_rows(config), *secret_rows(args.config, config)]
    return run_doctor(config.profile, sounds=sound_files(), extra=rows)


def cmd_wiring(args: argparse.Namespace) -> int:
    from controller.wiring.pi import draw
    from controller.wiring.pico import SettingsError, draw_puck
    from hardware.header import uses
    from hardware.profile import load_profile

    if args.puck:
        try:
            return _write(args.output, draw_puck())
        except SettingsError as error:
            return _fail(str(error))
    profile = load_profile(args.profile)
    if not uses(profile):
        return _fail(f"profile {profile.name} wires nothing to the Pi's header (its devices are simulated or on USB)")
    return _write(args.output, draw(profile, args.pi))


def cmd_bom(args: argparse.Namespace) -> int:
    from controller.bom import markdown
    from hardware.profile import load_profile

    return _write(args.output, markdown(load_profile(args.profile)))


def _write(output: str, text: str) -> int:
    """``text`` to the file ``output``, or to stdout for ``-``."""
    if output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as error:
        return _fail(f"cannot write {output}: {error.strerror or error}")
    print(f"wrote {output}")
    return 0


def _station_rows(config) -> list:
    """Doctor's row for the station link: where it publishes and whether it obeys commands."""
    from controller.station.link import commands_line
    from hardware.doctor import Row

    net = config.network
    if not net.enabled:
        return []
    return [Row("station", "mqtt", "ok", f"{net.station} on {net.broker}:{net.port}; {commands_line(net)}")]


def _config(args: argparse.Namespace):
    """The box configuration named by --config (defaults without), or a one-line error."""
    from controller.config import load_config

    return load_config(
        getattr(args, "config", None),
        state_dir=getattr(args, "state_dir", None),
        profile=getattr(args, "profile", None),
    )


def cmd_run(args: argparse.Namespace) -> int:
    from controller.daemon import run

    return run(_config(args), config_path=Path(args.config) if args.config else None)


def _journal_path(args: argparse.Namespace):
    """The journal a read-only command reads; a state directory that is not one is one line."""
    from controller.storage.store import StoreError

    state = _config(args).state_dir
    if state.exists() and not state.is_dir():
        raise StoreError(f"state directory {state} is not a directory")
    return state / "journal.sqlite"


def cmd_status(args: argparse.Namespace) -> int:
    from controller.storage.journal import Journal
    from controller.report import game_status, status_lines

    path = _journal_path(args)
    status, menu = None, None
    if path.exists():
        journal = Journal(path, read_only=True)  # never creates, moves or repairs anything
        try:
            status, menu = game_status(journal), journal.setting("menu")
        finally:
            journal.close()
    if status is None:
        # a journal that is not there is named: status run where the service's is not shows where it looked
        message = "no game in the journal yet" if path.exists() else f"no journal at {path} yet"
        status = {"game": None, "menu": menu, "message": message}
    if args.json:
        print(json.dumps(status, sort_keys=True))
    elif status.get("game") is None:
        print(status["message"])
    else:
        print("\n".join(status_lines(status)))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from controller.storage.journal import Journal
    from controller.report import history_lines

    path = _journal_path(args)
    if not path.exists():
        print(f"no journal at {path} yet")  # the path shows a box kept elsewhere (the service's /var/lib/gamebox)
        return 0
    journal = Journal(path, read_only=True)
    try:
        games = journal.history(args.limit)
    finally:
        journal.close()
    print("\n".join(history_lines(games)))
    return 0


def cmd_classroom(args: argparse.Namespace) -> int:
    from controller.station.classroom import run_classroom

    from controller.station.pageguard import PinError, check_pin

    if args.pin is not None:
        return _fail("--pin is gone: a command line is shown to every user; use --pin-file FILE or GAMEBOX_PIN")
    try:
        pin = check_pin(Path(args.pin_file).read_text() if args.pin_file else os.environ.get("GAMEBOX_PIN"))
    except OSError as exc:
        return _fail(f"the PIN file: {exc.strerror}: {args.pin_file}")
    except PinError as exc:
        return _fail(str(exc))
    settings = _config(args).network.model_copy(update={
        k: v for k, v in {"broker": args.broker, "port": args.broker_port, "prefix": args.prefix}.items() if v is not None})
    try:
        tls = _page_tls(args)
    except ValueError as exc:
        return _fail(str(exc))
    return run_classroom(settings, args.listen, args.http_port, pin, tuple(args.name), tls)


def _page_tls(args: argparse.Namespace) -> Any:
    """The ``ssl.SSLContext`` of ``--cert``/``--key`` for a page (classroom, home), None for plain HTTP; ValueError
    saying what is wrong in one line."""
    if not (args.cert or args.key):
        return None
    import ssl

    from controller.station.webserver import https

    if not (args.cert and args.key):
        raise ValueError("HTTPS needs --cert and --key together")
    try:
        return https(Path(args.cert), Path(args.key))
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"the page's certificate or key does not load: {exc}") from None


def cmd_home(args: argparse.Namespace) -> int:
    from controller.control.server import socket_path
    from controller.home.page import run_home
    from controller.home.sessions import FILE_NAME

    try:
        tls = _page_tls(args)
    except ValueError as exc:
        return _fail(str(exc))
    state = _config(args).state_dir  # under systemd the page's own StateDirectory (it cannot reach the box's)
    control = Path(args.socket) if args.socket else socket_path(state)
    if not 0 < args.session_days <= 366:
        return _fail(f"--session-days {args.session_days:g}: a phone stays paired more than 0 and at most 366 days")
    return run_home(control, args.listen, args.http_port, tuple(args.name), tls, state / FILE_NAME, args.session_days)


def cmd_broker_config(args: argparse.Namespace) -> int:
    from controller.station.brokerconf import BrokerConfigError, Tls, write_broker_config

    tls_files = (args.tls_cert, args.tls_key, args.tls_ca)
    if any(tls_files) and not all(tls_files):
        return _fail("TLS needs --tls-cert, --tls-key and --tls-ca together")
    required = args.require_certificate or args.tls_ca_key is not None  # the CA's key given: certificates made, and required
    tls = Tls(*tls_files, require_certificate=required, ca_key=args.tls_ca_key) if all(tls_files) else None
    try:
        written = write_broker_config(args.dir, args.stations, broker=args.broker, port=args.port, bind=args.bind,
                                      prefix=args.prefix, tls=tls, homeassistant=args.homeassistant, force=args.force)
    except BrokerConfigError as exc:
        return _fail(str(exc))
    for path in written:
        print(f"wrote {path}")
    return 0


def _version() -> str:
    """The installed package's version (``pyproject.toml``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gamebox")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _fail(message: str) -> int:
    print("\n".join(f"gamebox: {line}" for line in message.splitlines()), file=sys.stderr)
    return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gamebox", description="The card-game referee box and its simulator.")
    parser.add_argument("--version", action="version", version=f"gamebox {_version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("scenario", help="run rule scenario files (docs/scenarios.md)")
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario files (JSON), run in order")
    p.set_defaults(func=cmd_scenario)

    p = sub.add_parser("selfplay", help="bots play whole games at a virtual table")
    p.add_argument("--game", required=True, choices=GAME_IDS, help="the game the bots play")
    p.add_argument("--players", type=int, required=True, help="how many bots sit at the table")
    p.add_argument("--games", type=int, default=100, help="how many whole games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the first game's seed; the same seed plays the same games")
    p.add_argument("--options", type=_json_object, default={}, metavar="JSON",
                   help="the game's options as a JSON object, like '{\"bark_rule\": false}'")
    p.add_argument("--bots", default="greedy", help="bot per seat, comma-separated, repeating: random, greedy, forgetful")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=cmd_selfplay)

    def box_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", metavar="FILE", help="the box's TOML configuration")
        p.add_argument("--state-dir", metavar="DIR", help="where the journal and tag registry live")

    p = sub.add_parser("run", help="the box: play on the hardware of a profile (sim reads events from stdin)")
    box_options(p)
    p.add_argument("--profile", help="hardware profile name or TOML file (default: the config's, else sim)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("status", help="the current game's state, from the journal")
    box_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object, seats from 0 (the rule scenarios' keys)")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("history", help="past games: date, game, players, winner, duration, actions")
    box_options(p)
    p.add_argument("--limit", type=int, default=50, help="how many games, newest first (default 50)")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("demo", help="bots play the simulated box in the terminal (alone: a one-minute show)")
    p.add_argument("--game", choices=GAME_IDS, help="one whole game at a person's pace (default: a short show)")
    p.add_argument("--all", action="store_true", help="a whole game of each, in turn, at a person's pace")
    p.add_argument("--players", type=int, help="how many bots play (default 3, Policecats 4; the short show 2)")
    p.add_argument("--seed", type=int, default=1, help="the deal and the die (default 1)")
    p.add_argument("--speed", type=float, help="how much faster than a person (default 1; the short show 2)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("sim", help="play at a virtual table in a window: you are Player 1, bots play the others")
    p.add_argument("--game", choices=GAME_IDS, help="start this game (default: the box's menu)")
    p.add_argument("--players", type=int, help="with --game: how many sit at the table, you included (default 3, Policecats 4)")
    p.add_argument("--seed", type=int, help="the deal and the die (default: a new one each time; 1 for --screenshot)")
    p.add_argument("--screenshot", metavar="FILE", help="set the table up, save it as PNG and exit")
    p.add_argument("--moves", type=int, default=0, help="with --screenshot: the bots play this many more actions first")
    p.set_defaults(func=cmd_sim)

    p = sub.add_parser("display", help="the current game's status in a window, for a screen beside the box")
    box_options(p)
    p.add_argument("--screenshot", metavar="FILE", help="draw the status once, save it as PNG and exit")
    p.add_argument("--fullscreen", action="store_true", help="fill the screen (a kiosk)")
    p.set_defaults(func=cmd_display)

    p = sub.add_parser("enroll", help="teach the box each card's tag, card by card (resumable)")
    p.add_argument("deck", choices=[*GAME_IDS, "control"], help="the deck whose cards to enrol")
    box_options(p)
    p.add_argument("--profile", help="hardware profile (default: the config's, else sim: tags from stdin)")
    p.set_defaults(func=cmd_enroll)

    p = sub.add_parser("tags", help="write card ids onto blank NTAG stickers")
    tags = p.add_subparsers(dest="tags_command", required=True, metavar="ACTION")
    p = tags.add_parser("write", help="write each card id of a deck as an NDEF text record (PN532)")
    p.add_argument("deck", choices=[*GAME_IDS, "control"], help="the deck whose card ids to write")
    box_options(p)
    p.add_argument("--profile", help="hardware profile (default: the config's, else sim: stickers from stdin)")
    p.set_defaults(func=cmd_tags)

    p = sub.add_parser("classroom", help="the teacher's page: every station live, with buttons (needs a broker)")
    p.add_argument("--broker", help="the MQTT broker's host (default: the config's [network] broker)")
    p.add_argument("--broker-port", type=int, help="default: the config's, else 1883")
    p.add_argument("--prefix", help="the stations' topic prefix (default: the config's, else gamebox)")
    p.add_argument("--listen", default="127.0.0.1", help="address of the page (default: this computer only; 0.0.0.0: the network, with a PIN)")
    p.add_argument("--http-port", type=int, default=8080, help="the page's port (default 8080)")
    p.add_argument("--pin", help=argparse.SUPPRESS)  # refused with a reason: argv is visible to every user
    p.add_argument("--pin-file", metavar="FILE", help="the page's PIN (8 characters or more; else GAMEBOX_PIN; "
                   "made up and printed when --listen is not localhost)")
    p.add_argument("--name", action="append", default=[], help="another host name the page is reached by (e.g. a DNS name)")
    p.add_argument("--cert", metavar="FILE", help="HTTPS: the page's certificate (PEM), with --key")
    p.add_argument("--key", metavar="FILE", help="HTTPS: the certificate's private key (PEM)")
    p.add_argument("--config", metavar="FILE", help="a box's TOML config: its [network] credentials and TLS settings")
    p.set_defaults(func=cmd_classroom)
    actions = p.add_subparsers(dest="classroom_command", metavar="ACTION")
    p = actions.add_parser("broker-config", help="write a Mosquitto set-up: accounts, ACL, a [network] table per box")
    p.add_argument("stations", nargs="+", metavar="STATION", help="the stations' names (each box gets its own account)")
    p.add_argument("--dir", required=True, type=Path, help="the folder to write (e.g. /etc/mosquitto/gamebox)")
    p.add_argument("--broker", required=True, help="the broker's host name as the boxes reach it")
    p.add_argument("--port", type=int, help="the listener's port (default 1883, with TLS 8883)")
    p.add_argument("--bind", help="listen on this address only (default: every address)")
    p.add_argument("--prefix", default="gamebox", help="the stations' topic prefix")
    p.add_argument("--tls-cert", type=Path, help="the broker's certificate (TLS on; with --tls-key and --tls-ca)")
    p.add_argument("--tls-key", type=Path, help="the broker certificate's private key")
    p.add_argument("--tls-ca", type=Path, help="the CA the boxes check the broker with")
    p.add_argument("--require-certificate", action="store_true",
                   help="every client must show a certificate from --tls-ca (made here for every account, with --tls-ca-key)")
    p.add_argument("--tls-ca-key", type=Path,
                   help="the CA's private key: a client certificate is made for every account, and required")
    p.add_argument("--homeassistant", action="store_true", help="a read-only account for Home Assistant too")
    p.add_argument("--force", action="store_true", help="replace an existing set-up (every box gets a new password)")
    p.set_defaults(func=cmd_broker_config)

    p = sub.add_parser("wiring", help="draw how a hardware profile is wired to the Pi's 40-pin header (SVG)")
    p.add_argument("--profile", default="pi-reference", help="hardware profile (default: pi-reference)")
    p.add_argument("--pi", type=int, choices=(4, 5), default=4, help="the Raspberry Pi model (default 4)")
    p.add_argument("--puck", action="store_true", help="the die puck's wiring on its Pico instead (firmware/puck/settings.py)")
    p.add_argument("-o", "--output", default="-", metavar="FILE.svg", help="where to write it (default: stdout)")
    p.set_defaults(func=cmd_wiring)

    p = sub.add_parser("bom", help="the bill of materials of a hardware profile, with quantities (Markdown)")
    p.add_argument("--profile", default="pi-reference", help="hardware profile (default: pi-reference)")
    p.add_argument("-o", "--output", default="-", metavar="FILE.md", help="where to write it (default: stdout)")
    p.set_defaults(func=cmd_bom)

    p = sub.add_parser("home", help="the family's page: settings, cards, games and backups from a phone")
    box_options(p)
    p.add_argument("--listen", default="127.0.0.1", help="address of the page (default: this computer only; "
                   "0.0.0.0: the home network, a phone pairs with a code the box says)")
    p.add_argument("--http-port", type=int, default=8081, help="the page's port (default 8081)")
    p.add_argument("--socket", metavar="PATH", help="the box's control socket (default: control.sock in the "
                   "box's runtime folder under systemd, else in its state folder)")
    p.add_argument("--name", action="append", default=[], help="another host name the page is reached by")
    p.add_argument("--session-days", type=float, default=30.0, metavar="DAYS",
                   help="how long a paired phone stays paired before it pairs again (default 30)")
    p.add_argument("--cert", metavar="FILE", help="HTTPS: the page's certificate (PEM), with --key")
    p.add_argument("--key", metavar="FILE", help="HTTPS: the certificate's private key (PEM)")
    p.set_defaults(func=cmd_home)

    p = sub.add_parser("doctor", help="check every device of a hardware profile, and the box's storage")
    box_options(p)
    p.add_argument("--profile", help="hardware profile (default: the config's, else sim)")
    p.set_defaults(func=cmd_doctor)
    return parser


def run_command(argv: list[str] | None = None) -> int:
    from controller.config import ConfigError
    from controller.storage.store import StoreError
    from hardware.profile import ProfileError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, ProfileError, StoreError) as exc:  # a file a person can fix: one line, no traceback
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    """The ``gamebox`` command, quiet when the reader of its output goes away (``gamebox status | head -3``)."""
    from controller.output import GuardedStdout, ReaderGone

    stdout = sys.stdout = GuardedStdout(sys.stdout)
    try:
        code = run_command(argv)
        stdout.flush()  # what is still buffered meets a gone reader here, not in the interpreter's exit
    except ReaderGone:
        code = 141
    finally:
        sys.stdout = stdout.stream
    return 141 if stdout.gone else code  # 128 + SIGPIPE: what a shell shows for a tool its pipe stopped


if __name__ == "__main__":
    sys.exit(main())
