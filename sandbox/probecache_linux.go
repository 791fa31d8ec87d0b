package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The namespace probe's answer is kept between starts, so that a helper
// started again on the same machine need not wait for the probe's child
// before it answers initialize. Only a yes is kept, and only for what it
// was measured under: the boot, the kernel, the user, this very binary,
// its namespaces and seccomp state, and the sysctls that govern user
// namespaces (AppArmor's can change without a reboot). A kept yes is
// checked again by a real probe in the background, once the start is
// over, which repairs the file for the next start. Nothing in the file can widen what a command
// may do: a stale or forged yes makes every trampoline fail closed (it
// refuses to run a command outside a mount namespace of its own), and a
// no, which would leave the secret places to Landlock alone, is never
// read from it.

// probeEntry is the file's content.
type probeEntry struct {
	Key   string
	Flags uintptr
}

// probeCacheFile is where the answer is kept: the user's cache folder,
// which no default writable place covers.
func probeCacheFile() string {
	dir, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "termhelper", "sandbox-probe.json")
}

// cachedNamespaces is namespaces, answered from the kept answer when it
// was measured under the same key.
func cachedNamespaces() (uintptr, string) {
	path, key := probeCacheFile(), probeKey()
	if path == "" || key == "" {
		return namespaces()
	}
	if flags, ok := loadProbe(path, key); ok {
		time.AfterFunc(recheckAfter, func() { reprobe(path, key) })
		return flags, ""
	}
	return reprobe(path, key)
}

// recheckAfter is how long after the start a kept answer is checked
// again: the probe's child would otherwise compete for the processor
// with the helper's start and its first commands.
var recheckAfter = 2 * time.Second

// reprobe measures and keeps the answer (or removes a kept one that no
// longer holds).
func reprobe(path, key string) (uintptr, string) {
	flags, why := namespaces()
	storeProbe(path, key, flags)
	return flags, why
}

// probeKey names everything the namespaces answer depends on; "" when
// part of it cannot be read, and then nothing is kept.
func probeKey() string {
	parts := []string{
		firstLine("/proc/sys/kernel/random/boot_id"), firstLine("/proc/sys/kernel/osrelease"),
		fmt.Sprint(os.Getuid(), os.Geteuid(), os.Getgid()),
		fileIdentity("/proc/self/exe"), nsIdentity("user"), nsIdentity("mnt"),
		seccompState(),
	}
	if slices.Contains(parts, "") {
		return ""
	}
	for _, name := range []string{"kernel/apparmor_restrict_unprivileged_userns", "kernel/unprivileged_userns_clone", "user/max_user_namespaces"} {
		parts = append(parts, name+"="+sysctl(name))
	}
	return strings.Join(parts, "|")
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// fileIdentity tells one file from another and from its older self.
func fileIdentity(path string) string {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d.%d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec)
}

// nsIdentity names the process's namespace of kind.
func nsIdentity(kind string) string {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/"+kind, &st) != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", kind, st.Ino)
}

// seccompState is this process's seccomp mode and no_new_privs: a filter
// inherited from a container may forbid the namespaces.
func seccompState() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "Seccomp:") || strings.HasPrefix(line, "NoNewPrivs:") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ",")
}

// loadProbe reads a kept yes for key. Anything else is no answer: a
// file that is not the user's own regular file, writable by others,
// unreadable, malformed, measured under another key, or naming flags
// this user would not be cloned with.
func loadProbe(path, key string) (uintptr, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return 0, false
	}
	var e probeEntry
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil || json.Unmarshal(b, &e) != nil || e.Key != key {
		return 0, false
	}
	return e.Flags, slices.Contains(nsCandidates(), e.Flags)
}

// storeProbe keeps a yes, replacing the file whole, and removes the file
// on a no. Failing to keep it costs only the next start's wait.
func storeProbe(path, key string, flags uintptr) {
	if flags == 0 {
		os.Remove(path)
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	b, _ := json.Marshal(probeEntry{Key: key, Flags: flags}) // a string and an int
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sandbox-probe-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
