# conform's two commands for a newcomer are `make run` and `make test`; the rest serve them.
GO        ?= go
PKG       := github.com/conform-dev/conform
BIN       := bin/conform
REVISION  := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED  := $(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true)
LDFLAGS   := -X $(PKG)/internal/buildinfo.Revision=$(REVISION) -X $(PKG)/internal/buildinfo.Modified=$(MODIFIED)
OUT       ?= results/latest
FUZZTIME  ?= 60s

.PHONY: all build run test test-unit test-engines vet fuzz bench bench-overhead clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/conform

# The main job on the embedded default: serve the embedded engine on loopback, run the
# workload at 1 and 8 clients, write the report into $(OUT).
run: build
	$(BIN) run --out $(OUT)

# Packages where concurrency lives: closed-loop clients, the engine's concurrent readers, the
# loaders' parallel streams and the commands that drive them.
RACE_PKGS := ./conformance ./conformance/proxy/... ./conformance/runner/... ./conformance/target/... ./oracle/engine/... ./load/... ./conformance/fuzz/... ./cmd/conform/...
FUZZSHORT ?= 10s

# make test: the unit tests (test-unit), then the real-engine suite (test-engines).
test: test-unit test-engines

# gofmt and go vet; every test; the concurrent packages again under the race detector; and a
# short native fuzzing pass of the strict check (make fuzz runs longer). No JVM needed. The
# race pass of cmd/conform and conformance/fuzz takes 3-5 minutes alone and passed go test's
# default 10 on a loaded 2-core machine: UNIT_TIMEOUT bounds each package instead.
UNIT_TIMEOUT ?= 30m
test-unit: vet
	$(GO) test -count=1 -timeout $(UNIT_TIMEOUT) ./...
	$(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) $(RACE_PKGS)
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZSHORT) -fuzzminimizetime 2s ./conformance

# Real Elasticsearch 8.15.0 and OpenSearch on loopback, from Maven Central, and Qdrant from the
# server binary QDRANT_BIN names (else ../shared/qdrant/qdrant beside the repository, else PATH),
# no Docker (lab/engines.sh). They keep running until make engines-down. ENGINE_CPUS=1 make
# engines starts them on CPU 1 only; ENGINE_CPUS=1 make engines-pin moves running ones there.
.PHONY: engines engines-down engines-status engines-pin test-unit test-engines
engines:
	lab/engines.sh up

engines-down:
	lab/engines.sh down

engines-status:
	lab/engines.sh status

engines-pin:
	lab/engines.sh pin $(ENGINE_CPUS)

# The real-engine suite (lab/realengines, build tag realengines): check 448/448 on real
# Elasticsearch at three track_total_hits settings, oracle verify with zero differences, the
# YAML tests, OpenSearch's documented divergence, load --qdrant and its probe on real Qdrant,
# and the official clients (go-elasticsearch, elasticsearch-py 8.15 and 9.x,
# @elastic/elasticsearch 8.15, which lab/clients/install.sh puts into .engines/clients) against
# conform serve and Elasticsearch. Without java or mvn it says so in one loud line and is
# skipped, except under CI=true, where that fails. Without a Qdrant server the Qdrant tests
# skip, saying so (under CI=true they fail when QDRANT_BIN was set).
test-engines: build
	@if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then \
		echo "REAL-ENGINE SUITE NOT RUN: java and mvn are needed to run Elasticsearch and OpenSearch (see README, Real engines)"; \
		if [ "$(CI)" = true ]; then exit 1; fi; exit 0; fi
	lab/engines.sh up
	@lab/clients/install.sh || { echo "OFFICIAL CLIENTS NOT INSTALLED: the Python and Node client tests will skip (fail under CI=true)"; }
	$(GO) test -tags realengines -count=1 -timeout 40m -v ./lab/realengines

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags realengines ./lab/realengines

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
	$(GO) test -run '^$$' -bench 'Layers|CheckCost|TimedPath' -benchtime 20000x ./conformance/runner/

clean:
	rm -rf bin results

