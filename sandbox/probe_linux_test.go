package sandbox

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProbeSaysWhatThisMachineGives(t *testing.T) {
	st := Probe(WorkspaceWrite, NetworkProxy)
	t.Logf("Probe(workspace-write, proxy) here: %+v", st)
	m := measured()
	if m.abi == 0 {
		if st.Mode != Off || st.Backend != "none" || st.Reason == "" {
			t.Fatalf("no Landlock must mean mode off, backend none and a reason: %+v", st)
		}
		return
	}
	want := "landlock"
	if m.nsFlags != 0 {
		want = "landlock+namespaces"
	}
	if st.Mode != WorkspaceWrite || st.Backend != want {
		t.Fatalf("got %+v, want mode workspace-write, backend %s", st, want)
	}
	if (st.Reason == "") != (m.nsFlags != 0 && m.abi >= 3 && m.netOK) {
		t.Fatalf("the reason must be empty exactly when everything asked for is in force: %+v", st)
	}
}

func TestStatusNamesWhatIsMissing(t *testing.T) {
	both := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	for _, c := range []struct {
		name    string
		m       machine
		net     Network
		want    Status
		reasons []string
	}{
		{"everything", machine{abi: 7, nsFlags: both, netOK: true}, NetworkProxy,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkProxy, ""}, nil},
		{"no Landlock", machine{noLandlock: "this kernel has no Landlock"}, NetworkProxy,
			Status{Off, "none", NetworkOpen, ""}, []string{"This kernel has no Landlock", "policy asks as before", "network directly"}},
		{"no namespaces", machine{abi: 7, noNS: noNamespaceReason(""), netOK: true}, NetworkOpen,
			Status{WorkspaceWrite, "landlock", NetworkOpen, ""}, []string{"User namespaces are not allowed", "show in listings", "policy alone", "sockets", "shared memory", "other sessions' terminals"}},
		{"no IPC namespace", machine{abi: 7, nsFlags: unix.CLONE_NEWUSER | unix.CLONE_NEWNS, netOK: true}, NetworkProxy,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkProxy, ""}, []string{"IPC namespace", "SysV shared memory"}},
		{"old Landlock", machine{abi: 2, nsFlags: both, netOK: true}, NetworkProxy,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkProxy, ""}, []string{"ABI 2", "truncated", "cannot keep signals"}},
		{"Landlock without scopes", machine{abi: 5, nsFlags: both, netOK: true}, NetworkProxy,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkProxy, ""}, []string{"ABI 5", "signal the other sessions'"}},
		{"no network filter", machine{abi: 7, nsFlags: both, noNet: "seccomp user notification is missing: direct connections are not blocked"}, NetworkProxy,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkOpen, ""}, []string{"Seccomp user notification is missing", "not blocked"}},
		{"open network needs no filter", machine{abi: 7, nsFlags: both, noNet: "missing"}, NetworkOpen,
			Status{WorkspaceWrite, "landlock+namespaces", NetworkOpen, ""}, nil},
	} {
		got := c.m.status(WorkspaceWrite, c.net)
		reason := got.Reason
		got.Reason = ""
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		if (reason == "") != (len(c.reasons) == 0) {
			t.Errorf("%s: reason %q", c.name, reason)
		}
		for _, r := range c.reasons {
			if !strings.Contains(reason, r) {
				t.Errorf("%s: reason %q does not say %q", c.name, reason, r)
			}
		}
		if reason != "" && !strings.HasSuffix(reason, ".") {
			t.Errorf("%s: reason %q is not a sentence", c.name, reason)
		}
	}
}

func TestModeOffIsInForceWhenAskedFor(t *testing.T) {
	if st := Probe(Off, NetworkOpen); st != (Status{Off, "none", NetworkOpen, ""}) {
		t.Errorf("off with an open network: %+v", st)
	}
	if st := Probe(Off, NetworkProxy); st.Network != NetworkOpen || !strings.Contains(st.Reason, "network directly") {
		t.Errorf("off cannot govern the network, and must say so: %+v", st)
	}
}
