# conform's two commands for a newcomer are `make run` and `make test`; the rest serve them.
GO        ?= go
PKG       := github.com/conform-dev/conform
BIN       := bin/conform
REVISION  := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED  := $(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true)
LDFLAGS   := -X $(PKG)/internal/buildinfo.Revision=$(REVISION) -X $(PKG)/internal/buildinfo.Modified=$(MODIFIED)
OUT       ?= results/latest
FUZZTIME  ?= 60s

.PHONY: all build run test vet fuzz bench bench-overhead clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/conform

# The main job on the embedded default: serve the embedded engine on loopback, run the
# workload at 1 and 8 clients, write the report into $(OUT).
run: build
	$(BIN) fixtures

# go vet, then every test with the race detector.
test: vet
	$(GO) test -race -count=1 ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# Longer native fuzzing than make test's short pass (which runs the seed corpora under
# testdata/fuzz). Each target gets FUZZTIME; new interesting inputs are minimised for at most
# FUZZMINIMIZE so a slow input cannot stall the run. A crasher is written to testdata/fuzz.
FUZZMINIMIZE ?= 10s
FUZZ_TARGETS := ./conformance:FuzzCheck ./conformance:FuzzCompile

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzzing $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# What conform's timed path costs against wrk on a loopback server (needs wrk:
# apt-get install -y wrk), and the Go benchmarks of each request layer and of checking.
bench-overhead: build
	$(BIN) overhead --duration 3s --rounds 5
	$(GO) test -run '^$$' -bench 'Layers|CheckCost' -benchtime 20000x ./conformance/runner/

clean:
	rm -rf bin results
