//go:build unix

package persist

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ReadyFD is the descriptor on which a background helper says it listens.
const ReadyFD = 3

// startWait bounds the wait for a new helper to listen.
const startWait = 30 * time.Second

// startHelper starts this program again with args as the background
// helper for p: a session of its own (no terminal, not in the host's
// process group, so no signal meant for the host reaches it), stdin and
// stdout on /dev/null, stderr to p.Log. It returns once the helper
// listens, or with why it could not.
func startHelper(p Place, args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("starting the background helper: %w", err)
	}
	logf, err := os.OpenFile(p.Log, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("the background helper's log: %w", err)
	}
	defer logf.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	defer rd.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stderr, cmd.ExtraFiles = logf, []*os.File{wr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	wr.Close()
	if err != nil {
		return fmt.Errorf("starting the background helper: %w", err)
	}
	defer cmd.Process.Release()
	return awaitReady(rd, p.Log)
}

// awaitReady reads the helper's first line: "ready", or why not.
func awaitReady(rd *os.File, log string) error {
	rd.SetReadDeadline(time.Now().Add(startWait))
	line, err := bufio.NewReader(rd).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == "ready":
		return nil
	case line != "":
		return fmt.Errorf("the background helper could not start: %s", line)
	}
	return fmt.Errorf("the background helper did not start (%v); see %s", err, log)
}

// ReadyFile is, in the background helper, where it says it listens.
func ReadyFile() *os.File { return os.NewFile(ReadyFD, "ready") }
