#!/bin/sh
# Install the Knapp controller with the Pi camera on Raspberry Pi OS (Bookworm or later).
#
# picamera2 and its libcamera bindings come only from apt, built against Debian's
# numpy 1.x. pip's newest OpenCV wheels (4.12+, 5.x) need numpy 2, and mixing the
# two breaks picamera2 (raspberrypi/picamera2#1088, #1211). So: a venv that sees
# the system packages, with numpy pinned to Debian's own version and OpenCV
# pinned below 4.12 (wheels that still accept numpy 1.x; ArUco's new API is in
# every version from 4.7).
#
# Usage, from the repository root:  sh hardware/camera/install-pi.sh
set -eu

VENV=${VENV:-.venv}

if ! command -v apt-get >/dev/null; then
    echo "this script is for Raspberry Pi OS / Debian (apt-get not found)" >&2
    exit 1
fi

echo "== apt: picamera2, numpy, venv"
sudo apt-get update -qq
sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    python3-picamera2 python3-numpy python3-venv python3-pip

echo "== venv with system site packages, numpy and OpenCV pinned: $VENV"
sh "$(dirname "$0")/../pi/pip-install.sh" "$VENV" . --editable
echo "done: run '$VENV/bin/knapp calibrate --config table.toml' with all figures on their pads"
