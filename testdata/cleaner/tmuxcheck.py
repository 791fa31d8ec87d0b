#!/usr/bin/env python3
"""Show what tmux makes of raw terminal output, to check a golden's want.

Usage: tmuxcheck.py [--xterm DIR] COLS ROWS RAWFILE
       tmuxcheck.py [--xterm DIR] [--write-screen] NAME.txtar...

Runs `stty -onlcr; cat RAWFILE` in a detached tmux pane of COLS by ROWS
(its own server, a config that keeps all history and, as xterm, does
not scroll a cleared screen into it), then prints three sections: the whole text
with wrapped rows joined (capture-pane -p -J -S -), the visible screen
(capture-pane -p), and the cursor as "row col" counted from 0. Trailing
spaces are trimmed, and trailing empty lines dropped, in each section.

Given golden files, it runs each raw section at the size its options give
(Cols=, Rows=, and Resize=OFFSET:COLS:ROWS after the first OFFSET bytes), compares the want section with tmux's joined text and the
screen and cursor sections with tmux's, and prints every difference. With
--write-screen it first sets the screen and cursor sections to the
terminal's.
A golden that ends on the alternate screen has its want compared with
nothing: the terminal shows that screen, the want is the main one.

With --xterm DIR, xterm.js stands for tmux: DIR is a node_modules folder
holding @xterm/headless (npm install @xterm/headless in a scratch folder),
run through xtcheck.js. tmux differs from xterm in a few places: it keeps
the lines scrolled out of any scroll region in its history (xterm keeps
only those of a region that starts at the top of the screen), and a
backspace or CUB right after the last column lands on that column (xterm:
the one before). The cleaner follows xterm.
"""
import os
import subprocess
import sys
import tempfile
import time


CONF = "set -g history-limit 100000\nset -g scroll-on-clear off\n"


def tmux(sock, *args):
    return subprocess.run(["tmux", "-L", sock, "-f", CONFFILE, *args],
                          check=True, capture_output=True, text=True).stdout


def trim(text):
    lines = [l.rstrip(" ") for l in text.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines)


XTERM = None


def engine():
    return "xterm.js" if XTERM else "tmux"


def run(cols, rows, raw, resize=None):
    if XTERM:
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(["node", os.path.join(here, "xtcheck.js"), cols, rows, raw],
                             check=True, capture_output=True, text=True,
                             env=dict(os.environ, NODE_PATH=XTERM, RESIZE=resize or "")).stdout
        parts = out.split("-- screen --\n")
        joined = parts[0].split("-- joined --\n", 1)[1]
        screen, cursor = parts[1].split("-- cursor --\n")
        return trim(joined), trim(screen), cursor.strip()
    global CONFFILE
    sock = "thcheck%d-%d" % (os.getpid(), time.monotonic_ns())
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(CONF)
        CONFFILE = f.name
    done = tempfile.mktemp(prefix="thcheck")
    cmd = "stty -onlcr; cat %s; touch %s; sleep 600" % (raw, done)
    if resize:
        # The first part, then wait while the window is resized, then the rest.
        offset, cols2, rows2 = resize.split(":")
        data = open(raw, "rb").read()
        for part, b in (("1", data[:int(offset)]), ("2", data[int(offset):])):
            open(raw + part, "wb").write(b)
        cmd = ("stty -onlcr; cat {r}1; touch {d}1; while [ ! -e {d}go ]; do sleep 0.05; done; "
               "cat {r}2; touch {d}; sleep 600").format(r=raw, d=done)
    tmux(sock, "new-session", "-d", "-x", cols, "-y", rows, cmd)
    try:
        if resize:
            for _ in range(200):
                if os.path.exists(done + "1"):
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            tmux(sock, "resize-window", "-x", cols2, "-y", rows2)
            time.sleep(0.2)
            open(done + "go", "w").close()
            cols = cols2
        for _ in range(200):
            if os.path.exists(done):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        joined = tmux(sock, "capture-pane", "-p", "-J", "-S", "-")
        screen = tmux(sock, "capture-pane", "-p")
        y, x, alt = tmux(sock, "display", "-p", "#{cursor_y} #{cursor_x} #{alternate_on}").split()
    finally:
        tmux(sock, "kill-server")
        os.remove(CONFFILE)
        for f in (done, done + "1", done + "go", raw + "1", raw + "2"):
            if os.path.exists(f):
                os.remove(f)
    # tmux puts a cursor waiting to wrap past the last column; a terminal
    # shows it on the last column.
    cursor = "%s %d alt=%s" % (y, min(int(x), int(cols) - 1), alt)
    return trim(joined), trim(screen), cursor


def read_txtar(path):
    names, data, cur = [], {}, None
    text = open(path, "rb").read().decode("utf-8", "surrogateescape")
    if text.endswith("\n"):
        text = text[:-1]  # the newline that ends the last section's data
    for line in text.split("\n"):
        if line.startswith("-- ") and line.endswith(" --") and len(line) >= 7:
            cur = line[3:-3].strip()
            names.append(cur)
            data[cur] = []
        elif cur is not None:
            data[cur].append(line)
    return names, {k: "\n".join(v) for k, v in data.items()}


def write_txtar(path, names, data):
    out = "".join("-- %s --\n%s\n" % (n, data[n]) for n in names)
    open(path, "wb").write(out.encode("utf-8", "surrogateescape"))


def golden(path, write):
    names, data = read_txtar(path)
    raw = data["raw"]
    opts = dict(l.split("=", 1) for l in data.get("options", "").split())
    with tempfile.NamedTemporaryFile("wb", suffix=".raw", delete=False) as f:
        f.write(raw.encode("utf-8", "surrogateescape"))
    try:
        joined, screen, cursor = run(opts.get("Cols", "160"), opts.get("Rows", "64"), f.name, opts.get("Resize"))
    finally:
        os.remove(f.name)
    if write:
        for n in ("screen", "cursor"):
            if n not in names:
                names.append(n)
        data["screen"], data["cursor"] = screen + "\n", cursor + "\n"
        write_txtar(path, names, data)
    ok = True
    checks = [("screen", screen), ("cursor", cursor)]
    if not cursor.endswith("alt=1"):
        checks.insert(0, ("want", joined))
    for name, want in checks:
        got = trim(data.get(name, ""))
        if got != want:
            ok = False
            print("%s: %s differs from %s:\n%s\n-- %s --\n%s" % (path, name, engine(), got, engine(), want))
    if ok:
        print("%s: matches %s" % (path, engine()))
    return ok


def main():
    global XTERM
    args = sys.argv[1:]
    if args and args[0] == "--xterm":
        XTERM, args = os.path.abspath(args[1]), args[2:]
    if args and (args[0] == "--write-screen" or args[0].endswith(".txtar")):
        write = args[0] == "--write-screen"
        ok = all([golden(p, write) for p in args[write:]])
        sys.exit(0 if ok else 1)
    joined, screen, cursor = run(args[0], args[1], os.path.abspath(args[2]))
    print("-- joined --\n" + joined)
    print("-- screen --\n" + screen)
    print("-- cursor --\n" + cursor)


if __name__ == "__main__":
    main()
