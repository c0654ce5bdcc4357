# The README's commands run through here. `make test` is what CI runs.
SHELL := /bin/bash
GO ?= go
export PATHWAYS_PYTHON ?= $(CURDIR)/.venv/bin/python

.PHONY: all build setup test testrace testnocgo lint fmtcheck vet linters generate verify bench fuzz

all: build

build:
	$(GO) build ./...

# Installs what the tests need: the pinned Python interop environments (one per
# jaxlib version, see scripts/setup_python.sh), the PJRT plugin wheels and, as
# root, a single-node Slurm (Debian packages) for the Slurm example's test.
# Idempotent and quick when already done.
setup:
	scripts/setup_python.sh
	scripts/setup_plugins.sh
	@if [ "$$(id -u)" = 0 ]; then scripts/setup_slurm.sh; \
	else echo "setup: not root, so no Slurm: its test will skip"; fi

# The timeout is per package and only guards against a hang:
# proxy/proxyserver/interop runs the real JAX client (the newest jaxlib on four
# backends, four older ones on one), 40–45 minutes under -race on an idle
# 2-core machine. It is named first so that it starts first: in package order
# it started 11 minutes into the run, and everything waited on it.
test: setup lint testnocgo
	$(GO) test -race -timeout 120m ./proxy/proxyserver/interop ./...

testrace: test

# Everything but pjrt builds without cgo; pjrt compiles to a stub that says so.
testnocgo:
	CGO_ENABLED=0 $(GO) build ./...

lint: fmtcheck vet linters

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# staticcheck and errcheck (scripts/lint.sh says how they are configured).
linters:
	scripts/lint.sh

generate:
	scripts/genproto.sh
	$(GO) generate ./pjrt

verify:
	scripts/verify_generate.sh
	$(GO) mod tidy -diff

bench:
	scripts/bench.sh

fuzz:
	scripts/fuzz.sh
