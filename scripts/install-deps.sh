#!/bin/sh
# Installs the system packages rlbench's tests and `make run` use, when they
# are missing: redis-server, and redis-tools (redis-benchmark, redis-cli);
# with --browser, chromium instead (the test that opens report.html in a
# headless browser).
#
#   scripts/install-deps.sh            install if root with apt-get, else explain
#   scripts/install-deps.sh --require  fail when something cannot be installed
#   scripts/install-deps.sh --browser  the same for chromium
set -eu

require=0
browser=0
for arg in "$@"; do
	case "$arg" in
	--require) require=1 ;;
	--browser) browser=1 ;;
	*) echo "usage: $0 [--require] [--browser]" >&2; exit 2 ;;
	esac
done

missing=""
if [ "$browser" = 1 ]; then
	command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
else
	command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
	command -v redis-benchmark >/dev/null 2>&1 || missing="$missing redis-tools"
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing" >&2
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
	exit 0
fi

echo "missing:$missing" >&2
echo "  install with: sudo apt-get install -y$missing" >&2
if [ "$browser" = 1 ]; then
	echo "  without chromium, the browser test of report.html is skipped" >&2
else
	echo "  without redis-server, tests that need a real Redis are skipped and 'rlbench run' uses an embedded server" >&2
fi
[ "$require" = 1 ] && exit 1
exit 0
