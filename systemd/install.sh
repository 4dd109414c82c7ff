#!/usr/bin/env bash
# Install gamebox as a system service on a Raspberry Pi (Raspberry Pi OS bookworm), or remove it.
#
#   sudo systemd/install.sh              install, or bring an install up to date
#   sudo systemd/install.sh --home       the same, with the family's page (gamebox-home.service);
#                                        once installed, a plain run keeps it up to date
#   sudo systemd/install.sh --uninstall  remove the services, the power-off rule and the code;
#                                        keep the config, the journal and the gamebox user
#
# Run from a clone of the repository. The code is copied to /opt/gamebox owned by
# root and not writable by anyone else, so whoever owns the clone cannot change what
# the service (or the next install, as root) runs; the virtualenv is made there, as
# root, before the service user can reach it. The gamebox user joins exactly the
# groups its profile's devices need (python -m hardware.access). An existing
# /etc/gamebox/box.toml is kept. A second run changes nothing. systemd/test-install.sh
# runs this in a clean Debian root and checks all of it.
set -euo pipefail
umask 022

readonly SERVICE_USER=gamebox
readonly PREFIX=/opt/gamebox
readonly VENV=$PREFIX/.venv
readonly CONFIG=/etc/gamebox/box.toml
readonly STATE_DIR=/var/lib/gamebox
readonly UNIT=/etc/systemd/system/gamebox.service
readonly RULE=/etc/polkit-1/rules.d/50-gamebox-power-off.rules
readonly NETWORK=/etc/systemd/system/gamebox.service.d/network.conf
readonly HOME_UNIT=/etc/systemd/system/gamebox-home.service
readonly HOME_DROPIN=/etc/systemd/system/gamebox.service.d/home.conf
readonly MODULES=/etc/modules-load.d/gamebox.conf
readonly STAMP=$VENV/.gamebox-installed

