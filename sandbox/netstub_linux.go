package sandbox

import (
	"errors"
	"log/slog"
	"os"
)

// These stand for the network filter and its supervisor until they land
// (net*_linux.go); this file goes away then.

type netSupervisor struct{}

// filterNetwork installs the network filter on the calling thread (locked,
// no_new_privs set) for network mode n and returns the listener fd.
func filterNetwork(n Network) (listener int, err error) {
	return -1, errors.New("the network filter is not built yet")
}

// superviseNetwork serves listener until every process under the filter is
// gone or Close is called; pid is the command's pid.
func superviseNetwork(listener *os.File, pid int, log *slog.Logger) *netSupervisor {
	listener.Close()
	return &netSupervisor{}
}

func (s *netSupervisor) Denied() []Denial { return nil }
func (s *netSupervisor) Close()           {}

// networkSupport says whether this kernel has what the filter needs.
func networkSupport() (ok bool, reason string) {
	return false, "the network filter is not built yet"
}
