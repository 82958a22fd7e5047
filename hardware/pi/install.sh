#!/bin/sh
# Install the table on Raspberry Pi OS (Bookworm or newer, labwc desktop).
# Run from a checkout of the repository:  sudo hardware/pi/install.sh
set -eu
[ "$(id -u)" = 0 ] || { echo "run as root: sudo $0"; exit 1; }
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
DEST=/opt/knapp
DESKTOP_USER="${SUDO_USER:-pi}"

echo "== packages"
apt-get update -qq
# python3-picamera2 comes from Raspberry Pi OS and is built against Debian's numpy,
# so the venv sees system site packages and pip-install.sh pins numpy and OpenCV.
apt-get install -y -qq python3-venv python3-numpy python3-picamera2 python3-lgpio chromium curl \
    sqlite3 rsync

echo "== service user and data directory"
id knapp >/dev/null 2>&1 || useradd --system --home /var/lib/knapp --shell /usr/sbin/nologin knapp
for g in gpio dialout video; do getent group "$g" >/dev/null && usermod -aG "$g" knapp; done
mkdir -p /var/lib/knapp /etc/knapp
chown knapp:knapp /var/lib/knapp
chmod 0750 /var/lib/knapp

echo "== code into $DEST"
mkdir -p "$DEST"
cp -a "$SRC/." "$DEST/"
sh "$DEST/hardware/pi/pip-install.sh" "$DEST/.venv" "$DEST"

echo "== configuration"
if [ ! -f /etc/knapp/table.toml ]; then
    cp "$DEST/hardware/pi/table.toml" /etc/knapp/table.toml
    echo "   wrote /etc/knapp/table.toml: edit seats, pads and camera, then"
    echo "   check it with: $DEST/.venv/bin/knapp config check /etc/knapp/table.toml"
fi

echo "== systemd"
cp "$DEST/hardware/pi/knapp.service" /etc/systemd/system/knapp.service
systemctl daemon-reload
systemctl enable knapp.service
systemctl restart knapp.service

echo "== kiosk screen for $DESKTOP_USER"
HOME_DIR="$(getent passwd "$DESKTOP_USER" | cut -d: -f6)"
mkdir -p "$HOME_DIR/.config/labwc"
AUTOSTART="$HOME_DIR/.config/labwc/autostart"
grep -q knapp "$AUTOSTART" 2>/dev/null || echo "$DEST/hardware/pi/kiosk.sh &" >> "$AUTOSTART"
chown -R "$DESKTOP_USER" "$HOME_DIR/.config/labwc"
# Screen blanking off (raspi-config's non-interactive switch; 1 = disable).
command -v raspi-config >/dev/null && raspi-config nonint do_blanking 1 || true

echo "== done. The service: systemctl status knapp; the screen starts at the next login."
echo "   The table PIN (staff log in with it once per device) is shown on the Pi's own"
echo "   screen until first used, and in: journalctl -u knapp | grep PIN"
