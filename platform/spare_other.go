//go:build unix && !linux

package platform

import "os/exec"

// No spares here: the sandbox is Linux's trampoline or Seatbelt's
// sandbox-exec, which has no costly start of its own to take ahead.
func fromSpare(*exec.Cmd, Confiner, []string) (started, bool, error) {
	return started{}, false, nil
}

type spare struct{}

func (*spare) retire() {}

func scheduleSpare(Confiner) func() { return nil }

// DropSpare has nothing to end here.
func DropSpare() {}
