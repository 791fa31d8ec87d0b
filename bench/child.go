//go:build linux

package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// runChild is this program started again as a command under test, so that
// what the command does, and when, is known exactly (as os/exec's tests
// use their own binary as the child).
func runChild(args []string) int {
	if len(args) == 0 {
		return 2
	}
	fs := flag.NewFlagSet("child "+args[0], flag.ContinueOnError)
	sleep := fs.Duration("sleep", 0, "stamp: how long to sleep before the stamp")
	out := fs.String("out", "", "stamp: file for the exit time")
	size := fs.Int64("bytes", 0, "gen: how many bytes to write")
	every := fs.Duration("every", 10*time.Millisecond, "tick: time between lines")
	total := fs.Duration("for", time.Second, "tick, serve: how long to go on")
	if fs.Parse(args[1:]) != nil {
		return 2
	}
	switch args[0] {
	case "echo":
		return childEcho()
	case "stamp":
		return childStamp(*sleep, *out)
	case "gen":
		return childGen(*size)
	case "tick":
		return childTick(*every, *total)
	case "serve":
		return childServe(*total)
	case "egress":
		return childEgress()
	}
	return 2
}

// childEcho is the start-up floor: a Go program that reads one request
// line and answers one line, with no work in between.
func childEcho() int {
	r := bufio.NewReader(os.Stdin)
	if _, err := r.ReadBytes('\n'); err != nil {
		return 1
	}
	os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	return 0
}

// childStamp sleeps, writes the wall clock (CLOCK_REALTIME, ns) to a file
// and exits at once: the stamp is the process's exit time, early by only
// the file write.
func childStamp(d time.Duration, out string) int {
	time.Sleep(d)
	now := time.Now().UnixNano()
	if err := os.WriteFile(out, []byte(strconv.FormatInt(now, 10)), 0o600); err != nil {
		return 1
	}
	return 0
}

// childGen writes about n bytes of distinct colored log lines, the way
// loggers and test runners color a terminal, as fast as the pty takes
// them.
func childGen(n int64) int {
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	var written int64
	for i := 0; written < n; i++ {
		k, err := fmt.Fprintf(w, "\x1b[2m12:%02d:%02d.%03d\x1b[0m %s \x1b[1mworker-%d\x1b[0m request id=%d path=/api/v1/items/%d status=200 in %dms\n",
			i/60%60, i%60, i%1000, levels[i%len(levels)], i%8, i, i*7, i%250)
		if err != nil {
			return 1
		}
		written += int64(k)
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

// childTick prints a line at a steady pace, like a dev server's log.
func childTick(every, total time.Duration) int {
	t := time.NewTicker(every)
	defer t.Stop()
	end := time.After(total)
	for i := 0; ; i++ {
		select {
		case <-t.C:
			fmt.Printf("tick %d at %s\n", i, time.Now().Format("15:04:05.000"))
		case <-end:
			return 0
		}
	}
}

// childServe listens on a loopback port, says which, and stays idle: a
// dev server between requests.
func childServe(total time.Duration) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	defer l.Close()
	fmt.Println("listening on", l.Addr())
	time.Sleep(total)
	return 0
}
