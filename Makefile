# rlbench: `make run` runs the boundary profile on a private redis-server,
# `make test` runs every check CI runs.

GO      ?= go
BIN     := bin/rlbench
PROFILE ?= profiles/boundary.yaml

.PHONY: all build run test test-integration gate baseline baseline-compare-all fmt-check vet bench deps deps-browser clean

all: build

build:
	$(GO) build -buildvcs=true -o $(BIN) ./cmd/rlbench

## run: build and run PROFILE (default profiles/boundary.yaml) on a private redis-server
run: deps build
	./$(BIN) run $(PROFILE)

## test: gofmt check, go vet, and the race-enabled tests on a real redis-server
## (and the report.html test in headless chromium)
test: deps deps-browser fmt-check vet
	$(GO) test -race ./...

## test-integration: the long integration suites (files tagged integration,
## tests named TestIntegration...): several rlbench processes, faults, clusters
test-integration: deps
	$(GO) test -race -tags integration -run 'TestIntegration' -timeout 20m ./...

## gate: run profiles/smoke.yaml twice on a private redis-server and compare it
## with results/baselines/smoke.json: exact on correctness; on latency only an
## order-of-magnitude guard, because on a small shared machine one 10ms pause
## moves the p99 of a one-second run (server time per call is steadier)
GATE_OUT  ?= results/gate
BASELINE  ?= results/baselines/smoke.json
GATE_TOLERANCES ?= --p50 300% --p99 1000% --server 200% --bytes 10%
gate: deps build
	rm -rf $(GATE_OUT)
	./$(BIN) run --quiet --repeat 2 --out $(GATE_OUT) profiles/smoke.yaml
	./$(BIN) compare $(GATE_TOLERANCES) $(BASELINE) $(GATE_OUT)/smoke-*/result.json

## baseline: re-record results/baselines/smoke.json (review the diff before committing)
baseline: deps build
	rm -rf $(GATE_OUT)
	./$(BIN) run --quiet --no-report --repeat 5 --out $(GATE_OUT) profiles/smoke.yaml
	cp $(GATE_OUT)/smoke-*/result.json $(BASELINE)

## baseline-compare-all: re-record results/baselines/compare-all.json, where
## `rlbench algorithms` and the README take each limiter's bytes per identity
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

## bench: rlbench vs redis-benchmark throughput, allocations per request, plot rendering
bench: deps
	$(GO) run ./tools/benchcmp
	$(GO) test -run '^$$' -bench . -benchmem ./algorithms ./workload ./report/...

## deps: install redis-server (and redis-benchmark) when missing and possible
deps:
	@scripts/install-deps.sh

## deps-browser: install chromium when missing and possible (for the report.html test)
deps-browser:
	@scripts/install-deps.sh --browser

clean:
	rm -rf bin
