#!/usr/bin/env bash
# The browser tests drive Debian's chromium package at /usr/bin/chromium (never a downloaded
# browser). Installs it with apt-get when it is missing; needs root or sudo.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version 2>/dev/null || true
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version 2>/dev/null
