# The two commands a new user needs are `make run` and `make test`; both get
# a private PostgreSQL from scripts/pgcluster.sh when DATABASE_URL is unset.

GO ?= go
PG := scripts/pgcluster.sh
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 10s

.PHONY: run test check fuzz build bench pg-stop pg-status clean

## run: start the relay at http://127.0.0.1:8080 (set DATABASE_URL to use your own PostgreSQL)
run:
	@url="$${DATABASE_URL:-$$($(PG) url relay)}" && \
	DATABASE_URL="$$url" $(GO) run ./cmd/relay $(ARGS)

## test: run every test against a fresh database per test, and the web
## client's tests in headless Chromium (installed when missing)
test:
	@scripts/ensure-chromium.sh
	@url="$${RELAY_TEST_DATABASE_URL:-$$($(PG) url)}" && \
	RELAY_TEST_DATABASE_URL="$$url" $(GO) test -race -count=1 ./...

## check: gofmt, go vet, staticcheck and the tests with -race
check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(MAKE) test

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

build:
	$(GO) build -o bin/relay ./cmd/relay

## bench: measure the relay against references run at the same time (about
## two minutes; BENCH_ARGS=--long for the long version)
bench: build
	$(GO) build -o bin/relay-bench ./cmd/relay-bench
	bin/relay-bench $(BENCH_ARGS)

pg-stop:
	@$(PG) stop

pg-status:
	@$(PG) status

clean: pg-stop
	rm -rf .pg bin
