//go:build !linux

package platform

// ListeningPorts is not known here yet: answers leave ports out.
func (p *Process) ListeningPorts() []int { return nil }
