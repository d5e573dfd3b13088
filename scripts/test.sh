#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run the whole suite.
# Used verbatim by CI (.ci/run) and given in the README.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium).
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# Debian's Node.js for the JavaScript example bot (examples/protocol_bot.js): its bot-check and the
# tests that a tournament with it plays the same games on every backend (tests/research).
if ! command -v node >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs >/dev/null
fi

# Debian's Caddy for the TLS test of docs/deploy.md (tests/deploy): only the binary is needed. On a
# machine with systemd the package starts its own caddy.service on port 80: stop and disable that one.
if ! command -v caddy >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq caddy >/dev/null
  if [ -d /run/systemd/system ]; then $SUDO systemctl disable --now caddy.service >/dev/null 2>&1 || true; fi
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
