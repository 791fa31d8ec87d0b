//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// benchPeers (the peers section) runs in a full or quick run only where
// node-pty is already installed (see peerSetup); it installs it when
// -only names it. It times `echo hi` run by node-pty in a node process, as a host
// using node-pty directly does, against termhelper's round trip, confined
// and not, all taking turns in blocks so that they see the same machine.
func benchPeers(e *env) (result, error) {
	var res result
	dir, why := peerSetup()
	if why == "" {
		return res, measurePeers(e, dir, &res)
	}
	res.note("peers: skipped: %s", why)
	return res, nil
}

func measurePeers(e *env, dir string, res *result) error {
	p, err := startNode(dir)
	if err != nil {
		res.note("peers: skipped: node-pty does not start from %s (%v); to install it again: `rm -rf %s` and `go run ./bench -bin bin/termhelper -only peers`", dir, err, dir)
		return nil
	}
	defer p.close()
	off, err := spawnEnv(e, []string{unconfined})
	if err != nil {
		return err
	}
	defer off.close()
	on, st, err := spawnSandboxed(e)
	if err != nil {
		return err
	}
	if on == nil {
		res.note("peers: skipped: no sandbox on this machine")
		return nil
	}
	defer on.close()
	n := e.reps(100, 10)
	s, err := inBlocks([]timed{p.way("pty"), p.way("spawn"), echoHi(off), echoHi(on)}, n, block, block, 0)
	if err != nil {
		return err
	}
	peerRows(res, s[0], s[1], s[2], s[3])
	res.note("peers: `/bin/sh -c 'echo hi'`, %d times each back to back after a warm-up block of %d, in blocks of %d taking turns: node-pty %s's `pty.spawn` in one long-lived node %s process, timed there from the spawn call to its exit event with the output `hi` received; `child_process.spawn` (a pipe, no terminal) in the same process, to its close event with the output received; and termhelper's `exec/run`, from the request written to the answer read, on a helper with the sandbox off and on one with it in force (%s, network %s). node-pty is installed from bench/peers/package-lock.json in %s.",
		n, block, block, p.ptyVersion, p.nodeVersion, st.Backend, st.Network, dir)
	return nil
}

// peerRows adds the rows of the peers section; the floor column holds
// node-pty's times.
func peerRows(res *result, nodePty, plain, off, on samples) {
	const peer = "`echo hi` round trip, node-pty (spawn to exit, in-process)"
	res.add(row{peer + ", median", fmtDur(nodePty.median()), "", "", "", ""})
	res.add(row{peer + ", p95", fmtDur(nodePty.p95()), "", "", "", ""})
	res.add(row{"`echo hi` round trip, `child_process.spawn` without a pty (spawn to close, in-process), median",
		fmtDur(plain.median()), "", "", "", ""})
	r := ratio(off.median(), nodePty.median())
	res.add(row{"`echo hi` round trip, termhelper unconfined, back to back, median (floor: node-pty)",
		fmtDur(nodePty.median()), fmtDur(off.median()), fmtRatio(r), "", ""})
	r = ratio(on.median(), nodePty.median())
	res.add(row{"`echo hi` round trip, termhelper confined, back to back, median (floor: node-pty)",
		fmtDur(nodePty.median()), fmtDur(on.median()), fmtRatio(r), "≤ 1x node-pty", verdict(r <= 1)})
	res.add(row{"`echo hi` round trip, termhelper confined, back to back, p95 (floor: node-pty)",
		fmtDur(nodePty.p95()), fmtDur(on.p95()), fmtRatio(ratio(on.p95(), nodePty.p95())), "", ""})
}

// nodePeer is bench/peers/runner.js running in node: it answers each way
// written on its stdin with the nanoseconds that way took.
type nodePeer struct {
	cmd         *exec.Cmd
	in          io.WriteCloser
	out         *bufio.Reader
	stderr      lockedBuffer
	nodeVersion string
	ptyVersion  string
}

// peerTimeout guards each answer of the node process against a hang; it
// is not a timing target.
const peerTimeout = 30 * time.Second

// startNode starts the runner in dir and waits for it to have node-pty
// loaded.
func startNode(dir string) (*nodePeer, error) {
	p := &nodePeer{cmd: exec.Command("node", "runner.js")}
	p.cmd.Dir, p.cmd.Stderr = dir, &p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	p.out = bufio.NewReader(out)
	line, err := p.line()
	if err != nil || !strings.HasPrefix(line, "ready ") {
		p.close()
		return nil, fmt.Errorf("answered %q, %v; stderr: %s", line, err, head(p.stderr.String(), 400))
	}
	_, err = fmt.Sscan(line, new(string), &p.nodeVersion, &p.ptyVersion)
	return p, err
}

// line reads one answer, killing the process if none comes in time.
func (p *nodePeer) line() (string, error) {
	t := time.AfterFunc(peerTimeout, func() { p.cmd.Process.Kill() })
	defer t.Stop()
	line, err := p.out.ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

// way is one timed run of `echo hi` the way named: "pty" or "spawn".
func (p *nodePeer) way(name string) timed {
	return func() (time.Duration, error) {
		if _, err := io.WriteString(p.in, name+"\n"); err != nil {
			return 0, err
		}
		line, err := p.line()
		if err != nil {
			return 0, fmt.Errorf("node %s: %v; stderr: %s", name, err, head(p.stderr.String(), 400))
		}
		ns, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("node %s: %s", name, line)
		}
		return time.Duration(ns), nil
	}
}

// close ends the runner by closing its stdin, and kills it if it does not
// exit in time.
func (p *nodePeer) close() {
	p.in.Close()
	t := time.AfterFunc(peerTimeout, func() { p.cmd.Process.Kill() })
	defer t.Stop()
	p.cmd.Wait() // the exit status of a runner told to stop says nothing
}
