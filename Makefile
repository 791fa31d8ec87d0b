# termhelper: build, run, test, cross-build, benchmark.
GO     ?= go
BIN    ?= bin/termhelper
ROOT   ?= .

.PHONY: build run test test-short cross vet lint bench bench-quick fuzz clean

# Static: no cgo (os/user's lookups are not needed), a smaller, faster start.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) .

# Serve JSON-RPC on stdin/stdout for the project at ROOT.
run: build
	./$(BIN) --root $(ROOT) --log-level info

# The whole suite, with the race detector, against real processes and terminals.
test:
	$(GO) test -race -count=1 -timeout 8m ./...

test-short:
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...

# staticcheck, from the Go module proxy: dead code and subtler mistakes.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) run $(STATICCHECK) ./...

# Every desktop a host ships to builds from here.
cross:
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null .
	GOOS=windows GOARCH=arm64 $(GO) build -o /dev/null .
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null .
	GOOS=darwin GOARCH=amd64 $(GO) build -o /dev/null .
	GOOS=linux GOARCH=arm64 $(GO) build -o /dev/null .

# The whole suite against its floors, measured in the same run (docs/bench.md).
bench: build
	$(GO) run ./bench -bin $(BIN) -out bench/results/latest.md

# A short run that proves the suite still works; CI checks that it runs,
# never a timing.
bench-quick: build
	$(GO) run ./bench -bin $(BIN) -quick

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzClean -fuzztime 60s ./cleaner/
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime 60s ./rpc/
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime 60s ./rpc/

# Random valid and invalid messages at full speed against the built helper
# for TERMHELPER_SOAK (default 5m): answers, memory, threads and files.
TERMHELPER_SOAK ?= 5m
soak:
	TERMHELPER_SOAK=$(TERMHELPER_SOAK) $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./e2e/

clean:
	rm -rf bin
