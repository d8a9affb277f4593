# Kontera. Two commands do all set-up on a fresh machine:
#   make run    local PostgreSQL under .data (unless DATABASE_URL is set), migrate, demo key, serve
#   make test   the whole suite against its own throwaway PostgreSQL
SHELL := /bin/bash
GO    ?= go
SPEC  := openapi/openapi.json
# The commit a binary is built from, for kontera version (-dirty: with
# uncommitted changes); empty outside a git checkout.
LDFLAGS := -X main.commit=$(shell git describe --always --dirty --abbrev=40 2>/dev/null)

# The tools API consumers use (spectral, redocly, openapi-typescript,
# openapi-fetch, tsc, prism), pinned in scripts/contract and installed with
# npm ci when the lockfile changes. Their telemetry and update checks stay off.
CONTRACT := scripts/contract
TOOLS    := $(CONTRACT)/node_modules/.package-lock.json
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
export SCARF_ANALYTICS := false

.PHONY: test-ops run test go-test build generate check-generated lint lint-house lint-spectral lint-redocly vet test-build fmt-check bench fuzz contract-tools spec-coverage

# The binary is built into .data (ignored by git) with a word first: the
# first build fetches and compiles the dependencies for a few minutes.
run:
	@scripts/prereqs.sh run
	@echo "make run: building Kontera into .data/kontera (the first build takes a few minutes)…"
	@$(GO) build -ldflags '$(LDFLAGS)' -o .data/kontera ./cmd/kontera
	@echo "make run: starting: a PostgreSQL cluster under .data/pg (unless DATABASE_URL is set), the schema, the server"
	@.data/kontera dev

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/kontera ./cmd/kontera

# gen/ (the server's types) and the agent skill's generated files
# (skills/kontera-api: SKILL.md and a reference file per group).
generate:
	$(GO) tool oapi-codegen -config openapi/codegen.yaml $(SPEC)
	$(GO) run ./cmd/skills

check-generated:
	@scripts/check-generated.sh

$(TOOLS): $(CONTRACT)/package.json $(CONTRACT)/package-lock.json
	cd $(CONTRACT) && npm ci --no-audit --no-fund --loglevel=error

contract-tools: $(TOOLS)

# The document passes our own house rules, Spectral (spectral:oas plus the
# house ruleset) and Redocly's recommended ruleset, with zero errors.
lint: lint-house lint-spectral lint-redocly

lint-house:
	$(GO) run ./cmd/openapi-lint $(SPEC)

lint-spectral: $(TOOLS)
	$(CONTRACT)/node_modules/.bin/spectral lint --quiet --fail-severity=error -r $(CONTRACT)/spectral.yaml $(SPEC)

lint-redocly: $(TOOLS)
	$(CONTRACT)/node_modules/.bin/redocly lint --config $(CONTRACT)/redocly.yaml --format=summary $(SPEC)

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './gen/*' -not -path './.data/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Compiles every package and its tests into the build cache, neither
# linking nor running them: make test's head start.
test-build:
	$(GO) list -test -export -f '' ./... >/dev/null

test:
	@scripts/prereqs.sh test
	@# Every package and its tests compile first, while npm ci waits on the
	@# network; then the checks run beside the tests, each one's output kept
	@# together (a failed check fails make test once the tests end too).
	@$(MAKE) --no-print-directory -j2 test-build $(TOOLS)
	@$(MAKE) --no-print-directory -j7 --output-sync=target go-test fmt-check lint-house lint-spectral lint-redocly check-generated vet

# Each black-box test has its own server and database and mostly waits on
# PostgreSQL or its own workers: eight at a time keep two cores busy (four
# left about a third of them idle). They are the long pole,
# so they are named first: go test builds and runs packages in the order
# named, and ./... would start them last. Every package shares one
# throwaway cluster (withpg), initialised and migrated once.
# KONTERA_CONTRACT=1: the consumer tests (TypeScript and Go clients, the
# prism proxy) run rather than skip, and fail when a tool is missing. The
# timeout is go test's own ten minutes and more: the black-box tests on a
# busy two-core machine are slow, not wrong. -vet=off: go test would run
# its subset of vet on every package again, beside make vet's whole one.
go-test: $(TOOLS)
	KONTERA_CONTRACT=1 $(GO) run ./cmd/withpg -- $(GO) test -vet=off -count=1 -parallel 8 -timeout 30m ./tests/ $$($(GO) list ./... | grep -vx 'github.com/kontera/kontera/tests')

# The operator's drills (tests/ops, build tag ops): a backup with
# pgBackRest restored to a point in time into a new cluster, Kontera
# started on it and the books checked; the upgrade from the previous
# release, the image, the unit, nginx in front; and the README walk-through
# run as written against kontera dev. Slower than make test; .ci/run runs
# them once after it.
test-ops:
	@scripts/prereqs.sh ops
	$(GO) test -tags ops -count=1 -timeout 30m ./tests/ops/

# Fuzzing of the whole SIE import (reader, pass 1, pass 2 on a real
# database) and of the SIE reader, beyond the generated files and quirks
# make test runs them over. FUZZTIME=60s by default; one worker, since each
# execution is a company and an import.
FUZZTIME ?= 60s
fuzz:
	@scripts/prereqs.sh test
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) -parallel 1 -timeout 30m ./internal/sieimport
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) -timeout 30m ./internal/sie

# How much of the spec the document covers ("N of M"); never fails.
spec-coverage:
	$(GO) run ./cmd/spec-coverage -spec ../shared/spec -doc $(SPEC)

# Not part of make test; each figure beside a baseline measured in the same run:
#   middleware overhead: GET /api/v1/api-key through the full stack vs bare Echo;
#   posting: verifikationer created + committed per second over HTTP, one
#     series with 1/8/32 clients and 8 clients over 100 companies, with p50
#     and p99, beside the same gapless work as one SQL transaction on our
#     schema (the ratio is to half of it: the API takes two transactions);
#   reports: trial balance, general ledger and journal register latency on a
#     generated company with 1,000,000 lines vs a small one and GET /api-key;
#   parties: customers registered per second vs single-row INSERT, bulk rate,
#     list and search latency on 20,000 customers vs GET /api-key;
#   dimensions: tagged postings checked against 5,000 projects vs untagged;
#   supplier invoices registered per second (one POST, two lines + VAT)
#     with 1 and 8 clients vs journal entries created + committed.
#   webhooks: event commit → first attempt at a loopback TLS receiver
#     (p50, p99; goal p99 ≤ 1 s) and deliveries per second with 16 workers,
#     beside a bare POST loop and a POST between two row commits (what an
#     attempt's lease and record cost at the least), same body, same
#     concurrency.
#   bank: 100,000 CSV rows and 100,000 camt.053 entries through POST
#     imports/bank to succeeded beside a raw COPY of the same rows, and
#     categorize/s at 8 clients beside the ledger's create + commit.
#   statements: SQL round trips per operation for the busiest ones, as the
#     budget test counts them (tests/budget_test.go).
# The bench's PostgreSQL runs with fsync on: the disk is measured too.
bench:
	KONTERA_BENCH=1 $(GO) test -count=1 -run '^TestBench' -v -timeout 60m ./tests/bench/
	@echo; echo "SQL statements per operation (tests/budget_test.go; prepared statements count once per execution):"
	@$(GO) test -count=1 -run '^TestStatementBudgets$$' -v ./tests/ | grep -E 'statements \(budget'| sed -E 's/^ *budget_test.go:[0-9]+: /  /'
