# viva — structured voice interviews on LiveKit.
#   make run    set up and run viva (offline engines when no API keys are set)
#   make test   set up and run every test (race detector on)
#   make bench  run the benchmarks and print their figures
#   make bench-compare  hold the same interviews with viva and LiveKit's agents-js

GO ?= go
export PATH := $(PATH):/usr/local/go/bin
export CGO_ENABLED := 1

.PHONY: all deps assets build run test bench bench-agentsjs bench-compare chat clean

all: build

deps:
	@bash scripts/deps.sh

# The candidate's room page: livekit-client bundled with esbuild, embedded
# into the binary with go:embed.
assets: deps
	@if [ -f web/frontend/package.json ]; then cd web/frontend && npm run --silent build; fi

# bin/viva is what is shipped; bin/viva-bench, which viva bench runs, holds
# the benchmarks and the fake providers and bots they need.
build: assets
	$(GO) build -o bin/viva ./cmd/viva
	$(GO) build -o bin/viva-bench ./cmd/viva-bench

# SeaweedFS, the S3-compatible store the recordings tests start (built once).
bin/weed:
	@bash scripts/deps.sh --with-weed

# The whole system on this machine: LiveKit (dev mode), a worker, the web app.
run: build
	bin/viva dev

# An interview in the terminal, no audio.
chat: build
	bin/viva chat --name "$${VIVA_NAME:-Candidate}" --role "$${VIVA_ROLE:-Software engineer}" --level "$${VIVA_LEVEL:-mid}"

test: assets bin/weed
	cd web/frontend && npm test --silent
	$(GO) vet ./...
	$(GO) test -race -timeout 40m ./...

# The Go benchmarks (among them the list pages over 10,000 interviews in
# files and 100,000 in PostgreSQL, BenchmarkLists), then viva bench latency
# and density at modest sizes (a few minutes on two cores); JSON and the
# chart go to bench-results/.
BENCH_DIR ?= bench-results
bench: build
	@mkdir -p $(BENCH_DIR)
	VIVA_BENCH_DIR=$(abspath $(BENCH_DIR)) $(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...
	bin/viva bench latency --turns 50 --rooms 5 --out $(BENCH_DIR)/latency.json
	bin/viva bench density --sessions 5,10,20 --window 15s --out $(BENCH_DIR)/density.json --chart $(BENCH_DIR)/density.svg

# LiveKit's agents-js, pinned in bench/agentsjs/package-lock.json, for viva
# bench compare. Install scripts are skipped: onnxruntime-node's would fetch
# GPU libraries from the internet, and its CPU library is in the package.
bench-agentsjs: bench/agentsjs/node_modules/@livekit/agents/package.json
bench/agentsjs/node_modules/@livekit/agents/package.json: bench/agentsjs/package-lock.json
	cd bench/agentsjs && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

# viva's worker and agents-js holding 5 and then 10 interviews at once, one
# after the other over the same livekit-server, bots and fake OpenAI.
bench-compare: build bench-agentsjs
	@mkdir -p $(BENCH_DIR)
	bin/viva bench compare --sessions 5,10 --window 30s --out $(BENCH_DIR)/compare.json

clean:
	rm -rf bin/viva bin/viva-bench
