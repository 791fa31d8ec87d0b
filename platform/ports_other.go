//go:build unix && !linux && !darwin

package platform

// ListeningPorts is not known on this system: it returns nil.
func (p *Process) ListeningPorts() []int { return nil }
