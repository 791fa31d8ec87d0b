package sandbox

// Launch is how to start one command confined. Prepare makes it; Apply
// sets it on the exec.Cmd before Start; after Start the caller calls
// Started (or Abort, if Start failed), which releases what the launch
// holds.
type Launch struct {
	sys sysLaunch
}

// Guard lives as long as a confined process: it serves what the sandbox
// asks the helper (the network filter's connects on Linux) and keeps what
// was refused. A nil Guard is an unconfined process.
type Guard struct {
	sys sysGuard
}

// Denied lists what the sandbox refused the process so far.
func (g *Guard) Denied() []Denial {
	if g == nil {
		return nil
	}
	return g.sys.denied()
}

// Close stops serving the process; call it once the process is gone.
func (g *Guard) Close() {
	if g != nil {
		g.sys.close()
	}
}

// plainLaunch is the launch of a plan that confines nothing (mode off),
// or none.
func plainLaunch(off bool) *Launch {
	if !off {
		return nil
	}
	return &Launch{sys: sysLaunch{plain: true}}
}
