#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (never a downloaded browser). Installs it when it is
# missing and this user can (root, or passwordless sudo); otherwise stops with what to run.
set -euo pipefail
browser="${LOOPSCOPE_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$browser" ]; then
  exit 0
fi
echo "Chromium is not at $browser; the browser tests need it. Installing Debian's chromium package…" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null && command -v apt-get >/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
else
  echo "Cannot install it here: run 'sudo apt-get install -y chromium' (Debian/Ubuntu), or set LOOPSCOPE_CHROMIUM to a Chromium binary." >&2
  exit 1
fi
[ -x "$browser" ] || { echo "chromium was installed but $browser is not there; set LOOPSCOPE_CHROMIUM" >&2; exit 1; }
