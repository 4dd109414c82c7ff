#!/usr/bin/env bash
# Install gamebox on a Raspberry Pi (Raspberry Pi OS, run as root from a clone of the repository).
# Enables SPI and I2C, creates the gamebox user, installs into /opt/gamebox with the Pi drivers,
# writes a default /etc/gamebox/box.toml if there is none, and starts the service.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then echo "install.sh: run as root (sudo $0)" >&2; exit 1; fi

if command -v raspi-config >/dev/null; then
    raspi-config nonint do_spi 0
    raspi-config nonint do_i2c 0
fi
apt-get install -y python3-venv python3-dev liblgpio-dev swig libsdl2-mixer-2.0-0

id gamebox >/dev/null 2>&1 || useradd --system --home /var/lib/gamebox --shell /usr/sbin/nologin gamebox
for group in spi i2c gpio audio input dialout; do
    getent group "$group" >/dev/null && usermod -aG "$group" gamebox
done

mkdir -p /opt/gamebox
rsync -a --delete --exclude .venv --exclude .git "$src"/ /opt/gamebox/
python3 -m venv /opt/gamebox/.venv
/opt/gamebox/.venv/bin/pip install -q -e '/opt/gamebox[pi]'

mkdir -p /etc/gamebox
[ -f /etc/gamebox/box.toml ] || cat > /etc/gamebox/box.toml <<'TOML'
# gamebox configuration: every key is optional (see README).
profile = "pi-reference"
language = "en"
volume = 0.6
volume_max = 0.8
TOML

install -m 644 "$src/systemd/gamebox.service" /etc/systemd/system/gamebox.service
systemctl daemon-reload
systemctl enable --now gamebox.service
/opt/gamebox/.venv/bin/gamebox doctor --profile pi-reference || true
echo "gamebox installed: journalctl -u gamebox -f to follow it"
