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

# The terminal features below are small scripts of escape sequences, run on
# a terminal of COLSxROWS given in the options, so that the wants and the
# screen sections can be checked against tmux (tmuxcheck.py).
term_script() { # name, cols, rows, python code
	printf '%s\n' "$4" >"$1.py"
	$cap --cols "$2" --rows "$3" -- python3 "$1.py" >"$1.raw"
	write "$1" "$1.raw" "Cols=$2
Rows=$3"
}

# vim draws on the alternate screen and leaves it: only what was before
# and after remains, as in xterm.
alt_screen_vim() {
	printf 'one\ntwo\nthree\n' >alt.txt
	$cap --cols 60 --rows 12 -- sh -c 'echo before; vim -u NONE -N -c "redraw" -c "sleep 100m" -c "q" alt.txt; echo after' >alt.raw
	write alt_screen_vim alt.raw "Cols=60
Rows=12"
}

# Modes 1049, 1047 and 47: screens drawn with cursor moves, left again;
# 1049 restores the cursor, 47 keeps the alternate screen's.
alt_screen_modes() {
	term_script alt_screen_modes 40 8 'import sys
w = sys.stdout.write
w("main 1\r\nmain 2")
w("\x1b[?1049h\x1b[H\x1b[2Jfull screen\x1b[5;3Hmenu item\x1b[?1049l")
w(" back\r\n")
w("\x1b[?1047h\x1b[Hsecond\x1b[?1047l")
w("after 1047\r\n")
w("\x1b[?47h\x1b[3;1Hthird\x1b[?47l")
w("at the 47 cursor\r\n")'
}

# A program still on the alternate screen: the screen section is that
# screen, the want the main one.
alt_screen_open() {
	term_script alt_screen_open 40 8 'import sys
w = sys.stdout.write
w("$ top-like\r\n")
w("\x1b[?1049h\x1b[H\x1b[2Jstill drawing\x1b[2;1Hon the alternate screen\x1b[4;10H")'
}

# A scroll region below a fixed header: lines scrolled out of it are gone;
# then a region from the top with a status line under it, as dpkg draws
# its progress: lines scrolled out of that one reach the scrollback.
scroll_region() {
	term_script scroll_region 40 10 'import sys
w = sys.stdout.write
w("\x1b[H\x1b[2Jheader stays\r\n")
w("\x1b[3;6r\x1b[3;1H")
for i in range(1, 9):
    w("region line %d\r\n" % i)
w("\x1b[r\x1b[8;1Hbelow the region\r\n")
w("\x1b[1;8r\x1b[10;1Hstatus: working\x1b[8;1H")
for i in range(1, 13):
    w("\r\nlog %d" % i)
w("\x1b[2A\x1bM\x1bMreverse\x1b[S\x1b[2T")
w("\x1b[r\x1b[10;1H\x1b[2Kdone\r\n")'
}

# Autowrap: lines longer than the terminal come out whole; a line of
# exactly the width then CR LF is not joined to the next; the pending wrap
# survives a tab and ends with a backspace, a carriage return or a move;
# with DECAWM off the last column is overwritten.
autowrap() {
	term_script autowrap 20 8 'import sys
w = sys.stdout.write
w("a long line that wraps over the edge of the terminal twice\r\n")
w("exactly twenty chars\r\n")
w("exactly twenty char!\bX\r\n")
w("01234567890123456789\tT\r\n")
w("01234567890123456789\rstart\r\n")
w("01234567890123456789\x1b[1Dy\r\n")
w("\x1b[?7lno wrap here: the last column is overwritten\x1b[?7h\r\n")
w("wrapped then redrawn in place...\r\x1b[A\x1b[2Kredrawn\r\n\r\n")'
}

