#!/usr/bin/env bash
# systemd/install.sh for real, in a clean Debian bookworm root made with debootstrap:
# installs from a clone owned by an ordinary user, then checks what a Pi would get.
# systemctl is a stand-in that records its calls (nothing boots); Raspberry Pi OS's
# gpio, spi, i2c and input groups are made first, as that system has them.
#
#   sudo systemd/test-install.sh [--keep]
#
# Needs root, debootstrap, shellcheck, systemd-analyze and Debian's mirror (2 to 5 minutes, most of it
# compiling RPi.GPIO, spidev and evdev). Exits 1 when a check fails, 77 when no root could be made.
# Not part of the pytest suite: the README names it, and .ci/run runs it after the virtual Pi.
# GAMEBOX_DEBOOTSTRAP_TARBALL=FILE uses a tarball from `debootstrap --make-tarball` (faster reruns).
set -euo pipefail
umask 022
readonly MIRROR=${GAMEBOX_MIRROR:-http://deb.debian.org/debian}
keep=0
[ "${1:-}" = --keep ] && keep=1
[ "$(id -u)" -eq 0 ] || { echo "test-install.sh: run as root" >&2; exit 1; }
for tool in debootstrap shellcheck systemd-analyze; do
    command -v "$tool" >/dev/null || { echo "test-install.sh: cannot run here: $tool is not installed"; exit 77; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
root=$(mktemp -d /var/tmp/gamebox-bookworm.XXXXXX)
chmod 755 "$root"  # it is the root directory in there: everyone must reach /usr
failures=0
bus_pid=""
polkit_pid=""
page_pid=""

cleanup() {
    for pid in $page_pid $polkit_pid $bus_pid; do kill "$pid" 2>/dev/null || true; done
    umount -l "$root/proc" 2>/dev/null || true
    if [ "$keep" = 1 ]; then echo "kept the root: $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }
check() {  # check DESCRIPTION COMMAND...: one line, PASS or FAIL
    local what=$1
    shift
    if "$@"; then echo "PASS $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
in_root() { chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
as_builder() { in_root runuser -u builder -- "$@"; }
install_sh() { in_root /home/builder/gamebox/systemd/install.sh "$@"; }

# Everything the installer owns, with modes, owners and checksums: equal before and after means nothing changed.
snapshot() {
    in_root sh -c 'find /opt/gamebox /etc/gamebox /etc/systemd/system /etc/polkit-1/rules.d \
        /etc/passwd /etc/group /etc/shadow /etc/gshadow -printf "%p %M %u %g %s %T@\n" 2>/dev/null | sort;
        find /opt/gamebox /etc/gamebox -type f -exec sha256sum {} + | sort'
}

step "shellcheck"
check "install.sh and test-install.sh are shellcheck-clean" shellcheck "$src/systemd/install.sh" "$src/systemd/doctor.sh" "$0"

step "a clean bookworm root in $root"
bootstrap=(debootstrap --variant=minbase)
[ -z "${GAMEBOX_DEBOOTSTRAP_TARBALL:-}" ] || bootstrap+=(--unpack-tarball="$GAMEBOX_DEBOOTSTRAP_TARBALL")
# Exit 77, as the virtual Pi does, when this machine cannot make the root: nothing of the box has run yet.
"${bootstrap[@]}" bookworm "$root" "$MIRROR" >/dev/null \
    || { echo "test-install.sh: cannot run here: debootstrap made no bookworm root from $MIRROR"; exit 77; }
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The certificates this host trusts beyond Debian's (a proxy's, say), so pip reaches PyPI as it does here.
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"  # packages start no services
chmod 755 "$root/usr/sbin/policy-rc.d"
cat > "$root/usr/local/bin/systemctl" <<'STUB'
#!/bin/sh
# Stand-in for systemctl: records each call; "start" makes the service active.
echo "systemctl $*" >> /var/log/systemctl.log
case "$*" in
    *is-active*) [ -e /run/gamebox.active ] ;;
    *start*) touch /run/gamebox.active ;;
    *disable*--now* | *stop*) rm -f /run/gamebox.active ;;
esac
STUB
chmod 755 "$root/usr/local/bin/systemctl"
for group in gpio spi i2c input; do in_root sh -c "getent group $group >/dev/null || groupadd --system $group"; done
in_root useradd --create-home builder
mkdir "$root/home/builder/gamebox"
tar -C "$src" --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude='*.egg-info' -cf - . \
    | tar -C "$root/home/builder/gamebox" -xf -
in_root chown -R builder:builder /home/builder/gamebox
echo "debian $(cat "$root/etc/debian_version"), clone owned by builder"

step "a link out of the clone is refused before anything is copied"
ln -s /etc/shadow "$root/home/builder/gamebox/controller/escape.py"
in_root chown -h builder:builder /home/builder/gamebox/controller/escape.py
refused=0
refusal=$(install_sh 2>&1) || refused=1
# shellcheck disable=SC2016  # the inner shell expands them
check "install.sh refuses a link that leads out of the clone, naming it" \
    sh -c '[ "$1" = 1 ] && printf "%s" "$2" | grep -q "refusing /home/builder/gamebox/controller/escape.py"' _ "$refused" "$refusal"
check "nothing was installed" in_root test ! -e /opt/gamebox/controller
rm "$root/home/builder/gamebox/controller/escape.py"
# A virtualenv in the clone (firmware/check.sh makes one) links out of it: it is not code, never copied nor refused.
in_root runuser -u builder -- sh -c 'mkdir -p /home/builder/gamebox/firmware/.typecheck/bin &&
    ln -sfn /usr/bin/python3 /home/builder/gamebox/firmware/.typecheck/bin/python3'

step "install (first run)"
install_log=$(install_sh 2>&1) || { echo "$install_log"; exit 1; }
echo "$install_log"
check "the installer's doctor checks the service's own state folder, and advises no chown" \
    sh -c "! printf '%s' \"\$1\" | grep -q -e 'chown' -e 'not writable'" _ "$install_log"
check "the config is readable by root and gamebox only (it may hold the broker password)" \
    test "$(in_root stat -c %a:%U:%G /etc/gamebox/box.toml)" = 640:root:gamebox
check "the installed scripts keep their execute bit (doctor.sh is run by path)" in_root test -x /opt/gamebox/systemd/doctor.sh
check "a virtualenv in the clone is not copied" in_root test ! -e /opt/gamebox/firmware/.typecheck
check "no symbolic link in /opt/gamebox" in_root sh -c '! find /opt/gamebox -path /opt/gamebox/.venv -prune -o -type l -print | grep -q .'
check "the clone's owner cannot write the installed code" \
    as_builder sh -c '! find /opt/gamebox -writable | grep -q .'
check "the service user cannot write the installed code" \
    in_root runuser -u gamebox -- sh -c '! find /opt/gamebox -writable | grep -q .'
check "everything in /opt/gamebox is root's, with no group or other write bit" \
    in_root sh -c '! find /opt/gamebox \( ! -user root -o ! -group root -o -perm /022 \) ! -type l | grep -q .'
check "the gamebox user is a system user without a login shell" \
    in_root sh -c 'getent passwd gamebox | grep -q ":/var/lib/gamebox:/usr/sbin/nologin$"'
groups_of_gamebox() { in_root id -nG gamebox | tr ' ' '\n' | sort | paste -sd' ' -; }
check "groups follow the pi-reference profile: audio gpio spi, no input or dialout" \
    test "$(groups_of_gamebox)" = "audio gamebox gpio spi"
check "the unit, the power-off rule and the drivers to load at boot are in place" \
    in_root test -f /etc/systemd/system/gamebox.service -a -f /etc/polkit-1/rules.d/50-gamebox-power-off.rules \
    -a -f /etc/modules-load.d/gamebox.conf
check "the service was enabled and started" \
    in_root sh -c 'grep -qx "systemctl enable gamebox.service" /var/log/systemctl.log &&
        grep -qx "systemctl start gamebox.service" /var/log/systemctl.log'
check "the service's Python has the Pi libraries (RPi.GPIO, spidev, evdev compiled here)" \
    in_root /opt/gamebox/.venv/bin/python -c 'import lgpio, gpiozero, spidev, evdev, RPi, serial, adafruit_pn532, neopixel_spi'

step "lgpio as the service user: in / (the old unit) and in the unit's runtime directory"
in_root install -d -o gamebox -g gamebox -m 700 /run/gamebox  # what RuntimeDirectory= makes
check "import lgpio fails in / as gamebox (the fault the unit fixes)" \
    in_root runuser -u gamebox -- sh -c 'cd / && ! /opt/gamebox/.venv/bin/python -c "import lgpio" 2>/dev/null'
check "import lgpio works in /run/gamebox with LG_WD, its pipe there" \
    in_root runuser -u gamebox -- sh -c 'cd /run/gamebox && LG_WD=/run/gamebox /opt/gamebox/.venv/bin/python -c "import lgpio" && test -p .lgd-nfy0'

step "the power-off rule, through a real polkitd"
mkdir -p "$root/run/dbus"
bus_pid=$(chroot "$root" dbus-daemon --system --fork --print-pid)
chroot "$root" /usr/lib/polkit-1/polkitd --no-debug >/dev/null 2>&1 &
polkit_pid=$!
# pkcheck asks polkitd about this very process: as gamebox it may power off, and nothing else.
polkit_says() { in_root runuser -u "$1" -- sh -c "pkcheck --action-id $2 --process \$\$ >/dev/null 2>&1"; }
refused() { ! polkit_says "$@"; }
for _ in $(seq 20); do polkit_says gamebox org.freedesktop.login1.power-off && break; sleep 0.5; done
check "gamebox may power off" polkit_says gamebox org.freedesktop.login1.power-off
check "gamebox may power off with other sessions open" polkit_says gamebox org.freedesktop.login1.power-off-multiple-sessions
check "gamebox may not reboot" refused gamebox org.freedesktop.login1.reboot
check "gamebox may not override an inhibitor" refused gamebox org.freedesktop.login1.power-off-ignore-inhibit
check "another user may not power off" refused builder org.freedesktop.login1.power-off
kill "$polkit_pid" "$bus_pid"
polkit_pid=""
bus_pid=""

step "install again: nothing changes, the config is kept"
printf 'profile = "pi-reference"\nlanguage = "de"\n' > "$root/etc/gamebox/box.toml"
before=$(snapshot)
install_sh
after=$(snapshot)
check "a second run changes nothing" test "$before" = "$after"
check "the edited config is kept" grep -qx 'language = "de"' "$root/etc/gamebox/box.toml"
check "the running service was not restarted" \
    in_root sh -c '! grep -qx "systemctl restart gamebox.service" /var/log/systemctl.log'

step "another profile: the groups follow it"
cp "$src/tests/systemd/kiosk.toml" "$root/etc/gamebox/kiosk.toml"
printf 'profile = "/etc/gamebox/kiosk.toml"\n[network]\nenabled = true\nbroker = "teacher-laptop.local"\n' \
    > "$root/etc/gamebox/box.toml"
install_sh
check "groups now audio dialout input, gpio and spi dropped" \
    test "$(groups_of_gamebox)" = "audio dialout gamebox input"
check "the changed service was restarted" \
    in_root grep -qx "systemctl restart gamebox.service" /var/log/systemctl.log
check "a station ([network] enabled) gets the network drop-in" \
    cmp -s "$src/systemd/network.conf" "$root/etc/systemd/system/gamebox.service.d/network.conf"

step "install --home: the family's page"
logged() { grep -cx "systemctl $1" "$root/var/log/systemctl.log" || true; }  # how often that call was made
restarts=$(logged "restart gamebox.service")
install_sh --home
home_installed() {
    cmp -s "$src/systemd/gamebox-home.service" "$root/etc/systemd/system/gamebox-home.service" \
        && cmp -s "$src/systemd/home.conf" "$root/etc/systemd/system/gamebox.service.d/home.conf"
}
check "gamebox-home.service and the box's home drop-in are installed as the clone has them" home_installed
check "the page's service was enabled and started, and the box restarted with its drop-in" \
    test "$(logged "enable gamebox-home.service") $(logged "restart gamebox-home.service") $(logged "restart gamebox.service")" \
    = "1 1 $((restarts + 1))"
check "the box may keep the page's settings: box.toml 0660 and /etc/gamebox 0770, root:gamebox" \
    test "$(in_root stat -c %a:%U:%G /etc/gamebox/box.toml /etc/gamebox | paste -sd' ' -)" = "660:root:gamebox 770:root:gamebox"
unit_says() {  # unit_says FILE LINE...: every LINE is a line of FILE
    local file=$1 line
    shift
    for line in "$@"; do grep -qxF -- "$line" "$file" || { echo "missing: $line"; return 1; }; done
}
check "the installed page's sandbox: a user of its own in the gamebox group, no file of the box, no capability" \
    unit_says "$root/etc/systemd/system/gamebox-home.service" DynamicUser=yes SupplementaryGroups=gamebox \
    "InaccessiblePaths=-/var/lib/gamebox -/etc/gamebox" CapabilityBoundingSet= IPAddressDeny=any ProtectSystem=strict
exposure=$(systemd-analyze security --offline=yes --root="$root" gamebox-home.service 2>&1 | tail -1)
echo "$exposure"
level=$(printf '%s' "$exposure" | sed -n 's/.*gamebox-home.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze rates the installed page's unit at most 1.5" awk -v l="${level:-99}" 'BEGIN { exit !(l <= 1.5) }'
# The page as its unit starts it (the installed code and venv, no privilege, in the gamebox group), on a free
# port of this machine's loopback: it answers with the pairing page, and with nothing else to an unpaired phone.
port=$(in_root /opt/gamebox/.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chroot "$root" setpriv --reuid=nobody --regid=nogroup --groups=gamebox --inh-caps=-all \
    env -i PATH=/usr/bin:/bin /opt/gamebox/.venv/bin/gamebox home --listen 127.0.0.1 --http-port "$port" \
    --socket /run/gamebox/control.sock > "$root/tmp/home.log" 2>&1 &
page_pid=$!
page_says() {  # page_says PATH: the status of a GET from the page and its body, on one line (0: no answer)
    in_root /opt/gamebox/.venv/bin/python - "http://127.0.0.1:$port$1" <<'PY'
import sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as answer:
        print(answer.status, answer.read().decode().replace("\n", " "))
except urllib.error.HTTPError as refused:
    print(refused.code, refused.read().decode().replace("\n", " "))
except OSError:
    print(0)
PY
}
for _ in $(seq 60); do [ "$(page_says / | cut -d' ' -f1)" = 200 ] && break; sleep 0.5; done
answers() { page_says "$1" | grep -q "^$2 .*$3"; }  # answers PATH STATUS TEXT
check "the installed page answers with the pairing page" answers / 200 "Pair this phone"
check "the installed page refuses an unpaired phone anything else" answers /api/view 403 "pair this phone first"
kill "$page_pid"
wait "$page_pid" 2>/dev/null || true
page_pid=""
before=$(snapshot)
install_sh
check "a plain run after --home keeps the page and changes nothing" test "$before" = "$(snapshot)"

step "uninstall"
install_sh --uninstall
check "code, units, drop-ins and rule removed" \
    in_root sh -c '! test -e /opt/gamebox -o -e /etc/systemd/system/gamebox.service -o -e /etc/polkit-1/rules.d/50-gamebox-power-off.rules -o -e /etc/systemd/system/gamebox.service.d/network.conf -o -e /etc/systemd/system/gamebox-home.service -o -e /etc/systemd/system/gamebox.service.d/home.conf'
check "the services were stopped and disabled" \
    in_root sh -c 'grep -qx "systemctl disable --now gamebox.service" /var/log/systemctl.log &&
        grep -qx "systemctl disable --now gamebox-home.service" /var/log/systemctl.log'
check "config kept" in_root test -f /etc/gamebox/box.toml

printf '\n%s\n' "test-install.sh: $failures failed"
[ "$failures" = 0 ]
