# termhelper: build, run, test, cross-build, benchmark.
GO     ?= go
BIN    ?= bin/termhelper
ROOT   ?= .

.PHONY: stub stub-check soak build run test test-go test-stress test-short test-wine cross vet lint bench bench-quick fuzz clean dist mcpb test-node npm-lib

# The version has one source, the VERSION file; the linker stamps it and
# the commit into package version (a build without the stamp still reports
# the VERSION file, embedded by main).
VERSION := $(shell cat VERSION)
COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
STAMP   := -X github.com/termhelper/termhelper/version.number=$(VERSION) \
           -X github.com/termhelper/termhelper/version.commit=$(COMMIT)

# Static: no cgo (os/user's lookups are not needed), a smaller, faster start.
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(STAMP)' -o $(BIN) .

# Serve JSON-RPC on stdin/stdout for the project at ROOT.
run: build
	./$(BIN) --root $(ROOT) --log-level info

# The whole suite: the Go tests with the race detector, against real
# processes and terminals, then the TypeScript client and the packages.
test: test-go test-node

test-go:
	$(GO) test -race -count=1 -timeout 15m ./...

# The Go suite on a machine as busy as a shared runner: one processor per
# test binary (-cpu 1), STRESS_P packages at once, and internal/load
# spinning on every core, writing and fsyncing large files, and evicting
# the repository, the Go toolchain and cache and the system's programs
# from the page cache. However the run ends (a failure, Ctrl-C, SIGTERM),
# the load and every test binary end with it: the tests run in a process
# group of their own that the trap kills, and the load stops by itself if
# this shell dies without running it. What runs big node programs (the
# agent hosts, the TypeScript clients) skips here (TERMHELPER_STRESS):
# under this load node's own start outlasts any watchdog.
STRESS_P       ?= 4
STRESS_TIMEOUT ?= 45m
STRESS_RUN     ?= .
STRESS_PKGS    ?= ./...
STRESS_LOAD    ?=
test-stress:
	@tmp=$$(mktemp -d); load=; tests=; \
	trap '[ -z "$$tests" ] || kill -TERM -$$tests 2>/dev/null || kill $$tests; \
		[ -z "$$load" ] || kill $$load; wait; rm -rf "$$tmp"' EXIT; \
	trap 'exit 130' INT TERM HUP; \
	$(GO) build -o "$$tmp/load" ./internal/load || exit 1; \
	"$$tmp/load" -dir "$$tmp" $(STRESS_LOAD) & load=$$!; \
	TERMHELPER_STRESS=1 $$(command -v setsid) $(GO) test -race -count=1 -cpu 1 -p $(STRESS_P) -timeout $(STRESS_TIMEOUT) \
		-run '$(STRESS_RUN)' $(STRESS_PKGS) & tests=$$!; \
	wait $$tests; rc=$$?; tests=; exit $$rc

test-short:
	$(GO) test -count=1 ./...

# The Windows build under Wine, in a Debian trixie chroot cached in
# /var/cache/termhelper (root; built on first use): every package's Windows
# test binary, termhelper.exe's round trips, then the end-to-end tests that
# drive termhelper.exe there (TestWine*, which make test also runs once the
# chroot exists).
test-wine:
	bash .ci/wine
	$(GO) test -count=1 -run '^TestWine' ./e2e/

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

# Every fuzzer (func Fuzz... in a package's tests), one at a time, for
# FUZZTIME each, from its seed corpus in the package's testdata/fuzz/. A
# failure writes its input there too; the run goes on to the next fuzzer
# and fails at the end, naming the ones that failed.
FUZZTIME ?= 10s
# The exec stub (sandbox/stub/stub.c): freestanding C without a C
# library, built for each Linux architecture termhelper ships (gcc, and
# Debian's gcc-aarch64-linux-gnu for arm64). Its binaries are committed,
# so that `go install` needs no C compiler, with the compilers' versions
# (TOOLCHAIN); stub-check rebuilds them and fails where they differ from
# what the source builds with those compilers (with others it says so,
# and compares nothing: another compiler lays out other bytes).
# noseparate-code: its code and constants share pages, two mappings for
# the kernel to make at each start rather than four.
STUB_CFLAGS = -Os -static -nostdlib -ffreestanding -fno-builtin -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-pie -no-pie -Wall -Wextra -Werror \
	-Wl,--build-id=none -Wl,-z,noexecstack -Wl,-z,noseparate-code -s
