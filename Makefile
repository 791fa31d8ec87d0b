# termhelper: build, run, test, cross-build, benchmark.
GO     ?= go
BIN    ?= bin/termhelper
ROOT   ?= .

.PHONY: build run test test-short cross vet bench bench-quick fuzz clean

build:
	$(GO) build -o $(BIN) .

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

# Every desktop a host ships to builds from here.
cross:
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null .
	GOOS=windows GOARCH=arm64 $(GO) build -o /dev/null .
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null .
	GOOS=darwin GOARCH=amd64 $(GO) build -o /dev/null .
	GOOS=linux GOARCH=arm64 $(GO) build -o /dev/null .

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./cleaner/

bench-quick: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./cleaner/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzClean -fuzztime 60s ./cleaner/

clean:
	rm -rf bin
