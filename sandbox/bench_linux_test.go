package sandbox

import "testing"

// BenchmarkStart is the cost of starting /bin/true and waiting for it:
// unconfined, through the trampoline with the measured set-up (with the
// network filter and without), and with Landlock alone (its reads granted
// around the secret places). The trampoline here is the test binary.
func BenchmarkStart(b *testing.B) {
	for _, c := range []struct {
		name  string
		force string
		mode  Mode
		net   Network
	}{{"plain", "", Off, NetworkOpen}, {"sandboxed", "", WorkspaceWrite, NetworkOpen},
		{"sandboxed-network", "", WorkspaceWrite, NetworkProxy}, {"landlock-only", "none", WorkspaceWrite, NetworkOpen}} {
		b.Run(c.name, func(b *testing.B) {
			old := forceNamespaces
			forceNamespaces = c.force
			defer func() { forceNamespaces = old }()
			if c.net != NetworkOpen && !measured().netOK {
				b.Skip(measured().noNet)
			}
			w := newWorld(b)
			p := w.plan(c.mode)
			p.Network = c.net
			if c.mode == Off {
				p = Plan{Mode: Off, Network: NetworkOpen, Root: w.root}
			}
			env := w.env()
			b.ReportAllocs()
			for b.Loop() {
				if r := runArgv(b, p, env, "/bin/true"); r.code != 0 {
					b.Fatalf("exit %d: %s", r.code, r.out)
				}
			}
		})
	}
}

// BenchmarkMeasure is what Probe costs the first time: the Landlock
// system call and the namespace child (this test binary, here).
func BenchmarkMeasure(b *testing.B) {
	for b.Loop() {
		measure()
	}
}

// BenchmarkDefaults is the cost of the default lists for a command: the
// caches looked at (and made), the git folders read.
func BenchmarkDefaults(b *testing.B) {
	w := newWorld(b)
	for b.Loop() {
		Defaults(w.root, w.home, w.getenv)
	}
}
