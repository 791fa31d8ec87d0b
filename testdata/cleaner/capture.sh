#!/usr/bin/env bash
# Recapture the raw sections of the golden files: all of them, or those
# named as arguments (capture.sh ls_color top_batch). Each capture runs a
# real program on a pseudo-terminal (capture.py) in a scratch folder under
# /tmp/th-capture, then writes NAME.txtar with the raw bytes, the options if
# any, and an empty want section. Fill the wants with
#   go test ./cleaner/ -run TestGolden -update
# and read every changed want against what a terminal shows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cap="python3 $here/capture.py"
work=/tmp/th-capture
rm -rf "$work" && mkdir -p "$work" && cd "$work"

write() { # name, raw file, options
	{
		printf -- '-- raw --\n'
		cat "$2"
		printf '\n'
		if [ -n "${3:-}" ]; then printf -- '-- options --\n%s\n' "$3"; fi
		printf -- '-- want --\n\n'
	} >"$here/$1.txtar"
}

# ls --color=always over a folder with a file of each kind, long and short.
ls_color() {
	mkdir lsdir && (cd lsdir && mkdir src docs && touch README.md main.go &&
		printf '#!/bin/sh\n' >run.sh && chmod +x run.sh && ln -s main.go link.go &&
		touch archive.tar.gz image.png)
	(cd lsdir && $cap -- ls --color=always -l --time-style=+2024 .) | sed -E 's/ root +root / user user /' >ls.raw
	(cd lsdir && $cap -- ls --color=always) >>ls.raw
	write ls_color ls.raw
}

# go build with type errors.
go_build_errors() {
	mkdir gobuild && (cd gobuild && printf 'module example.com/b\n\ngo 1.24\n' >go.mod &&
		printf 'package main\n\nfunc main() {\n\tvar x int = "s"\n\tundefined()\n}\n' >main.go)
	(cd gobuild && $cap -- go build ./... || true) >gobuild.raw
	write go_build_errors gobuild.raw
}

# go test -v with a pass, a failure, a skip and subtests; times zeroed.
go_test_verbose() {
	mkdir gotest && printf 'module example.com/t\n\ngo 1.24\n' >gotest/go.mod
	cat >gotest/x_test.go <<'GO'
package t

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) {
	t.Log("context line")
	t.Errorf("got %d, want %d", 1, 2)
}

func TestSkip(t *testing.T) { t.Skip("not here") }

func TestSub(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("b", func(t *testing.T) { t.Fatal("boom") })
}
GO
	(cd gotest && $cap -- go test -v -count=1 . || true) | sed -E 's/[0-9]+\.[0-9]+s/0.00s/g' >gotest.raw
	write go_test_verbose gotest.raw
}

