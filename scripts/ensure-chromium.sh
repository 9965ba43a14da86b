#!/bin/sh
# The browser test (test/e2e/console.test.ts) drives Debian's Chromium through playwright-core
# (never a downloaded browser). Run before `npm test`: installs the chromium package when it
# is missing, and does nothing when it is there. It never fails the run itself: if it cannot
# install, the browser test fails and names the missing executable.
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != "0" ]; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get as root is not available; install chromium to run the console test" >&2
  exit 0
fi
echo "ensure-chromium: installing chromium (for the console's browser test)" >&2
export DEBIAN_FRONTEND=noninteractive
# The package lists may be stale or absent on a fresh machine: update only if the first try fails.
apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
  || { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; } \
  || echo "ensure-chromium: could not install chromium; the console test will fail" >&2
exit 0
