# rlbench: `make run` runs the boundary profile on a private redis-server,
# `make test` runs every check CI runs.

GO      ?= go
BIN     := bin/rlbench
PROFILE ?= profiles/boundary.yaml

# Every go command here builds with -trimpath: the build cache then keys
# compiled packages by their contents, not by the folder of the checkout,
# so a second checkout of the same code (a worktree, CI's clean clone)
# reuses them. A fresh clone's make test spent about 2 of its 5.5 minutes
# recompiling what an identical checkout had compiled minutes before; with
# -trimpath that is linking alone (35 s). Binaries name no local folder.
export GOFLAGS += -trimpath

.PHONY: all build run test test-integration soak gate gate-under-load gate-calibrate back-to-back baseline baseline-compare-all fmt-check vet bench bench-replay fuzz deps deps-browser clean

all: build

build:
	$(GO) build -buildvcs=true -o $(BIN) ./cmd/rlbench

## run: build and run PROFILE (default profiles/boundary.yaml) on a private redis-server
run: deps build
	./$(BIN) run $(PROFILE)

## test: gofmt check, go vet, and the race-enabled tests on a real redis-server
## (and the report.html test in headless chromium). Four packages at a time:
## many tests wait on timed traffic, and two at a time left a 2-core machine
## a third idle (go test took 5m06s, then 3m36s with four at a time).
## report/html draws its plots and page on one goroutine, where the race
## detector has nothing to find and makes the drawing 12 times slower (one
## render of the fixture: 27 s against 2.2 s), so its tests run without it,
## beside the others (make test-integration runs its cluster and skew
## renders with it)
## go vet runs beside the tests too: most of the tests' time is spent
## waiting on timed traffic, with a CPU to spare
HTML_PKG := ./report/html
test: deps deps-browser fmt-check
	@$(GO) vet ./... & vet=$$!; \
	$(GO) test $(HTML_PKG) & html=$$!; \
	$(GO) test -race -p 4 $$($(GO) list ./... | grep -v '/report/html$$'); rest=$$?; \
	wait $$html; html=$$?; \
	wait $$vet; vet=$$?; test $$vet -eq 0 || echo "go vet failed"; \
	test $$vet -eq 0 && test $$rest -eq 0 && test $$html -eq 0

## test-integration: the long integration suites (files tagged integration,
## tests named TestIntegration...): several rlbench processes, faults,
## clusters, the corpus of published limiters (fetched from their packages
## by scripts/corpus-fetch.sh); then the gate on a busy machine, and with a
## limiter script made 1.5 times slower (gate-under-load). The calibration
## of the CI workflow docs/ci.md publishes (about 25 runs of close to a
## minute each) and the ten-minute soak are runs of their own:
## make gate-calibrate, make soak. One package at a time (-p 1): the
## fault matrix and the corpus each judge whether a run could catch what it
## looks for, and side by side on 2 cores they took each other's CPU (the
## corpus's senders starved, inconclusive; a mutant's cell went unseen)
test-integration: deps
	$(GO) test -race -tags integration -p 1 -run 'TestIntegration' -timeout 30m ./...
	scripts/gate-under-load.sh

## soak: profiles/soak.yaml, ten minutes of steady traffic; its threshold
## holds rlbench's resident set, after the first minute, to within 10% of
## where it settled (memory_over_time.rlbench_rss.growth), and the live
## metrics are served meanwhile (on a free loopback port)
SOAK_OUT ?= results/soak
soak: deps build
	rm -rf $(SOAK_OUT)
	./$(BIN) run --quiet --no-report --metrics-listen :0 --out $(SOAK_OUT) profiles/soak.yaml

## gate: run profiles/smoke.yaml three times on a private redis-server (its own
## verdict must pass) and compare it with results/baselines/smoke.json: exact
## on correctness; latency, server cost and closed-loop throughput relative to
## a reference measured in the same runs on the same server (PING and a
## trivial script), so a machine that is slower or busier all round passes and
## a limiter that got slower does not. p99 is compared only over runs of 1000
## requests or more, and then only against an order-of-magnitude change. Each
## limiter's server cost is judged over all its runs against the spread they
## measured (no --server here): compare's last line says the smallest slowdown
## of each limiter's script it detects (about 1.2-1.4x on a loaded 2-CPU
## machine; measured by make gate-calibrate: a 1.5x slower script caught
## every time, 1.3x in 18 of 21 comparisons, 1.1x never).
GATE_OUT  ?= results/gate
BASELINE  ?= results/baselines/smoke.json
GATE_TOLERANCES ?= --p50 200% --p99 900% --throughput 75% --bytes 10%
gate: deps build
	rm -rf $(GATE_OUT)
	./$(BIN) run --quiet --no-report --repeat 3 --out $(GATE_OUT) profiles/smoke.yaml
	./$(BIN) compare $(GATE_TOLERANCES) $(BASELINE) $(GATE_OUT)/smoke-*/result.json

