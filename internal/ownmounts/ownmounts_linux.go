package ownmounts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
)

// Run runs m's tests and returns their exit code. As root, it runs them
// in a child of the test binary with a mount namespace of its own, where
// Go makes / recursively private: the host's mounts made meanwhile do
// not reach it, nor do the tests' reach the host. Elsewhere (no root,
// which would need a user namespace that changes what the tests see),
// or where the child cannot start, the tests run here, and say why.
func Run(m *testing.M) int {
	if Own() || os.Geteuid() != 0 {
		return m.Run()
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), Env+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	signal.Ignore(syscall.SIGINT) // the child takes ^C and ends as it would
	if err := cmd.Start(); err != nil {
		signal.Reset(syscall.SIGINT)
		fmt.Fprintf(os.Stderr, "ownmounts: the tests run in the host's mount namespace (%v): a mount made meanwhile can fail them\n", err)
		return m.Run()
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "ownmounts: the tests' process: %v\n", err)
		return 1
	}
}
