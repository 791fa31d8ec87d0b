#!/usr/bin/env python3
"""Run a command on a pseudo-terminal and print every byte it writes.

Usage: capture.py [--cols N] [--rows N] -- CMD [ARG...]

The terminal is sized like the one termhelper gives its commands, and
TERM is xterm-256color, so programs color and redraw as they would for a
person. The capture goes to stdout unchanged.
"""
import os
import pty
import struct
import sys
import fcntl
import termios


def main():
    args = sys.argv[1:]
    cols, rows = 160, 40
    while args and args[0] != "--":
        flag, value = args[0], int(args[1])
        if flag == "--cols":
            cols = value
        elif flag == "--rows":
            rows = value
        args = args[2:]
    cmd = args[1:]
    pid, fd = pty.fork()
    if pid == 0:
        # Size the terminal before exec, so the program sees it at start.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cmd[0], cmd)
    out = sys.stdout.buffer
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out.write(data)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