## gate-under-load: make gate while two other processes keep both CPUs busy
## must pass, and the same gate with a limiter script made 1.5 times slower
## (tools/slowscript) must fail
gate-under-load: deps
	scripts/gate-under-load.sh

## gate-calibrate: what the CI workflow of docs/ci.md (single runs of a
## profile, then rlbench compare at its defaults) detects on this machine:
## 21 runs of profiles/smoke.yaml one after the other, each compared with the
## one before (20 pairs: all must be clean), and runs with token_bucket's
## script 1.1, 1.3, 1.5 and 2 times slower (tools/slowscript), each compared
## with every unchanged run (1.5x must be caught every time); prints how
## often each was caught and the smallest slowdown caught every time. About
## 25 runs of 20-60 s (RUNS=DIR keeps them; UNCHANGED, FACTORS, REPEAT, ALG)
gate-calibrate: deps
	scripts/gate-calibrate.sh

## back-to-back: five single runs of profiles/smoke.yaml one after the other,
## each compared with every other at compare's default tolerances, must all
## be clean: on the machine as it is, then with two busy loops (N=5,
## PROFILE=..., OUT=DIR keeps the results and comparisons)
back-to-back: deps
	scripts/back-to-back.sh

## baseline: re-record results/baselines/smoke.json (review the diff before committing)
baseline: deps build
	rm -rf $(GATE_OUT)
	./$(BIN) run --quiet --no-report --repeat 5 --out $(GATE_OUT) profiles/smoke.yaml
	cp $(GATE_OUT)/smoke-*/result.json $(BASELINE)

## baseline-compare-all: re-record results/baselines/compare-all.json, where
## `rlbench algorithms` and docs/limiters.md take each limiter's bytes per identity
## and server time per decision (three repetitions, medians; review the diff)
COMPARE_OUT ?= results/compare-all-baseline
baseline-compare-all: deps build
	rm -rf $(COMPARE_OUT)
	./$(BIN) run --quiet --no-report --repeat 3 --out $(COMPARE_OUT) profiles/compare-all.yaml
	cp $(COMPARE_OUT)/compare-all-*/result.json results/baselines/compare-all.json

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

## bench: rlbench vs redis-benchmark throughput and CPU per million decisions,
## one request at a time and pipelined (-P 16), the fixed window's capacity
## (loose SLO, pipelining allowed) as a share of redis-benchmark -P 16, the
## open loop's CPU per decision beside the closed loop's (at the open loop's
## rate and batch size, and at full speed), the pipelined
## client ways side by side (rlbench, go-redis with reused commands,
## rueidis DoMulti: tools/clientcmp, a module of its own), allocations per
## request, plot rendering, reading a trace
bench: deps
	$(GO) run ./tools/benchcmp
	cd tools/clientcmp && $(GO) run .
	$(GO) test -run '^$$' -bench . -benchmem ./algorithms ./workload ./internal/recorder ./report/... ./trace

## bench-replay: a 10-million-line gzip access log (rlbench trace synth)
## replayed at 10x through the fixed window: rlbench's peak resident set
## must stay under 256 MiB, and the summary says how well the generator
## kept the trace's schedule (about ten minutes; LINES=200000 for a look)
bench-replay: deps
	scripts/replay-10m.sh

## fuzz: fuzz the profile decoder, the result decoder, the merge of
## segments, rlbench merge and rlbench report on arbitrary result files, a
## declared limiter's reply parsing and the trace reader for FUZZTIME each (make
## test already runs their committed seed corpus); a crasher lands in the
## package's testdata/fuzz
FUZZTIME ?= 60s
fuzz:
	$(GO) test ./profile -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./result -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./result -run '^$$' -fuzz '^FuzzMergeSegments$$' -fuzztime $(FUZZTIME)
	$(GO) test ./cmd/rlbench -run '^$$' -fuzz '^FuzzMerge$$' -fuzztime $(FUZZTIME)
	$(GO) test ./cmd/rlbench -run '^$$' -fuzz '^FuzzReport$$' -fuzztime $(FUZZTIME)
	$(GO) test ./algorithms -run '^$$' -fuzz '^FuzzDeclaredReply$$' -fuzztime $(FUZZTIME)
	$(GO) test ./trace -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME)

## deps: install redis-server (and redis-benchmark) when missing and possible
deps:
	@scripts/install-deps.sh

## deps-browser: install chromium when missing and possible (for the report.html test)
deps-browser:
	@scripts/install-deps.sh --browser

clean:
	rm -rf bin
