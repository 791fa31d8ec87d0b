package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The macOS sandbox: a Seatbelt profile (SBPL) made for each command and
// given to /usr/bin/sandbox-exec. Every path in the plan must already be
// real (macOS's /tmp is /private/tmp): Seatbelt matches real paths.
// Exclusions are written inside each allow (require-all, require-not), so
// that nothing depends on the order in which Seatbelt weighs rules.

// seatbeltBase is what any command needs to run: processes, its own
// signals, user lookups, terminals, shared memory, and the sysctls that
// runtimes read (not kern.procargs2, which shows other processes'
// environments).
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow user-preference-read)
(allow mach-host*)
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow system-socket (socket-domain AF_UNIX))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent"))
(allow sysctl-read
  (sysctl-name-prefix "hw.")
  (sysctl-name-prefix "machdep.cpu.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg"))
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
(allow file-read* file-write-data file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/random")
  (literal "/dev/urandom")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$")
  (subpath "/dev/fd"))
`

// SeatbeltProfile is the Seatbelt profile that confines a command as p
// says: nothing is allowed but what is named; reads everywhere but the
// secret places; writes only to the writable places, never to the
// protected paths, the folders that hold them, or the secret places;
// processes, signals and process information within the sandbox; the
// network: loopback and local sockets (but the secret ones), unless p's
// network is open.
func SeatbeltProfile(p Plan) string {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	hidden := sbplFilters("subpath", p.Hide)
	fmt.Fprintf(&b, "(allow file-read*\n  (require-all\n    (subpath \"/\")\n%s))\n", sbplExcept(hidden))
	if w := sbplFilters("subpath", seatbeltWritable(p)); w != "" {
		shut := hidden + sbplFilters("subpath", p.Protect) + sbplFilters("literal", protectHolders(p))
		fmt.Fprintf(&b, "(allow file-write*\n  (require-all\n    (require-any\n%s)\n%s))\n", w, sbplExcept(shut))
	}
	b.WriteString(seatbeltNetwork(p.Network, p.Hide))
	return b.String()
}

// seatbeltWritable are the places a command may write in p's mode.
func seatbeltWritable(p Plan) []string {
	w := []string{p.TempDir}
	if p.Mode == WorkspaceWrite {
		w = append(w, p.Root)
		w = append(w, p.Writable...)
	}
	return w
}

// protectHolders are the folders between a writable place and a
// protected path inside it: renaming one would move the protected path
// aside for a fresh copy, so the folder itself may not change (what it
// holds still may).
func protectHolders(p Plan) []string {
	var out []string
	for _, path := range p.Protect {
		path = filepath.Clean(path)
		place := within(path, seatbeltWritable(p))
		for dir := filepath.Dir(path); place != "" && isUnder(dir, place); dir = filepath.Dir(dir) {
			if !slices.Contains(out, dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// seatbeltNetwork lets a governed command reach loopback and local
// sockets, but not the secret ones (an agent, a container engine) nor
// the system's resolver (names are for the proxy to resolve); listening
// is not limited, as on Linux.
func seatbeltNetwork(n Network, hide []string) string {
	if n == NetworkOpen {
		return "(allow network*)\n"
	}
	var shut strings.Builder
	for _, p := range append(slices.Clone(hide), "/private/var/run/mDNSResponder") {
		fmt.Fprintf(&shut, "      (remote unix-socket (path-literal %s))\n", sbplString(filepath.Clean(p)))
	}
	return `(allow network-bind network-inbound)
(allow network-outbound (remote ip "localhost:*"))
(allow network-outbound
  (require-all
    (remote unix-socket)
` + sbplExcept(shut.String()) + "))\n"
}

// sbplFilters writes one filter per path, e.g. (subpath "/a/b").
func sbplFilters(kind string, paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		if p = filepath.Clean(p); p != "." && p != "" {
			fmt.Fprintf(&b, "      (%s %s)\n", kind, sbplString(p))
		}
	}
	return b.String()
}

// sbplExcept excludes every filter of filters, or nothing.
func sbplExcept(filters string) string {
	if filters == "" {
		return ""
	}
	return "    (require-not\n      (require-any\n" + filters + "))"
}

// sbplString quotes s as an SBPL (Scheme) string: a quote, a backslash
// and a control character cannot end it or change its meaning; other
// bytes (UTF-8 included) stand for themselves.
func sbplString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x;`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