say() { printf 'install.sh: %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

changed=0

# place SOURCE TARGET: install a root-owned, world-readable copy unless it is already there.
place() {
    if cmp -s "$1" "$2" && [ "$(stat -c %a:%U:%G "$2")" = 644:root:root ]; then
        return
    fi
    install -D -o root -g root -m 644 "$1" "$2"
    say "wrote $2"
    changed=1
}

uninstall() {
    if [ -e "$HOME_UNIT" ]; then
        systemctl disable --now gamebox-home.service || true
        rm -f "$HOME_UNIT" "$HOME_DROPIN"
        say "removed $HOME_UNIT"
    fi
    if [ -e "$UNIT" ]; then
        systemctl disable --now gamebox.service || true
        rm -f "$UNIT"
        systemctl daemon-reload
        say "removed $UNIT"
    fi
    if [ -e "$RULE" ]; then rm -f "$RULE"; say "removed $RULE"; fi
    if [ -e "$MODULES" ]; then rm -f "$MODULES"; say "removed $MODULES"; fi
    if [ -e "$PREFIX/systemd/network.conf" ] && cmp -s "$PREFIX/systemd/network.conf" "$NETWORK"; then
        rm -f "$NETWORK"
        say "removed $NETWORK"
    fi
    if [ -e "$PREFIX" ]; then rm -rf "$PREFIX"; say "removed $PREFIX"; fi
    say "kept $CONFIG, the journal and tags in $STATE_DIR, and the user $SERVICE_USER;" \
        "to remove them too: rm -r /etc/gamebox $STATE_DIR && userdel $SERVICE_USER"
}

# The Debian packages: RPi.GPIO, spidev and evdev have no aarch64 wheels and are
# compiled (gcc, libc6-dev, python3-dev); lgpio has wheels for CPython 3.9-3.12 only,
# so a newer Python builds it too, with SWIG against the system's liblgpio.
install_packages() {
    local packages=(python3 python3-venv python3-dev gcc libc6-dev rsync libasound2 polkitd)
    if python3 -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then
        packages+=(swig liblgpio-dev)
    fi
    # Only what is missing: a second run, or a box without a network, needs no package index.
    local package missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null | grep -qx installed || missing+=("$package")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# A link in the clone that leads out of it would let the clone's owner change what the service
# runs after this install: refuse it. The links that stay inside are copied as the files they name.
# What the clone holds that is not the code: never copied, and its links never looked at
# (a virtualenv's python leads out of the clone; firmware/check.sh makes one in firmware/.typecheck).
readonly NOT_CODE=(.git .venv .typecheck __pycache__ '*.egg-info' .hypothesis '.*_cache')

check_links() {
    local link target name
    local prune=(-path "$src/build")
    for name in "${NOT_CODE[@]}"; do prune+=(-o -name "$name"); done
    while IFS= read -r -d '' link; do
        target=$(realpath -m -- "$link")
        case "$target" in
            "$src"/*) [ -e "$target" ] || die "refusing $link: it names $target, which is not there" ;;
            *) die "refusing $link: it leads out of the clone, to $target (copy the file in instead)" ;;
        esac
    done < <(find "$src" \( "${prune[@]}" \) -prune -o -type l -print0)
}

install_code() {
    local copied
    install -d -o root -g root -m 755 "$PREFIX"
    check_links
    copied=$(rsync -rLptgoiO --delete --chown=root:root --chmod=D755,Fu=rwX,Fgo=rX \
        "${NOT_CODE[@]/#/--exclude=}" --exclude=/build \
        "$src"/ "$PREFIX"/ | grep -v '^skipping non-regular file') || true  # a pipe lgpio left in the clone
    if [ -n "$copied" ]; then say "copied the code to $PREFIX"; changed=1; fi
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
        changed=1
    fi
    # pip only when the requirements or the Python changed: the install is editable,
    # so new code needs no pip, and a run with nothing new touches nothing.
    local wanted
    wanted="$(sha256sum "$PREFIX/pyproject.toml" | cut -d' ' -f1) $("$VENV/bin/python" -V)"
    if [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]; then
        say "installing the Python packages (compiles RPi.GPIO, spidev, evdev: a few minutes)"
        "$VENV/bin/pip" install -q --no-cache-dir -e "${PREFIX}[pi]"
        printf '%s\n' "$wanted" > "$STAMP"
        changed=1
    fi
    # RPi.GPIO (pi-rc522's) does not run on a Pi 5: rpi-lgpio stands in for it, through lgpio.
    if "$VENV/bin/python" -c 'import sys; from hardware.pi import is_pi5; sys.exit(not is_pi5())' \
        && "$VENV/bin/pip" show -q RPi.GPIO 2>/dev/null; then
        "$VENV/bin/pip" uninstall -q -y RPi.GPIO
        "$VENV/bin/pip" install -q --no-cache-dir --force-reinstall rpi-lgpio
        say "a Pi 5: rpi-lgpio installed in place of RPi.GPIO"
        changed=1
    fi
    # The service cannot write its code, so compile it here (only what is out of date).
    "$VENV/bin/python" -m compileall -q "$PREFIX/controller" "$PREFIX/hardware"
}

install_config() {
    if [ -e "$CONFIG" ]; then
        say "kept $CONFIG"
    else
        install -d -m 755 "$(dirname "$CONFIG")"
        cat > "$CONFIG" <<'TOML'
# gamebox configuration: every key is optional (see README).
profile = "pi-reference"
language = "en"
volume = 0.6
volume_max = 0.8
state_dir = "/var/lib/gamebox"  # the service's; named so that gamebox status and history read it too
TOML
        say "wrote $CONFIG"
        changed=1
    fi
    # It may hold the broker's password: readable by root and the service, no one else.
    # With the family's page the service writes it too (and its folder, to replace it atomically).
    local mode=640 folder=755
    if [ "$home" = 1 ]; then mode=660 folder=770; fi
    if [ "$(stat -c %a:%U:%G "$CONFIG")" != "$mode:root:$SERVICE_USER" ]; then
        chown root:"$SERVICE_USER" "$CONFIG"
        chmod "$mode" "$CONFIG"
        say "$CONFIG is for root and $SERVICE_USER only (mode $mode)"
        changed=1
    fi
    if [ "$(stat -c %a:%U:%G "$(dirname "$CONFIG")")" != "$folder:root:$SERVICE_USER" ] && [ "$home" = 1 ]; then
        chown root:"$SERVICE_USER" "$(dirname "$CONFIG")"
        chmod "$folder" "$(dirname "$CONFIG")"
        say "$(dirname "$CONFIG") is writable by $SERVICE_USER: the family's page keeps settings there"
        changed=1
    fi
    local settings
    settings=$("$VENV/bin/python" -c '
import sys
from controller.config import ConfigError, load_config
try:
    config = load_config(sys.argv[1])
except ConfigError as error:
    sys.exit(str(error))
print(config.profile, "network" if config.network.enabled else "offline")
' "$CONFIG") || die "fix $CONFIG, then run this again"
    read -r profile network <<< "$settings"
}

make_user() {
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin "$SERVICE_USER"
        say "created the user $SERVICE_USER"
        changed=1
    fi
}

install_groups() {
    local needed nodes wanted=() group have
    needed=$("$VENV/bin/python" -m hardware.access "$profile") || die "fix the profile $profile, then run this again"
    nodes=$("$VENV/bin/python" -m hardware.access --nodes "$profile")
    while read -r group; do
        [ -n "$group" ] || continue
        if getent group "$group" >/dev/null; then
            wanted+=("$group")
        else
            say "warning: no group $group here (not Raspberry Pi OS?): the profile's devices need it"
        fi
    done <<< "$needed"
    have=$(id -nG "$SERVICE_USER" | tr ' ' '\n' | grep -vx "$SERVICE_USER" | sort | paste -sd, -) || true
    local joined
    joined=$(printf '%s\n' "${wanted[@]}" | grep . | sort | paste -sd, -) || true
    if [ "$have" != "$joined" ]; then
        usermod -G "$joined" "$SERVICE_USER"
        say "groups of $SERVICE_USER for profile $profile: ${joined:-none}"
        changed=1
    fi
    local node why
    while IFS=$'\t' read -r node _ why; do
        if [ -n "$node" ] && ! compgen -G "$node" >/dev/null; then
            say "warning: $node is not here ($why needs it; see hardware/README.md)"
        fi
    done <<< "$nodes"
}

enable_buses() {
    command -v raspi-config >/dev/null || return 0
    local groups
    groups=$(id -nG "$SERVICE_USER")
    if [[ " $groups " == *" spi "* ]] && [ "$(raspi-config nonint get_spi)" != 0 ]; then
        raspi-config nonint do_spi 0
        say "enabled SPI"
    fi
    if [[ " $groups " == *" i2c "* ]] && [ "$(raspi-config nonint get_i2c)" != 0 ]; then
        raspi-config nonint do_i2c 0
        say "enabled I2C"
    fi
}

install_service() {
    place "$PREFIX/systemd/gamebox.service" "$UNIT"
    place "$PREFIX/systemd/gamebox-power-off.rules" "$RULE"
    place "$PREFIX/systemd/modules.conf" "$MODULES"
    # A station on an MQTT broker ([network] enabled) needs the network; our own drop-in
    # comes and goes with it, one the admin has edited stays.
    if [ "$network" = network ]; then
        place "$PREFIX/systemd/network.conf" "$NETWORK"
    elif cmp -s "$PREFIX/systemd/network.conf" "$NETWORK"; then
        rm -f "$NETWORK"
        say "removed $NETWORK ([network] is off)"
        changed=1
    fi
    if [ "$home" = 1 ]; then
        place "$PREFIX/systemd/gamebox-home.service" "$HOME_UNIT"
        place "$PREFIX/systemd/home.conf" "$HOME_DROPIN"
    fi
    if [ "$changed" = 1 ]; then systemctl daemon-reload; fi
    systemctl enable gamebox.service
    if ! systemctl is-active --quiet gamebox.service; then
        say "gamebox doctor, as the service sees it (its devices are free while the service is stopped):"
        "$PREFIX/systemd/doctor.sh" \
            || say "doctor found problems (above); the service starts anyway and reports them"
        systemctl start gamebox.service
        say "started gamebox.service"
    elif [ "$changed" = 1 ]; then
        systemctl restart gamebox.service
        say "restarted gamebox.service"
    fi
    if [ "$home" = 1 ]; then
        systemctl enable gamebox-home.service
        if [ "$changed" = 1 ] || ! systemctl is-active --quiet gamebox-home.service; then
            systemctl restart gamebox-home.service
            say "the family's page: http://$(hostname).local:8081/ (pair a phone with the code the box says)"
        fi
    fi
}

home=0
case "${1:-}" in
    "") ;;
    --home) home=1 ;;
    --uninstall) ;;
    -h | --help) sed -n '2,9p' "$0" | cut -c3-; exit 0 ;;
    *) die "unknown option $1 (use --home, --uninstall, or no option to install)" ;;
esac
if [ -e "$HOME_UNIT" ]; then home=1; fi  # installed once: kept up to date by every run
[ "$(id -u)" -eq 0 ] || die "run as root: sudo $0 $*"
src=$(cd "$(dirname "$0")/.." && pwd)
cd /  # nothing is imported from the directory this was started in
if [ "${1:-}" = --uninstall ]; then
    uninstall
    exit 0
fi
[ "$src" != "$PREFIX" ] || die "run this from a clone of the repository, not from $PREFIX"
install_packages
install_code
make_user
install_config
install_groups
enable_buses
install_service
if [ "$changed" = 1 ]; then
    say "gamebox installed (profile $profile): journalctl -u gamebox -f to follow it"
else
    say "gamebox was already installed as this clone has it: nothing changed"
fi
