#!/usr/bin/env bash
# gamebox doctor as the service sees it: as the gamebox user, inside the installed unit's own
# sandbox (its device classes, system-call filter, read-only system, network or none), with the
# service's config and state directory. The service holds its devices while it runs, so:
#
#   sudo systemctl stop gamebox && sudo /opt/gamebox/systemd/doctor.sh; sudo systemctl start gamebox
#
# Where systemd is not running (a chroot), it runs doctor as the gamebox user without the sandbox.
# systemd/install.sh runs it before it first starts the service.
set -euo pipefail
readonly UNIT=gamebox.service
readonly SERVICE_USER=gamebox
readonly CONFIG=/etc/gamebox/box.toml
readonly GAMEBOX=/opt/gamebox/.venv/bin/gamebox
readonly STATE_DIR=/var/lib/gamebox

die() { printf 'doctor.sh: %s\n' "$*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run as root: sudo $0"
[ -x "$GAMEBOX" ] || die "gamebox is not installed in /opt/gamebox: sudo systemd/install.sh"

if [ ! -d /run/systemd/system ]; then
    work=$(mktemp -d)  # lgpio's notification pipe: a folder of its own, never one another user can write
    trap 'rm -rf "$work"' EXIT
    chown "$SERVICE_USER:" "$work"
    install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 750 "$STATE_DIR"  # as the unit's StateDirectory= makes it
    runuser -u "$SERVICE_USER" -- env -C "$work" GPIOZERO_PIN_FACTORY=lgpio LG_WD="$work" STATE_DIRECTORY="$STATE_DIR" \
        "$GAMEBOX" doctor --config "$CONFIG"
    exit
fi
if systemctl is-active --quiet "$UNIT"; then
    die "$UNIT is running and holds its devices: sudo systemctl stop gamebox first"
fi

# The unit's [Service] settings, drop-ins included, less those that make it a long-running service.
properties=()
section=""
while IFS= read -r line; do
    case "$line" in
        "" | "#"* | ";"*) continue ;;
        "["*) section=$line; continue ;;
    esac
    [ "$section" = "[Service]" ] || continue
    case "${line%%=*}" in
        Type | NotifyAccess | ExecStart* | ExecStop* | Restart | RestartSec | WatchdogSec | TimeoutStopSec | KillSignal) ;;
        *) properties+=(-p "$line") ;;
    esac
done < <(systemctl cat --no-pager "$UNIT")
exec systemd-run --quiet --pipe --wait --collect --unit=gamebox-doctor --service-type=exec \
    "${properties[@]}" "$GAMEBOX" doctor --config "$CONFIG"
