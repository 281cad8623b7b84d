# viva — structured voice interviews on LiveKit.
#   make run    set up and run viva (offline engines when no API keys are set)
#   make test   set up and run every test (race detector on)
#   make bench  run the benchmarks and print their figures

GO ?= go
export PATH := $(PATH):/usr/local/go/bin
export CGO_ENABLED := 1

.PHONY: all deps build run test bench chat vet clean

all: build

deps:
	@bash scripts/deps.sh

build: deps
	$(GO) build -o bin/viva ./cmd/viva

run: build
	bin/viva chat --name "$${VIVA_NAME:-Candidate}" --role "$${VIVA_ROLE:-Software engineer}" --level "$${VIVA_LEVEL:-mid}"

test: deps
	$(GO) vet ./...
	$(GO) test -race -timeout 40m ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin/viva
