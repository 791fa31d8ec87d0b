//go:build unix && !linux

package platform

// InputState is not known here: the caller falls back to quiet output and
// a prompt-like last line.
func (p *Process) InputState() InputState { return InputState{} }
