#!/bin/sh
# The table screen: Chromium in kiosk mode on the Pi's HDMI display (labwc).
# Started from ~/.config/labwc/autostart (see install.sh).
#
# Chromium under labwc drops out of fullscreen after the HDMI screen goes off
# and on (RPi-Distro/chromium#54), so a watcher restarts the browser whenever
# the DRM connector reports a hotplug; the page reconnects and resyncs itself.
# The Pi's own browser is the table screen: the service hands its credential (an
# HttpOnly cookie) only to a browser on this machine, so keep the URL on loopback.
URL="${KNAPP_URL:-http://127.0.0.1:8000/?kiosk=1}"
PROFILE="${XDG_RUNTIME_DIR:-/tmp}/knapp-kiosk-profile"

# Wait for the service (it signals readiness to systemd; the health page answers then).
until curl -fsS "${URL%%\?*}api/health" >/dev/null 2>&1; do sleep 1; done

start_browser() {
    chromium --kiosk --noerrdialogs --disable-infobars --no-first-run \
        --ozone-platform=wayland --enable-features=OverlayScrollbar --start-maximized \
        --autoplay-policy=no-user-gesture-required \
        --disable-session-crashed-bubble --check-for-update-interval=31536000 \
        --user-data-dir="$PROFILE" "$URL" &
    BROWSER=$!
}

start_browser
udevadm monitor --udev --subsystem-match=drm | while read -r line; do
    case "$line" in
        *change*)
            sleep 2   # let the display settle before going fullscreen again
            kill "$BROWSER" 2>/dev/null
            wait "$BROWSER" 2>/dev/null
            start_browser
            ;;
    esac
done