STUB_OUT ?= sandbox/stub
STUB_CC = gcc aarch64-linux-gnu-gcc

stub:
	gcc $(STUB_CFLAGS) -o $(STUB_OUT)/stub-linux-amd64 sandbox/stub/stub.c
	aarch64-linux-gnu-gcc $(STUB_CFLAGS) -o $(STUB_OUT)/stub-linux-arm64 sandbox/stub/stub.c
	for cc in $(STUB_CC); do $$cc --version | head -1; done > $(STUB_OUT)/TOOLCHAIN

stub-check:
	rm -rf /tmp/termhelper-stub-check && mkdir -p /tmp/termhelper-stub-check
	$(MAKE) --no-print-directory stub STUB_OUT=/tmp/termhelper-stub-check
	if cmp -s sandbox/stub/TOOLCHAIN /tmp/termhelper-stub-check/TOOLCHAIN; then \
		cmp sandbox/stub/stub-linux-amd64 /tmp/termhelper-stub-check/stub-linux-amd64 && \
		cmp sandbox/stub/stub-linux-arm64 /tmp/termhelper-stub-check/stub-linux-arm64; \
	else \
		echo "stub-check: other compilers here, nothing compared:"; cat /tmp/termhelper-stub-check/TOOLCHAIN; \
	fi

fuzz:
	@failed=; for file in $$(grep -rl --include='*_test.go' --exclude-dir=node_modules '^func Fuzz' . | sort); do \
		dir=$$(dirname $$file); \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			echo "== $$dir $$name"; \
			$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$dir/ || failed="$$failed $$dir:$$name"; \
		done; \
	done; \
	if [ -n "$$failed" ]; then echo "failed:$$failed" >&2; exit 1; fi

# Random valid and invalid messages at full speed against the built helper
# for TERMHELPER_SOAK (default 5m): answers, memory, threads and files.
TERMHELPER_SOAK ?= 5m
soak:
	TERMHELPER_SOAK=$(TERMHELPER_SOAK) $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./e2e/

# Release binaries for every platform a host ships to, each checked under
# 15 MB, their SHA256SUMS, the npm packages in dist/npm (npm/pack.mjs), and
# a .mcpb bundle per platform for Claude Desktop (make mcpb).
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
MAX_BYTES    := 15000000
SHA256       ?= $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo 'shasum -a 256')
dist: npm-lib
	rm -rf dist
	mkdir -p dist
	@set -e; for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; \
		if [ "$$os" = windows ]; then ext=.exe; fi; \
		out=dist/termhelper-$$os-$$arch$$ext; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(STAMP)' -o $$out . ; \
		size=$$(wc -c < $$out | tr -d ' '); \
		echo "$$out: $$size bytes"; \
		if [ "$$size" -ge $(MAX_BYTES) ]; then echo "$$out is over 15 MB" >&2; exit 1; fi; \
	done
	node npm/pack.mjs dist
	$(MAKE) mcpb
	cd dist && $(SHA256) termhelper-* > SHA256SUMS

# The .mcpb bundles (one per platform) from the binaries in dist/, each
# manifest validated by the MCPB tool before it is packed.
mcpb: npm/mcpb/node_modules/.package-lock.json
	node npm/mcpb/build.mjs dist

npm/mcpb/node_modules/.package-lock.json: npm/mcpb/package-lock.json
	cd npm/mcpb && npm ci --no-audit --no-fund

# The TypeScript client, compiled (npm ci only when the lock file changed).
npm-lib: npm/termhelper/node_modules/.package-lock.json
	cd npm/termhelper && npm run --silent build

npm/termhelper/node_modules/.package-lock.json: npm/termhelper/package-lock.json
	cd npm/termhelper && npm ci --no-audit --no-fund

# The client's tests against the built binary (consumer setups compiled
# with tsc and tsgo included), then the packaging tests: make dist, the
# linux-x64 and main tarballs installed into an empty folder, and the .mcpb
# bundle unpacked and started.
test-node: build npm-lib
	cd npm/termhelper && TERMHELPER_BIN=$(abspath $(BIN)) node --test test/*.test.mjs
	$(MAKE) dist
	sh npm/test-package.sh dist
	cd npm/mcpb && TERMHELPER_DIST=$(abspath dist) node --test test/*.test.mjs

clean:
	rm -rf bin dist npm/termhelper/lib
