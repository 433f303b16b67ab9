#!/bin/sh
# Installs the system packages rlbench's tests and `make run` use, when they
# are missing: redis-server, and redis-tools (redis-benchmark, redis-cli).
#
#   scripts/install-deps.sh            install if root with apt-get, else explain
#   scripts/install-deps.sh --require  fail when something cannot be installed
set -eu

require=0
[ "${1:-}" = "--require" ] && require=1

missing=""
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v redis-benchmark >/dev/null 2>&1 || missing="$missing redis-tools"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing" >&2
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
	exit 0
fi

echo "missing:$missing" >&2
echo "  install with: sudo apt-get install -y$missing" >&2
echo "  without redis-server, tests that need a real Redis are skipped and 'rlbench run' uses an embedded server" >&2
[ "$require" = 1 ] && exit 1
exit 0
