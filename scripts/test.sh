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

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
python3 -m pytest "$@"
