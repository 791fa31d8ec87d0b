//go:build windows

package platform

import (
	"os/exec"
	"time"
)

// TagVar is the environment variable that carries a command's tag.
const TagVar = "TERMHELPER_SESSION"

type sysProcess struct{}

// Start is not implemented on Windows yet.
func Start(Spec) (*Process, error) { return nil, ErrUnsupported }

// Run runs cmd to its end.
func Run(cmd *exec.Cmd) error { return cmd.Run() }

// Init does nothing on Windows.
func Init() {}

// Wait is not implemented on Windows yet.
func (p *Process) Wait() (Exit, error) { return Exit{}, ErrUnsupported }

// Signal is not implemented on Windows yet.
func (p *Process) Signal(Signal) {}

// Alive is not implemented on Windows yet.
func (p *Process) Alive() bool { return false }

// Kill is not implemented on Windows yet.
func (p *Process) Kill(Signal, time.Duration) {}

// KillTree is not implemented on Windows yet.
func KillTree(int, string, Signal, time.Duration) {}

// Resize is not implemented on Windows yet.
func (p *Process) Resize(int, int) error { return ErrUnsupported }

// StopReading is not implemented on Windows yet.
func (p *Process) StopReading() {}

// Close is not implemented on Windows yet.
func (p *Process) Close() {}

// InputState is not known on Windows.
func (p *Process) InputState() InputState { return InputState{} }

// IsEOF reports whether err ends a stream.
func IsEOF(error) bool { return true }

// StartTime is not known on Windows yet.
func StartTime(int) (uint64, bool) { return 0, false }

// KillLeftovers is not implemented on Windows yet: the job objects end
// with their helper.
func KillLeftovers(string, map[int]uint64) int { return 0 }
