#!/usr/bin/env python3
"""Show what tmux makes of raw terminal output, to check a golden's want.

Usage: tmuxcheck.py COLS ROWS RAWFILE

Runs `stty -onlcr; cat RAWFILE` in a detached tmux pane of COLS by ROWS
(its own server, a config that keeps all history and, as xterm, does
not scroll a cleared screen into it), then prints three sections: the whole text
with wrapped rows joined (capture-pane -p -J -S -), the visible screen
(capture-pane -p), and the cursor as "row col" counted from 0. Trailing
spaces are trimmed, and trailing empty lines dropped, in each section.
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


def main():
    cols, rows, raw = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    global CONFFILE
    sock = "thcheck%d" % os.getpid()
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(CONF)
        CONFFILE = f.name
    done = tempfile.mktemp(prefix="thcheck")
    cmd = "stty -onlcr; cat %s; touch %s; sleep 600" % (raw, done)
    tmux(sock, "new-session", "-d", "-x", cols, "-y", rows, cmd)
    try:
        for _ in range(200):
            if os.path.exists(done):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        joined = tmux(sock, "capture-pane", "-p", "-J", "-S", "-")
        screen = tmux(sock, "capture-pane", "-p")
        cursor = tmux(sock, "display", "-p", "#{cursor_y} #{cursor_x} #{alternate_on}")
    finally:
        tmux(sock, "kill-server")
        os.remove(CONFFILE)
        if os.path.exists(done):
            os.remove(done)
    print("-- joined --\n" + trim(joined))
    print("-- screen --\n" + trim(screen))
    print("-- cursor --\n" + cursor.strip())


if __name__ == "__main__":
    main()
