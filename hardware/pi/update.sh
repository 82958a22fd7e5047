#!/bin/sh
# Update an installed table to a new checkout, keeping data and configuration.
# Run from the new checkout:  sudo hardware/pi/update.sh
set -eu
[ "$(id -u)" = 0 ] || { echo "run as root: sudo $0"; exit 1; }
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
DEST=/opt/knapp
# Validate the table's configuration with the NEW code before switching.
CHECK_VENV=$(mktemp -d)
trap 'rm -rf "$CHECK_VENV"' EXIT
sh "$SRC/hardware/pi/pip-install.sh" "$CHECK_VENV" "$SRC"
"$CHECK_VENV/bin/knapp" config check /etc/knapp/table.toml
# Back up the database (a consistent online copy), then switch.
sqlite3 /var/lib/knapp/knapp.db ".backup /var/lib/knapp/knapp-before-update.db"
systemctl stop knapp.service
rsync -a --delete --exclude .venv "$SRC/" "$DEST/"
sh "$DEST/hardware/pi/pip-install.sh" "$DEST/.venv" "$DEST"
cp "$DEST/hardware/pi/knapp.service" /etc/systemd/system/knapp.service
systemctl daemon-reload
systemctl start knapp.service
systemctl is-active knapp.service && echo "updated; the open match resumed where it was"
