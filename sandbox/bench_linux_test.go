package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

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

// BenchmarkHeldStart is a confined start of /bin/true by the exec stub in
// held namespaces, step by step: each case runs the stub's steps up to
// one more kind than the case before, then executes /bin/true. "exec"
// is the stub executing /bin/true with no step at all, and "trampoline"
// a fresh trampoline's whole start, for comparison; "user-namespace" is
// the path of an ordinary user, forced for root.
func BenchmarkHeldStart(b *testing.B) {
	b.Run("measured", func(b *testing.B) { benchHeldStart(b, "") })
	if measured().nsFlags&unix.CLONE_NEWUSER == 0 && userNamespacesWork() {
		// root needs no user namespace: the path an ordinary user
		// takes, with the user namespace of the command's own.
		b.Run("user-namespace", func(b *testing.B) { benchHeldStart(b, "user") })
	}
}

func benchHeldStart(b *testing.B, force string) {
	old := forceNamespaces
	forceNamespaces = force
	defer func() { forceNamespaces = old }()
	w := newWorld(b)
	p := w.plan(WorkspaceWrite)
	if measured().netOK {
		p.Network = NetworkProxy
	}
	ns, err := newHeld(p)
	if err != nil {
		b.Skip("no held namespaces here: ", err)
	}
	defer ns.release(true)
	full := heldArgs(b, ns, p)
	for _, c := range heldCases(full) {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				runStub(b, ns, c.args, c.net)
			}
		})
	}
	b.Run("trampoline", func(b *testing.B) {
		for b.Loop() {
			if r := runArgv(b, p, w.env(), "/bin/true"); r.code != 0 {
				b.Fatalf("exit %d: %s", r.code, r.out)
			}
		}
	})
}

// stubCase is a prefix of the stub's steps.
type stubCase struct {
	name string
	args []string
	net  bool
}

// heldArgs are the stub's steps for p in ns, without the command, the
// network filter's socket at descriptor 3.
func heldArgs(b *testing.B, ns *heldNS, p Plan) []string {
	cmd := &exec.Cmd{}
	ns.apply(cmd, "/", nil, "", "")
	args := cmd.Args[1 : len(cmd.Args)-1]
	if ns.prog != "" {
		args = append(args, "s", "FD", ns.prog)
	}
	return args
}

// stubArity is the number of words after each step's letter.
var stubArity = map[string]int{"j": 1, "n": 2, "d": 1, "U": 1, "u": 1, "m": 5, "c": 2, "l": 3, "r": 4, "L": 0, "s": 2}

// heldCases cut the steps after each kind: entering, a user namespace
// of the command's own, its other namespaces, the mounts, the
// capabilities, Landlock (l, r and L), the command's folder, the filter.
func heldCases(full []string) []stubCase {
	kind := map[string]string{"n": "enter", "U": "user", "u": "unshare", "m": "mounts", "c": "caps",
		"l": "landlock", "r": "landlock", "L": "landlock", "d": "folder", "s": "seccomp"}
	cases := []stubCase{{name: "exec"}}
	for i := 0; i < len(full); i += 1 + stubArity[full[i]] {
		end := i + 1 + stubArity[full[i]]
		if end < len(full) && kind[full[end]] == kind[full[i]] {
			continue
		}
		cases = append(cases, stubCase{name: "+" + kind[full[i]], args: full[:end], net: full[i] == "s"})
	}
	return cases
}

// runStub runs the stub with args, then /bin/true, and waits for it;
// with net, a socket for the filter's listener takes the FD word's place.
func runStub(b *testing.B, ns *heldNS, args []string, net bool) {
	cmd := &exec.Cmd{Dir: "/"}
	stub, _ := stubFile()
	var files []*os.File // in apply's order
	if ns.user != nil {
		files = append(files, ns.user)
	}
	files = append(files, ns.mnt)
	args = slices.Clone(args)
	if net {
		mine, theirs, err := listenerPair()
		if err != nil {
			b.Fatal(err)
		}
		defer mine.Close()
		defer theirs.Close()
		files = append(files, theirs)
		args[slices.Index(args, "FD")] = strconv.Itoa(2 + len(files))
	}
	cmd.Path, cmd.ExtraFiles = "/proc/self/fd/"+strconv.Itoa(int(stub.Fd())), files
	cmd.Args = append(append([]string{"termhelper-exec"}, args...), "--", "/bin/true", "true")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
}

// BenchmarkFootprint is what a spare's check costs as its command
// arrives (Holds), and what reading it afresh costs (FootprintOf reads it
// when the last one no longer holds), for the default plan of a project.
func BenchmarkFootprint(b *testing.B) {
	w := newWorld(b)
	p := w.plan(WorkspaceWrite)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			readFootprint(p)
		}
	})
	f := readFootprint(p)
	b.Run("look", func(b *testing.B) { // a check without the journal
		for b.Loop() {
			if holds, _ := f.look(); !holds {
				b.Fatal("the footprint changed")
			}
		}
	})
	b.Run("arm", func(b *testing.B) { // a check after a change: the journal armed, then a look
		for b.Loop() {
			f.armJournal()
			f.look()
		}
	})
	b.Run("holds", func(b *testing.B) { // the journal's word, and a look at what it does not cover
		for b.Loop() {
			if !f.Holds() {
				b.Fatal("the footprint changed")
			}
		}
	})
	_, rest := f.armJournal()
	b.Logf("%d paths there, %d folders of missing paths; not covered: %d and %d", len(f.there), len(f.gone), len(rest.there), len(rest.gone))
}
