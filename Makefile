# kubectl-egress. `make demo` and `make test` build everything they need (first run: several
# minutes for etcd/kube-apiserver/kubectl, cached in ~/.cache/kubectl-egress).
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: all build kube-assets demo test vet unit e2e fmt-check
# One thing at a time: the builds are heavy and the e2e suite owns one API server.
.NOTPARALLEL:

all: build

PKG := github.com/kubectl-egress/kubectl-egress/pkg/plugin
LDFLAGS := -X $(PKG).version=$(shell git describe --tags --always --dirty 2>/dev/null || echo dev) \
	-X $(PKG).commit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X $(PKG).date=$(shell date -u +%Y-%m-%dT%H:%M:%SZ)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/kubectl-egress ./cmd/kubectl-egress

# etcd, kube-apiserver and kubectl, built from the Go module proxy; prints their folder.
kube-assets:
	hack/build-kube.sh

demo:
	hack/demo.sh

# The unit, e2e and conformance suites read the repository's case fixtures (testdata/cases); when
# EGRESS_CASES_DIR is set, or ../shared/cases exists beside the repository, they run its files too.
test: vet unit e2e conformance release-check-host

vet:
	$(GO) vet ./...

unit:
	$(GO) test ./...

# The e2e module (hack/e2e) has its own go.mod; -mod=mod lets it follow changes of the root
# module's requirements without a manual `go mod tidy` there.
e2e:
	assets=$$(hack/build-kube.sh); \
	cd hack/e2e && \
	GOFLAGS=-mod=mod $(GO) vet ./... && \
	KUBE_ASSETS=$$assets GOFLAGS=-mod=mod $(GO) test -count=1 -timeout 30m ./...

fmt-check:
	@files=$$(git ls-files --cached --others --exclude-standard -- "*.go"); \
	out=$$([[ -z $$files ]] || gofmt -l $$files); \
	if [[ -n $$out ]]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Conformance suite: the plugin's cluster predictions against istiod's own config generation
# (hack/conformance, its own Go module that requires istio.io/istio; docs/conformance.md).
# The first run compiles istiod's packages into the Go build cache (minutes); later runs reuse it.
# Extra test flags: make conformance CONFORMANCE_ARGS='-seed=7 -n=1000'.
CONFORMANCE_ARGS ?=
.PHONY: conformance
conformance:
	cd hack/conformance && $(GO) test -count=1 -timeout 60m -v -run TestConformance ./... $(if $(CONFORMANCE_ARGS),-args $(CONFORMANCE_ARGS))

# Release packaging (hack/release-check.sh): goreleaser check + snapshot archives in dist/, the krew
# manifest validated and installed from them, `kubectl egress version` and plugin completion
# through kubectl. GoReleaser and krew are built from the Go module proxy once (cached in
# ~/.cache/kubectl-egress/bin).
.PHONY: release-check release-check-host
release-check:
	bash hack/release-check.sh
# The same for this machine's platform only (part of `make test`; CI runs release-check as well).
release-check-host:
	RELEASE_TARGETS=host bash hack/release-check.sh
