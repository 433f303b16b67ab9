#!/bin/sh
# Shows that the regression gate is calibrated rather than lenient:
#   1. make gate passes while two other processes keep both CPUs busy;
#   2. on the same busy machine, the gate fails when one limiter's script is
#      made 1.5 times slower (tools/slowscript measures the factor), and it
#      fails on that limiter's server cost, judged over all its runs.
# Widening the tolerances until a busy machine passes would let the slower
# script pass too; this script fails if either half does not hold.
set -eu
cd "$(dirname "$0")/.."
ALG=${ALG:-token_bucket}
FACTOR=${FACTOR:-1.5}
repo=$(pwd)
tmp=$(mktemp -d)
hogs=""
cleanup() {
	for pid in $hogs; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# A copy of this tree with the slowed script, calibrated before the machine
# gets busy. It is compared with this tree's baseline.
git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$tmp"
go run ./tools/slowscript -algorithm "$ALG" -factor "$FACTOR" -o "$tmp/algorithms/$ALG.lua"

# Two busy loops, one per CPU, for at most 15 minutes.
for _ in 1 2; do
	timeout 900 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
echo "gate-under-load: two busy loops running (pids$hogs); load: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "gate-under-load: make gate on the busy machine"
if ! make gate GATE_OUT="$tmp/gate-honest"; then
	echo "gate-under-load: FAIL: the gate failed an unchanged tree on a busy machine" >&2
	exit 1
fi

echo "gate-under-load: make gate with $ALG's script ${FACTOR}x slower, on the busy machine"
if make -C "$tmp" gate BASELINE="$repo/results/baselines/smoke.json" GATE_OUT="$tmp/gate-slow" >"$tmp/slow.txt" 2>&1; then
	cat "$tmp/slow.txt"
	echo "gate-under-load: FAIL: the gate passed a script ${FACTOR}x slower" >&2
	exit 1
fi
if ! grep -E "^$ALG/\* +relative.server_cost .*REGRESSED" "$tmp/slow.txt"; then
	cat "$tmp/slow.txt"
	echo "gate-under-load: FAIL: the gate failed, but not on $ALG's server cost" >&2
	exit 1
fi
echo "gate-under-load: ok: the busy machine passes, the ${FACTOR}x slower $ALG does not (load: $(cut -d' ' -f1-3 /proc/loadavg))"