# IL, DL, ICH, DCH and IRM on a small screen.
insert_delete() {
	term_script insert_delete 30 8 'import sys
w = sys.stdout.write
w("line 1\r\nline 2\r\nline 3\r\nline 4\r\nline 5\r\n")
w("\x1b[2;1H\x1b[2Linserted A\r\ninserted B")
w("\x1b[6;1H\x1b[M")
w("\x1b[1;3H\x1b[2@__\x1b[1;12H")
w("\x1b[7;1Habcdefghij\x1b[3G\x1b[3P\x1b[4h\x1b[6GINS\x1b[4l\r\n")'
}

# Every erase form: ED 0, 1, 2 and 3, EL 0, 1 and 2, ECH.
erase_forms() {
	term_script erase_forms 30 10 'import sys
w = sys.stdout.write
w("drawn first\r\ncleared by ED 2\x1b[2J\x1b[H")
for i in range(1, 8):
    w("row %d abcdefghij\r\n" % i)
w("\x1b[3J")
w("\x1b[2;8H\x1b[1J\x1b[6;8H\x1b[0J")
w("\x1b[3;8H\x1b[K\x1b[4;8H\x1b[1K\x1b[5;8H\x1b[2K")
w("\x1b[7;4H\x1b[3X\x1b[9;1Hend")'
}

# Tab stops: the default every 8, HTS, TBC at the cursor and all, CHT, CBT.
tabs() {
	term_script tabs 40 8 'import sys
w = sys.stdout.write
w("a\tb\tc\td\te\r\n")
w("\x1b[3g\x1b[5G\x1bH\x1b[12G\x1bH\x1b[1G")
w("x\ty\tz\tend\r\n")
w("\x1b[5G\x1b[g\x1b[1G1\t2\t3\r\n")
w("\x1b[2I>\x1b[30G\x1b[Z<\r\n")'
}

# Wide characters: CJK and emoji, overwritten by halves, moved over, and
# one that does not fit the last column wraps whole.
wide_chars() {
	term_script wide_chars 12 6 'import sys
w = sys.stdout.write
w("日本語のテキスト\r\n")
w("ab🙂cd\r\n")
w("日本語\x1b[2GX\r\n")
w("日本語\x1b[3GYZ\r\n")
w("0123456789a日本\r\n")
w("e\u0301 and 한국어\r\n")'
}

# A resize: lines on a terminal of 30x8, then (at the OSC marker, which
# terminals ignore) 20x5, then a line that wraps at the new width. The
# lines before are short: terminals that reflow and those that do not
# agree on them.
resize() {
	printf '%s\n' 'import sys
w = sys.stdout.write
for i in range(1, 13):
    w("line %d\r\n" % i)
w("\x1b]1337;resize\x07")
w("after the resize, a line that wraps\r\nend")' >resize.py
	$cap --cols 30 --rows 8 -- python3 resize.py >resize.raw
	at=$(python3 -c 'import sys; b=open("resize.raw","rb").read(); m=b"\x1b]1337;resize\x07"; print(b.index(m)+len(m))')
	write resize resize.raw "Cols=30
Rows=8
Resize=$at:20:5"
}

# A Python curses program: a window with a scroll region of its own, text
# at set places, then curses ends. TERM=vt100 has scroll regions but no
# alternate screen, so what curses drew stays on the main screen.
curses_scroll() {
	term_script curses_scroll 40 12 'import os
os.environ["TERM"] = "vt100"
import curses
def main(s):
    s.addstr(0, 0, "title row")
    win = curses.newwin(6, 40, 2, 0)
    win.scrollok(True)
    for i in range(12):
        win.addstr("entry %d\n" % i)
        win.refresh()
    s.addstr(10, 5, "bottom")
    s.refresh()
print("before curses")
curses.wrapper(main)
print("after curses")'
}

all="ls_color go_build_errors go_test_verbose python_unittest progress_bar cursor_up_redraw
git_clone_progress top_batch long_minified_line cargo_colored long_log_capped repeated_lines
npm_install apt_get_progress alt_screen_vim alt_screen_modes alt_screen_open scroll_region autowrap insert_delete
erase_forms tabs wide_chars resize curses_scroll"
for name in ${@:-$all}; do
	"$name"
done
