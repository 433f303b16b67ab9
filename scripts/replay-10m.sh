#!/bin/sh
# Replays a 10-million-line gzip access log, written by rlbench trace synth,
# at 10x through the fixed window, and holds rlbench to its memory bound:
# its peak resident set (the process's VmHWM, the whole run including the
# trace's first reading) under 256 MiB (the profile's threshold, exit 1
# otherwise). It prints how well the generator kept the trace's schedule.
# LINES, SPEED and RATE (the trace's mean requests a second) change it:
# LINES=200000 sh scripts/replay-10m.sh is a quick look.
set -eu
cd "$(dirname "$0")/.."
LINES=${LINES:-10000000}
SPEED=${SPEED:-10}
RATE=${RATE:-2000}
OUT=${OUT:-results/replay-10m}
mkdir -p "$OUT"
go build -o "$OUT/rlbench" ./cmd/rlbench

# The trace is written once for each size: its sidecar of parameters comes
# last, so a trace with one is whole.
name="trace-$LINES-$RATE-$SPEED.log.gz"
trace="$OUT/$name"
if [ ! -s "$trace.params.json" ]; then
	echo "replay-10m: writing $LINES lines at $RATE/s to $trace"
	"$OUT/rlbench" trace synth -o "$trace" --lines "$LINES" --duration 0 --rate "$RATE" \
		--sources 100000 --near 200 --limit 100 --window "$((60 * SPEED))s" --seed 1
fi
ls -l "$trace"

cat >"$OUT/replay.yaml" <<YAML
name: replay-10m
policy: {limit: 100, window: 1m}
algorithms: [fixed_window]
concurrency: 32
pipeline: auto
seed: 1
timeout: 10s    # a busy machine's hiccup is not a call whose outcome is unknown
scenarios:
  - name: access-log
    shape: replay
    trace: $name
    speed: ${SPEED}x
thresholds:
  - "*/* memory.rlbench_peak_rss_bytes < 256MiB"
YAML

echo "replay-10m: replaying at ${SPEED}x"
rm -rf "$OUT/run"
status=0
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v "$OUT/rlbench" run --no-report --out "$OUT/run" "$OUT/replay.yaml" 2>"$OUT/time.txt" || status=$?
	grep -E "Maximum resident|Elapsed|User time|System time" "$OUT/time.txt" || true
else
	"$OUT/rlbench" run --no-report --out "$OUT/run" "$OUT/replay.yaml" || status=$?
fi
exit "$status"
