#!/bin/sh
# Measures what the published CI gate (docs/ci.md) detects on this machine,
# and fails unless it is calibrated: UNCHANGED+1 runs of PROFILE (default
# 21 of profiles/smoke.yaml, each `rlbench run --repeat REPEAT`), one after
# the other, each compared with the one before by `rlbench compare` at its
# defaults, must raise no alarm (20 of 20 unchanged pairs clean); and a run
# with ALG's script made each of FACTORS times slower on the server
# (tools/slowscript measures the factor), compared with every unchanged
# run, must be caught on ALG's relative.server_cost at 1.5x in every
# comparison. It prints, per factor, how many comparisons caught it, and
# the smallest slowdown caught in every one: the slowdown the gate detects
# here. The slowed runs go between the unchanged ones, so both meet the
# machine as it comes. RUNS=DIR keeps (and, when DIR holds them from an
# earlier call, reuses) the runs; only the comparisons are made again.
set -eu
cd "$(dirname "$0")/.."
PROFILE=${PROFILE:-profiles/smoke.yaml}
ALG=${ALG:-token_bucket}
UNCHANGED=${UNCHANGED:-20}
REPEAT=${REPEAT:-3}
FACTORS=${FACTORS:-1.1 1.3 1.5 2}
MUST=${MUST:-1.5}
RETRIES=${RETRIES:-2}
repo=$(pwd)
out=${RUNS:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	keep=""
else
	mkdir -p "$out"
	keep=1
fi
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
	[ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT INT TERM
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "gate-calibrate: $((UNCHANGED + 1)) unchanged runs of $PROFILE (--repeat $REPEAT), $ALG slowed ${FACTORS}x; load at start: $(load)"
# The unchanged binary is copied, so that rebuilding this tree meanwhile
# changes no run; the comparisons use this tree's.
make build >/dev/null
[ -x "$out/rlbench-unchanged" ] || cp bin/rlbench "$out/rlbench-unchanged"

# One binary per factor, built from a copy of this tree with the slowed
# script, calibrated before any run starts.
for f in $FACTORS; do
	[ -x "$out/rlbench-$f" ] && continue
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree"
	git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$tmp/tree"
	go run ./tools/slowscript -algorithm "$ALG" -factor "$f" -o "$tmp/tree/algorithms/$ALG.lua" 2>"$out/slowscript-$f.txt"
	head -1 "$tmp/tree/algorithms/$ALG.lua" >"$out/factor-$f.txt"
	(cd "$tmp/tree" && go build -o "$out/rlbench-$f" ./cmd/rlbench)
done

# run NAME BINARY: one run of the published workflow's first step. A run
# whose own verdict is inconclusive (a machine so busy that rlbench sent too
# few of its requests) is no comparison; it is run again, at most twice, and
# counted. A run that fails its own verdict stops the calibration.
run() {
	[ -f "$out/$1/done" ] && return 0
	tries=0
	while :; do
		rm -rf "${out:?}/$1"
		mkdir -p "$out/$1"
		start=$(date +%s)
		code=0
		timeout 600 "$2" run --quiet --no-report --repeat "$REPEAT" --out "$out/$1" "$PROFILE" >"$out/$1/run.txt" 2>&1 || code=$?
		[ "$code" = 0 ] && break
		if [ "$code" = 4 ] && [ "$tries" -lt "$RETRIES" ]; then
			tries=$((tries + 1))
			echo "gate-calibrate: $1: inconclusive on a busy machine (load $(load)), run again: $(grep -m1 '^verdict' "$out/$1/run.txt")"
			echo "$1" >>"$out/inconclusive.txt"
			continue
		fi
		cat "$out/$1/run.txt"
		echo "gate-calibrate: FAIL: run $1 did not pass its own verdict (exit $code)" >&2
		exit 1
	done
	echo "$(($(date +%s) - start))s load $(load)" >"$out/$1/done"
	echo "gate-calibrate: $1: $(cat "$out/$1/done")"
}

# Spread the slowed runs among the unchanged ones.
nf=$(echo "$FACTORS" | wc -w)
every=$(((UNCHANGED + 1) / (nf + 1)))
[ "$every" -ge 1 ] || every=1
set -- $FACTORS
for i in $(seq 0 "$UNCHANGED"); do
	run "u$i" "$out/rlbench-unchanged"
	if [ "$i" -gt 0 ] && [ $((i % every)) = 0 ] && [ $# -gt 0 ]; then
		run "x$1" "$out/rlbench-$1"
		shift
	fi
done
for f in "$@"; do run "x$f" "$out/rlbench-$f"; done
echo "gate-calibrate: runs done; load: $(load)"

# The published workflow's second step: rlbench compare at its defaults.
# compare BASE CURRENT FILE: its exit code; its output in FILE.
compare() {
	code=0
	./bin/rlbench compare --all "$out/$1"/*/result.json "$out/$2"/*/result.json >"$3" 2>&1 || code=$?
	return "$code"
}
mkdir -p "$out/compare"
alarms=0
for i in $(seq 1 "$UNCHANGED"); do
	f="$out/compare/u$((i - 1))-u$i.txt"
	if ! compare "u$((i - 1))" "u$i" "$f"; then
		cat "$f"
		echo "gate-calibrate: false alarm: u$((i - 1)) -> u$i, both unchanged" >&2
		alarms=$((alarms + 1))
	fi
done
echo "gate-calibrate: unchanged: $((UNCHANGED - alarms)) of $UNCHANGED pairs clean"

# Each slowed run against every unchanged one: caught when the comparison
# regressed on ALG's server cost.
status=0
smallest=""
for f in $FACTORS; do
	caught=0
	total=0
	ratios=""
	for i in $(seq 0 "$UNCHANGED"); do
		g="$out/compare/u$i-x$f.txt"
		compare "u$i" "x$f" "$g" || true
		total=$((total + 1))
		line=$(grep -E "^$ALG/\* +relative.server_cost " "$g" || true)
		ratios="$ratios $(echo "$line" | awk '{print $5}')"
		if echo "$line" | grep -q REGRESSED; then
			caught=$((caught + 1))
		fi
	done
	measured=$(sed -n 's/.* \([0-9.]*\)x the original server time per call/\1/p' "$out/factor-$f.txt")
	median=$(echo "$ratios" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	echo "gate-calibrate: $ALG ${f}x slower (tools/slowscript measured ${measured}x): caught in $caught of $total comparisons (median ratio $median)"
	if [ "$caught" = "$total" ] && [ -z "$smallest" ]; then
		smallest=$f
	fi
	if [ "$f" = "$MUST" ] && [ "$caught" != "$total" ]; then
		status=1
		echo "gate-calibrate: FAIL: a script ${f}x slower was not caught every time" >&2
	fi
done
if [ -n "$smallest" ]; then
	echo "gate-calibrate: detects: $ALG's script ${smallest}x slower or more, in every comparison (${FACTORS}x tried)"
else
	echo "gate-calibrate: detects: none of ${FACTORS}x in every comparison"
fi
[ -f "$out/inconclusive.txt" ] && echo "gate-calibrate: runs inconclusive on the busy machine and run again: $(wc -l <"$out/inconclusive.txt") ($(tr '\n' ' ' <"$out/inconclusive.txt"))"
echo "gate-calibrate: load at the end: $(load)"
[ "$alarms" = 0 ] || status=1
exit "$status"
