# Kontera. Two commands do all set-up on a fresh machine:
#   make run    local PostgreSQL under .data (unless DATABASE_URL is set), migrate, demo key, serve
#   make test   the whole suite against its own throwaway PostgreSQL
SHELL := /bin/bash
GO    ?= go
SPEC  := openapi/openapi.json

.PHONY: run test build generate check-generated lint vet fmt-check bench

run:
	$(GO) run ./cmd/kontera dev

build:
	$(GO) build -o bin/kontera ./cmd/kontera

generate:
	$(GO) tool oapi-codegen -config openapi/codegen.yaml $(SPEC)

check-generated:
	@scripts/check-generated.sh

lint:
	$(GO) run ./cmd/openapi-lint $(SPEC)

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './gen/*' -not -path './.data/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test: fmt-check lint check-generated vet
	$(GO) test -count=1 ./...

# Not part of make test; each figure beside a baseline measured in the same run:
#   middleware overhead: GET /api/v1/api-key through the full stack vs bare Echo;
#   posting: verifikationer created + committed per second over HTTP (1/8/32
#     clients, one company or eight) vs single-row INSERT-and-commit;
#   reports: trial balance, general ledger and journal register latency on a
#     generated company with 1,000,000 lines vs a small one and GET /api-key.
bench:
	KONTERA_BENCH=1 $(GO) test -count=1 -run '^TestBench' -v -timeout 30m ./tests/bench/
