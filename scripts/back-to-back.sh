#!/bin/sh
# Shows that single runs compare clean with each other: N back-to-back runs
# of PROFILE (default 5 of profiles/smoke.yaml), each compared with every
# other both ways by rlbench compare at its default tolerances; first on the
# machine as it is, then while two busy loops keep both CPUs busy. Fails if
# any comparison is not clean. The server cost ratio, its quartiles and the
# spread-derived tolerance are in each run's result.json and each
# comparison's output, kept under OUT (default: a temporary directory).
set -eu
cd "$(dirname "$0")/.."
N=${N:-5}
PROFILE=${PROFILE:-profiles/smoke.yaml}
out=${OUT:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	keep=""
else
	mkdir -p "$out"
	keep=1
fi
hogs=""
cleanup() {
	for pid in $hogs; do kill "$pid" 2>/dev/null || true; done
	[ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT INT TERM
make build >/dev/null

# series NAME: N runs one after the other, then every ordered pair compared.
series() {
	failed=0
	for i in $(seq 1 "$N"); do
		if ! ./bin/rlbench run --quiet --no-report --out "$out/$1/$i" "$PROFILE" >"$out/$1/run-$i.txt" 2>&1; then
			cat "$out/$1/run-$i.txt"
			echo "back-to-back: FAIL: $1 run $i did not pass" >&2
			return 1
		fi
	done
	for i in $(seq 1 "$N"); do
		for j in $(seq 1 "$N"); do
			[ "$i" != "$j" ] || continue
			if ! ./bin/rlbench compare "$out/$1/$i"/*/result.json "$out/$1/$j"/*/result.json >"$out/$1/compare-$i-$j.txt" 2>&1; then
				cat "$out/$1/compare-$i-$j.txt"
				failed=$((failed + 1))
			fi
		done
	done
	echo "back-to-back: $1: $((N * (N - 1) - failed)) of $((N * (N - 1))) comparisons clean (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	[ "$failed" = 0 ]
}

mkdir -p "$out/quiet" "$out/busy"
status=0
series quiet || status=1

# Two busy loops, one per CPU, for at most 15 minutes.
for _ in 1 2; do
	timeout 900 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
series busy || status=1
[ "$status" = 0 ] || echo "back-to-back: FAIL: some single runs did not compare clean" >&2
exit "$status"
