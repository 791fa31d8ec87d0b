package sandbox

import (
	"testing"
)

// TestRefusedPath: the error lines of the common tools, read for the path
// the sandbox refused; a refusal where the plan lets the command write is
// the file's own permissions, and not the sandbox's.
func TestRefusedPath(t *testing.T) {
	plan := Plan{Mode: WorkspaceWrite, Root: "/p", TempDir: "/t", Writable: []string{"/h/.npm"},
		Protect: []string{"/p/.git/hooks/", "/h/.bashrc"}, Hide: []string{"/h/.ssh"}}
	for _, tc := range []struct {
		line string
		want Denial // zero: none
	}{
		{"sh: 1: cannot create /etc/x: Permission denied", Denial{Kind: "write", Path: "/etc/x"}},
		{"/bin/sh: 1: cannot create /tmp/x: Permission denied", Denial{Kind: "write", Path: "/tmp/x"}},
		{"/usr/bin/python3: can't open file '/p/a.py': [Errno 13] Permission denied", Denial{}},
		{"bash: /h/.bashrc: Read-only file system", Denial{Kind: "write", Path: "/h/.bashrc"}},
		{"touch: cannot touch '/p/.git/hooks/x': Read-only file system", Denial{Kind: "write", Path: "/p/.git/hooks/x"}},
		{"touch: cannot touch ‘/h/out’: Permission denied", Denial{Kind: "write", Path: "/h/out"}},
		{"PermissionError: [Errno 13] Permission denied: '/h/out.txt'", Denial{Kind: "write", Path: "/h/out.txt"}},
		{"Error: EACCES: permission denied, open '/var/x'", Denial{Kind: "write", Path: "/var/x"}},
		{"open /opt/y: operation not permitted", Denial{Kind: "write", Path: "/opt/y"}},
		{"cat: /h/.ssh/id_rsa: Permission denied", Denial{Kind: "read", Path: "/h/.ssh/id_rsa"}},
		{"touch: cannot touch '/h/.ssh/k': Permission denied", Denial{Kind: "write", Path: "/h/.ssh/k"}},
		{"cat: /proc/1/environ: Permission denied", Denial{Kind: "read", Path: "/proc/1/environ"}},
		{"mkdir: cannot create directory '~/out': Permission denied", Denial{Kind: "write", Path: "/home/u/out"}},
		{"sh: 1: cannot create /p/x: Permission denied", Denial{}},             // the root is writable
		{"cp: cannot create regular file '/t/x': Permission denied", Denial{}}, // so is TMPDIR
		{"cannot open /dev/kmsg: Permission denied", Denial{}},
		{"rm: cannot remove 'x': Permission denied", Denial{}},        // relative: where is unknown
		{"/bin/sh: 1: cannot create f1: Permission denied", Denial{}}, // the shell is no path it wrote
		{"wrote /etc/x", Denial{}},
	} {
		got, ok := RefusedPath(tc.line, plan, "/home/u")
		if ok != (tc.want != Denial{}) || got != tc.want {
			t.Errorf("%q: %+v %v, want %+v", tc.line, got, ok, tc.want)
		}
	}
}

// TestRefusedPathReadOnly: in read-only mode the root is no writable
// place.
func TestRefusedPathReadOnly(t *testing.T) {
	plan := Plan{Mode: ReadOnly, Root: "/p", TempDir: "/t"}
	if d, ok := RefusedPath("sh: 1: cannot create /p/x: Permission denied", plan, ""); !ok || d.Path != "/p/x" {
		t.Fatalf("got %+v %v", d, ok)
	}
}