# Python unittest with a failure and an error (traceback).
python_unittest() {
	cat >test_calc.py <<'PY'
import unittest

class Calc(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(1 + 1, 2)

    def test_fail(self):
        self.assertEqual(sum([1, 2]), 4)

    def test_error(self):
        {}["missing"]

unittest.main(verbosity=2)
PY
	$cap -- python3 test_calc.py | sed -E 's/[0-9]+\.[0-9]+s/0.000s/' >unittest.raw || true
	write python_unittest unittest.raw
}

# A progress bar redrawn with carriage returns, as pip or curl do.
progress_bar() {
	cat >progress.py <<'PY'
import sys, time
for i in range(0, 101, 4):
    bar = "#" * (i // 4) + "-" * (25 - i // 4)
    sys.stdout.write(f"\r\x1b[32mDownloading\x1b[0m [{bar}] {i:3d}%")
    sys.stdout.flush()
    time.sleep(0.01)
sys.stdout.write("\r\x1b[K\x1b[1mDone\x1b[0m: 100 files\n")
PY
	$cap -- python3 progress.py >progress.raw
	write progress_bar progress.raw
}

# A multi-line display redrawn with cursor-up, as docker pull does.
cursor_up_redraw() {
	cat >layers.py <<'PY'
import sys, time
layers = ["a1b2c3", "d4e5f6", "0789ab"]
print("Pulling from library/example")
for step in range(0, 101, 25):
    if step:
        sys.stdout.write(f"\x1b[{len(layers)}A")
    for n, l in enumerate(layers):
        pct = min(100, step + n * 10)
        state = "Pull complete" if pct == 100 else f"Downloading {pct}%"
        sys.stdout.write(f"\x1b[2K{l}: {state}\n")
    sys.stdout.flush()
    time.sleep(0.01)
print("Status: Downloaded newer image")
PY
	$cap -- python3 layers.py >layers.raw
	write cursor_up_redraw layers.raw
}

# git clone --progress of a local bare repository.
git_clone_progress() {
	git init -q -b main src && (cd src && for i in $(seq 1 300); do echo "line $i" >"f$i.txt"; done &&
		git add . && git -c user.name=t -c user.email=t@t commit -qm init)
	git clone -q --bare src bare.git
	$cap -- git clone --progress --no-local "$work/bare.git" clone >git.raw
	write git_clone_progress git.raw
}

# top in batch mode, cut to its first 4000 bytes.
top_batch() {
	$cap -- top -b -n1 -w 120 | head -c 4000 >top.raw
	write top_batch top.raw
}

# A long minified line, as a bundler's output or a JSON dump.
long_minified_line() {
	python3 -c 'import json; print(json.dumps({"k%d" % i: list(range(i % 7)) for i in range(400)}, separators=(",", ":")))' >min.raw
	$cap -- cat min.raw >minified.raw
	write long_minified_line minified.raw
}

# cargo-style colored diagnostics, as printf writes them.
cargo_colored() {
	$cap -- bash -c 'printf "\e[0m\e[1m\e[32m   Compiling\e[0m demo v0.1.0 (/tmp/demo)\n"
printf "\e[0m\e[1m\e[38;5;9merror[E0308]\e[0m\e[0m\e[1m: mismatched types\e[0m\n"
printf "\e[0m \e[0m\e[0m\e[1m\e[38;5;12m--> \e[0m\e[0msrc/main.rs:2:18\e[0m\n"
printf "\e[0m  \e[0m\e[0m\e[1m\e[38;5;12m|\e[0m\n"
printf "\e[0m\e[1m\e[38;5;12m2\e[0m\e[0m \e[0m\e[0m\e[1m\e[38;5;12m|\e[0m\e[0m \e[0m\e[0m    let x: i32 = \"no\";\e[0m\n"
printf "\e[0m\e[1m\e[33mwarning\e[0m\e[1m: unused variable: \`x\`\e[0m\n"
printf "\e[0m\e[1m\e[31merror\e[0m\e[1m:\e[0m could not compile \`demo\` (bin \"demo\") due to 1 previous error\n"' >cargo.raw
	write cargo_colored cargo.raw
}

# A long test log over a small cap: head, error lines from the middle, tail.
long_log_capped() {
	cat >longlog.py <<'PY'
for i in range(1, 401):
    if i == 150:
        print("    handler_test.go:88: Error: expected 200, got 500")
    elif i == 151:
        print("--- FAIL: TestHandler/case_150 (0.01s)")
    elif i == 300:
        print("panic: runtime error: index out of range [3] with length 3")
    else:
        print(f"=== RUN   TestHandler/case_{i}")
PY
	$cap -- python3 longlog.py >longlog.raw
	write long_log_capped longlog.raw "MaxStreamChars=3000"
}

# Identical lines over a small cap fold into one and a count.
repeated_lines() {
	$cap -- sh -c 'echo start; yes | head -n 5000; echo end' >yes.raw
	write repeated_lines yes.raw "MaxStreamChars=3000"
}

# npm install of two small packages, with its spinner; an empty user config
# keeps this machine's settings out, the time is set to 1s.
npm_install() {
	mkdir npm && printf '{"name":"demo","version":"1.0.0","private":true}\n' >npm/package.json && : >npm/npmrc
	(cd npm && npm_config_userconfig="$work/npm/npmrc" $cap -- npm install --foreground-scripts=false \
		--color=always --no-audit --no-fund --no-update-notifier --cache "$work/npm/cache" is-number left-pad) |
		sed -E 's/ in [0-9.]+m?s/ in 1s/' >npm.raw
	write npm_install npm.raw
}

# apt-get update, then a download-only reinstall of one small package into
# a scratch archive folder; notes about ignored files in sources.list.d (this
# machine's) are dropped.
apt_get_progress() {
	mkdir -p apt-archives/partial
	$cap -- apt-get update | sed '/^N: Ignoring file/d' >apt.raw
	$cap -- apt-get install --download-only -y --reinstall -o Dir::Cache::archives="$work/apt-archives/" hostname |
		sed '/^N: Ignoring file/d' >>apt.raw
	write apt_get_progress apt.raw
}

all="ls_color go_build_errors go_test_verbose python_unittest progress_bar cursor_up_redraw
git_clone_progress top_batch long_minified_line cargo_colored long_log_capped repeated_lines
npm_install apt_get_progress"
for name in ${@:-$all}; do
	"$name"
done