# The lab (lab/README.md): Elasticsearch 8.15.0, OpenSearch 3.9.0 and Qdrant 1.19.2 on
# loopback, each capped at 2 CPUs and 4 GiB, plus your gateway on GATEWAY_URL. Without Docker,
# the lab-load, lab-run and lab-experiment targets use the engines make engines started: their
# addresses come from $(ENGINES_DIR)/state.env, and since that Elasticsearch cannot hold
# scaled_float, every engine gets the price-double fixture variant (README, "Real engines").
LAB_COMPOSE ?= docker compose -p conform-lab -f lab/compose.yaml
LAB_OUT     ?= results/lab
ENGINES_STATE := $(or $(ENGINES_DIR),.engines)/state.env
LOCAL_ENGINES := $(wildcard $(ENGINES_STATE))
engine_state   = $(shell sed -n 's/^$(1)=//p' $(ENGINES_STATE) 2>/dev/null)
ES_URL      ?= $(or $(call engine_state,ES_URL),http://127.0.0.1:9200)
OS_URL      ?= $(or $(call engine_state,OS_URL),http://127.0.0.1:9201)
QDRANT      ?= $(or $(call engine_state,QDRANT_GRPC),127.0.0.1:6334)
COLLECTION  ?= catalogue
GATEWAY_URL ?= http://127.0.0.1:8080
# LOAD_FLAGS=--recreate reloads engines that already hold documents.
LOAD_FLAGS  ?=
# SWITCH_CMD puts the gateway into a round's variant (rest or grpc) for lab-experiment.
SWITCH_CMD  ?=
# RUN_FLAGS go to lab-run's run and lab-experiment's experiment, e.g. --relax opensearch.
RUN_FLAGS   ?=

# With local engines: the price-double fixtures (generated once) for all of them, and no
# Qdrant flags when make engines started no Qdrant and QDRANT was not given.
LAB_QDRANT   = --qdrant $(QDRANT) --collection $(COLLECTION)
LAB_FIXTURES_DEP =
LAB_FIXTURES_FLAGS =
LAB_SAY      = true
ifneq ($(LOCAL_ENGINES),)
LAB_FIXTURES ?= $(LAB_OUT)/fixtures-price-double
LAB_FIXTURES_DEP = $(LAB_FIXTURES)/fixtures.json
LAB_FIXTURES_FLAGS = --fixtures $(LAB_FIXTURES)
LAB_SAY = echo "lab: the engines of make engines ($(ENGINES_STATE)): es $(ES_URL), os $(OS_URL), qdrant $(if $(LAB_QDRANT),$(QDRANT),none), fixtures $(LAB_FIXTURES) (price-double)" >&2
ifeq ($(origin QDRANT),file)
ifeq ($(call engine_state,QDRANT_GRPC),)
LAB_QDRANT =
endif
endif
endif

.PHONY: lab-up lab-load lab-run lab-experiment lab-down

# Start the engines and wait until every healthcheck passes.
lab-up:
	$(LAB_COMPOSE) up -d --wait

$(LAB_OUT)/fixtures-price-double/fixtures.json: | build
	$(BIN) fixtures --out $(LAB_OUT)/fixtures-price-double --variant price-double

# Load the default corpus into Elasticsearch, OpenSearch and Qdrant, and verify each copy.
lab-load: build $(LAB_FIXTURES_DEP)
	@$(LAB_SAY)
	$(BIN) load --target es=$(ES_URL) --target os=$(OS_URL) $(LAB_QDRANT) $(LAB_FIXTURES_FLAGS) $(LOAD_FLAGS)

# One conformance run over both natives and the gateway, the corpus checked first. With no
# GATEWAY_URL given and nothing answering on the default one, the natives alone, saying so.
lab-run: build $(LAB_FIXTURES_DEP)
	@$(LAB_SAY)
	@gw="--target gateway=$(GATEWAY_URL)"; \
	if [ "$(origin GATEWAY_URL)" = file ] && ! curl -s -m 2 -o /dev/null "$(GATEWAY_URL)/"; then \
		echo "lab-run: no gateway answers at $(GATEWAY_URL): running Elasticsearch and OpenSearch only (GATEWAY_URL=... adds yours)" >&2; gw=; \
	fi; \
	set -x; $(BIN) run --target es=$(ES_URL) --target os=$(OS_URL) $$gw \
		$(LAB_QDRANT) $(LAB_FIXTURES_FLAGS) $(RUN_FLAGS) --out $(LAB_OUT)/run

# The paired experiment: gateway over REST (baseline) vs gRPC (candidate), natives interleaved.
lab-experiment: build $(LAB_FIXTURES_DEP)
	@test -n "$(SWITCH_CMD)" || { echo "lab-experiment: set SWITCH_CMD to the command that switches the gateway's variant (lab/README.md)" >&2; exit 2; }
	@$(LAB_SAY)
	$(BIN) experiment --baseline rest=$(GATEWAY_URL) --candidate grpc=$(GATEWAY_URL) \
		--native es=$(ES_URL) --native os=$(OS_URL) $(LAB_QDRANT) $(LAB_FIXTURES_FLAGS) $(RUN_FLAGS) \
		--switch-cmd '$(SWITCH_CMD)' --out $(LAB_OUT)/experiment

# Stop the engines; the corpus stays in the named volumes for the next lab-up.
lab-down:
	$(LAB_COMPOSE) down
