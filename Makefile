# The two commands a new user needs are `make run` and `make test`; both get
# a private PostgreSQL from scripts/pgcluster.sh when DATABASE_URL is unset.

# Every go command here, and the tests' own `go build`, uses Go 1.27.3: the
# go command fetches it once from the Go module proxy (ADR 0021). A machine
# ignores a toolchain line in go.mod, so it is set here; `make
# GOTOOLCHAIN=...` overrides it. Run `go` by hand with the same export.
export GOTOOLCHAIN := go1.27.3

GO ?= go
PG := scripts/pgcluster.sh
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 10s
# how long `make test` (and so CI) runs each fuzz target; 0 skips them
TEST_FUZZTIME ?= 3s

.PHONY: run test check vuln fuzz build package bench pg-stop pg-status clean

## run: start the relay at http://127.0.0.1:8080 (set DATABASE_URL to use your own PostgreSQL)
# The relay replaces the recipe's shell (exec), so that Ctrl-C reaches it
# alone: it shuts down cleanly and make says nothing more.
run: build
	@url="$${DATABASE_URL:-$$($(PG) url relay)}" && \
	exec env DATABASE_URL="$$url" bin/relay $(ARGS)

## test: type-check and lint the web client (scripts/typecheck.sh), run
## every test against a fresh database per test, and the web client's tests
## in headless Chromium (installed when missing), then each fuzz target for
## TEST_FUZZTIME
test:
	@scripts/typecheck.sh
	@scripts/ensure-chromium.sh
	@url="$${RELAY_TEST_DATABASE_URL:-$$($(PG) url)}" && \
	RELAY_TEST_DATABASE_URL="$$url" $(GO) test -race -count=1 -timeout 60m ./...
	@GO="$(GO)" FUZZTIME="$(TEST_FUZZTIME)" scripts/fuzz.sh

## check: gofmt, go vet, staticcheck, govulncheck, then make test
check:
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@GO="$(GO)" scripts/govulncheck.sh
	$(MAKE) test

## vuln: govulncheck alone, against the offline database snapshot (VULNDB=URL
## to use another database)
vuln:
	@GO="$(GO)" scripts/govulncheck.sh

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	@GO="$(GO)" FUZZTIME="$(FUZZTIME)" scripts/fuzz.sh

## build: bin/relay
build:
	@$(GO) build -o bin/relay ./cmd/relay

## package: build/relay_VERSION_ARCH.deb, the Debian package with the
## systemd unit and /etc/relay/relay.toml (scripts/package.sh, ADR 0115;
## VERSION=... to name the version)
package:
	@GO="$(GO)" scripts/package.sh

## bench: measure the relay against references run at the same time (about
## three minutes; BENCH_ARGS=--long for the long version, --ntfy PATH for ntfy),
## then what MLS costs the web client in headless Chromium (cmd/mls-bench,
## under a minute; MLS_BENCH_ARGS for its flags), its search of 100,000
## messages (cmd/search-bench, under a minute; SEARCH_BENCH_ARGS) and its app
## lock over 20,000 (cmd/lock-bench, about a minute and a half; LOCK_BENCH_ARGS)
bench: build
	$(GO) build -o bin/relay-bench ./cmd/relay-bench
	bin/relay-bench $(BENCH_ARGS)
	@scripts/ensure-chromium.sh
	$(GO) build -o bin/mls-bench ./cmd/mls-bench
	bin/mls-bench $(MLS_BENCH_ARGS)
	$(GO) build -o bin/search-bench ./cmd/search-bench
	bin/search-bench $(SEARCH_BENCH_ARGS)
	$(GO) build -o bin/lock-bench ./cmd/lock-bench
	bin/lock-bench $(LOCK_BENCH_ARGS)

pg-stop:
	@$(PG) stop

pg-status:
	@$(PG) status

## clean: stop the private cluster, remove it, the binaries, build/ and .artifacts/
clean: pg-stop
	rm -rf .pg bin build .artifacts
