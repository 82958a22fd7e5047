#!/bin/sh
# Set up the café server (a spare Raspberry Pi or any Debian 12 box): Mosquitto with
# TLS, accounts and the ACL, PostgreSQL, and the café service.
# Run from a checkout:  sudo hardware/fleet/install-cafe.sh CAFE_HOST TABLE_ID...
#   CAFE_HOST: the name the tables reach this machine by (in the broker's certificate)
#   TABLE_ID:  one per table (a-z, 0-9 and '-'); run again to add tables.
set -eu
[ "$(id -u)" = 0 ] || { echo "run as root: sudo $0 CAFE_HOST TABLE_ID..."; exit 1; }
[ $# -ge 2 ] || { echo "usage: $0 CAFE_HOST TABLE_ID..."; exit 2; }
CAFE_HOST=$1; shift
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
DEST=/opt/knapp
SECRETS=/etc/knapp/fleet
CERTS=/etc/mosquitto/certs

echo "== packages"
apt-get update -qq
apt-get install -y -qq python3-venv mosquitto mosquitto-clients postgresql openssl rsync

echo "== service user"
id knapp >/dev/null 2>&1 || useradd --system --home /var/lib/knapp --shell /usr/sbin/nologin knapp
mkdir -p /etc/knapp "$SECRETS" "$CERTS"
chmod 0750 "$SECRETS"
chown root:knapp "$SECRETS"

echo "== code into $DEST (with the fleet's libraries)"
mkdir -p "$DEST"
rsync -a --exclude .venv --exclude .git "$SRC/" "$DEST/"
sh "$DEST/hardware/pi/pip-install.sh" "$DEST/.venv" "$DEST[fleet]"
KNAPP="$DEST/.venv/bin/knapp"

echo "== PostgreSQL: role and database knapp (peer authentication over the socket)"
runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_roles WHERE rolname='knapp'" | grep -q 1 \
    || runuser -u postgres -- createuser knapp
runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname='knapp'" | grep -q 1 \
    || runuser -u postgres -- createdb -O knapp knapp

echo "== TLS: the café's own CA and the broker's certificate for $CAFE_HOST"
if [ ! -f "$CERTS/ca.pem" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -subj "/CN=Knapp café CA" -keyout "$CERTS/ca.key" -out "$CERTS/ca.pem"
fi
if [ ! -f "$CERTS/broker.pem" ]; then
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$CAFE_HOST" \
        -keyout "$CERTS/broker.key" -out "$CERTS/broker.csr"
    printf 'subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1\n' "$CAFE_HOST" > "$CERTS/san.ext"
    openssl x509 -req -in "$CERTS/broker.csr" -CA "$CERTS/ca.pem" -CAkey "$CERTS/ca.key" \
        -CAcreateserial -days 1825 -extfile "$CERTS/san.ext" -out "$CERTS/broker.pem"
fi
chown mosquitto "$CERTS/broker.key"
chmod 0600 "$CERTS/ca.key" "$CERTS/broker.key"
cp "$CERTS/ca.pem" "$SECRETS/ca.pem"

echo "== broker: listener 8883 (TLS), no anonymous access, the café's ACL"
"$KNAPP" fleet broker-config --out /etc/mosquitto/conf.d --etc /etc/mosquitto
mv /etc/mosquitto/conf.d/acl /etc/mosquitto/acl
touch /etc/mosquitto/knapp.passwd
account() {  # account NAME: a password for NAME unless it has one; kept in $SECRETS/NAME.password
    if [ ! -s "$SECRETS/$1.password" ]; then
        (umask 077; openssl rand -base64 24 > "$SECRETS/$1.password")
    fi
    mosquitto_passwd -b /etc/mosquitto/knapp.passwd "$1" "$(cat "$SECRETS/$1.password")"
}
account cafe
chown root:knapp "$SECRETS/cafe.password"
chmod 0640 "$SECRETS/cafe.password"
for table in "$@"; do
    account "$table"
    echo "   table $table: copy $SECRETS/$table.password to that Pi's /etc/knapp/fleet.password"
done
chown mosquitto /etc/mosquitto/knapp.passwd /etc/mosquitto/acl
chmod 0600 /etc/mosquitto/knapp.passwd
systemctl restart mosquitto

echo "== the café service"
[ -f /etc/knapp/cafe.toml ] || cp "$DEST/hardware/fleet/cafe.toml" /etc/knapp/cafe.toml
# The file holds the staff password's hash: readable by the service, not by everyone.
chown root:knapp /etc/knapp/cafe.toml
chmod 0640 /etc/knapp/cafe.toml
if ! grep -q '^staff_password' /etc/knapp/cafe.toml; then
    # A first staff password, shown once; only its scrypt hash is kept.
    STAFF="$(openssl rand -base64 12)"
    LINE="$(printf '%s\n' "$STAFF" | "$KNAPP" fleet password)"
    sed -i "s|^\[cafe\]\$|[cafe]\n$LINE\nallowed_hosts = [\"$CAFE_HOST\"]|" /etc/knapp/cafe.toml
    echo "   staff password for the staff pages: $STAFF (write it down; README.md says how to change it)"
fi
cp "$DEST/hardware/fleet/knapp-fleet.service" /etc/systemd/system/knapp-fleet.service
systemctl daemon-reload
systemctl enable knapp-fleet.service
systemctl restart knapp-fleet.service

echo "== done. Staff pages: http://$CAFE_HOST:8080/   Service: systemctl status knapp-fleet"
echo "   Each table: copy $SECRETS/ca.pem to its /etc/knapp/cafe-ca.pem and its password"
echo "   file, then add hardware/fleet/table-fleet.toml's [fleet] section (README.md)."
