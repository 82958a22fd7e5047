#!/bin/sh
# Install the controller into a venv the way a Raspberry Pi needs it.
#
# picamera2 and its libcamera bindings come only from apt, built against
# Debian's numpy 1.x; pip's newest OpenCV wheels (4.12+, 5.x) need numpy 2, and
# an unpinned `pip install` would put numpy 2 into the venv over Debian's and
# break picamera2 (raspberrypi/picamera2#1088, #1211). So every install and
# update goes through here: numpy pinned to the system's exact version and
# OpenCV kept below 4.12 (wheels that accept numpy 1.x; ArUco's ArucoDetector
# API exists from 4.7 on).
#
# Usage: pip-install.sh VENV SOURCE [--editable]
#        pip-install.sh --print-constraints
set -eu

constraints() {
    # The system numpy only matters where it exists (a laptop may have none).
    if NUMPY=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null); then
        echo "numpy==$NUMPY"
    fi
    echo "opencv-python-headless>=4.7,<4.12"
}

if [ "${1:-}" = "--print-constraints" ]; then
    constraints
    exit 0
fi
[ $# -ge 2 ] || { echo "usage: $0 VENV SOURCE [--editable]" >&2; exit 2; }
VENV=$1
SRC=$2
EDITABLE=${3:-}

[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
CONSTRAINTS=$(mktemp)
trap 'rm -f "$CONSTRAINTS"' EXIT
constraints > "$CONSTRAINTS"
echo "   pip constraints: $(tr '\n' ' ' < "$CONSTRAINTS")"
if [ "$EDITABLE" = "--editable" ]; then
    "$VENV/bin/pip" install -q --constraint "$CONSTRAINTS" -e "$SRC"
else
    "$VENV/bin/pip" install -q --constraint "$CONSTRAINTS" "$SRC"
fi

# picamera2 must still import next to the pip OpenCV: fail the install, not the first match.
"$VENV/bin/python" - <<'PY'
import importlib.util

import cv2
import numpy

assert hasattr(cv2, "aruco") and hasattr(cv2.aruco, "ArucoDetector"), "OpenCV without ArUco"
note = "not installed (USB webcam or no camera)"
if importlib.util.find_spec("picamera2") is not None:
    import picamera2  # noqa: F401 - from apt, through the system site packages
    note = "imports"
print(f"   ok: OpenCV {cv2.__version__}, numpy {numpy.__version__}, picamera2 {note}")
PY
