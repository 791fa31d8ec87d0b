package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// probeCacheWorld gives the test a cache folder of its own and the
// answer a fresh probe gives here, and another answer this user could be
// given, which a test plants to see whether the file was believed.
func probeCacheWorld(t *testing.T) (path string, real, other uintptr) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path = probeCacheFile()
	if path == "" || probeKey() == "" {
		t.Skip("no cache folder or no key on this machine: nothing is kept")
	}
	real, why := namespaces()
	if real == 0 {
		t.Skip("no namespaces here, and a no is never kept: " + why)
	}
	for _, c := range nsCandidates() {
		if c != real {
			other = c
		}
	}
	return path, real, other
}

func needOther(t *testing.T, other uintptr) {
	if other == 0 {
		t.Skip("this user has one way to be cloned: a kept answer cannot be told from a fresh one")
	}
}

func plant(t *testing.T, path string, e probeEntry, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e)
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func kept(t *testing.T, path string) probeEntry {
	t.Helper()
	var e probeEntry
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("nothing kept: %v", err)
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("kept %q: %v", b, err)
	}
	return e
}

// waitKept waits for the background probe to leave flags in the file.
func waitKept(t *testing.T, path string, flags uintptr) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var e probeEntry
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &e) == nil && e.Flags == flags && e.Key == probeKey() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background probe never kept %#x", flags)
		}
	}
}

func TestTheProbeKeepsItsAnswer(t *testing.T) {
	path, real, _ := probeCacheWorld(t)
	if flags, why := cachedNamespaces(); flags != real {
		t.Fatalf("first start: %#x (%s), the probe says %#x", flags, why, real)
	}
	if e := kept(t, path); e.Key != probeKey() || e.Flags != real {
		t.Fatalf("kept %+v, want %#x under the current key", e, real)
	}
}

// A kept yes is believed without a child, and a background probe puts
// right what no longer holds, for the next start.
func TestAKeptAnswerIsUsedAndCheckedAgain(t *testing.T) {
	path, real, other := probeCacheWorld(t)
	needOther(t, other)
	old := recheckAfter
	recheckAfter = 0
	t.Cleanup(func() { recheckAfter = old })
	plant(t, path, probeEntry{Key: probeKey(), Flags: other}, 0o600)
	if flags, _ := cachedNamespaces(); flags != other {
		t.Fatalf("a kept answer under the current key was not used: %#x", flags)
	}
	waitKept(t, path, real)
}

// An answer measured under another key (another boot, kernel, user,
// binary, namespace, or AppArmor setting) is measured again.
func TestAStaleAnswerIsMeasuredAgain(t *testing.T) {
	path, real, other := probeCacheWorld(t)
	flags := other
	if flags == 0 {
		flags = real
	}
	plant(t, path, probeEntry{Key: probeKey() + "|kernel/apparmor_restrict_unprivileged_userns=changed", Flags: flags}, 0o600)
	if got, _ := cachedNamespaces(); got != real {
		t.Fatalf("a stale answer was used: %#x, the probe says %#x", got, real)
	}
	if e := kept(t, path); e.Key != probeKey() || e.Flags != real {
		t.Fatalf("kept %+v after a fresh probe, want %#x under the current key", e, real)
	}
}

func TestTheKeyNamesTheBinary(t *testing.T) {
	f := filepath.Join(t.TempDir(), "termhelper")
	if err := os.WriteFile(f, []byte("one build"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := fileIdentity(f)
	if err := os.WriteFile(f, []byte("another build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if after := fileIdentity(f); before == "" || after == before {
		t.Fatalf("a rebuilt binary keeps its identity %q", before)
	}
}

// Whatever sits in the file, the helper never believes more than a
// fresh probe would tell it.
func TestAPoisonedOrUnreadableAnswerIsMeasuredAgain(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, path string, other uintptr)
	}{
		{"a no", func(t *testing.T, path string, _ uintptr) {
			plant(t, path, probeEntry{Key: probeKey(), Flags: 0}, 0o600)
		}},
		{"flags no user is cloned with", func(t *testing.T, path string, _ uintptr) {
			plant(t, path, probeEntry{Key: probeKey(), Flags: unix.CLONE_NEWNET}, 0o600)
		}},
		{"not JSON", func(t *testing.T, path string, _ uintptr) {
			plant(t, path, probeEntry{}, 0o600)
			os.WriteFile(path, []byte("{\"Key\": \"garbled"), 0o600)
		}},
		{"writable by others", func(t *testing.T, path string, other uintptr) {
			needOther(t, other)
			plant(t, path, probeEntry{Key: probeKey(), Flags: other}, 0o666)
		}},
		{"a link", func(t *testing.T, path string, other uintptr) {
			needOther(t, other)
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			plant(t, target, probeEntry{Key: probeKey(), Flags: other}, 0o600)
			os.MkdirAll(filepath.Dir(path), 0o700)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's", func(t *testing.T, path string, other uintptr) {
			needOther(t, other)
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file away")
			}
			plant(t, path, probeEntry{Key: probeKey(), Flags: other}, 0o600)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"a folder", func(t *testing.T, path string, _ uintptr) {
			if err := os.MkdirAll(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, real, other := probeCacheWorld(t)
			c.plant(t, path, other)
			if got, _ := cachedNamespaces(); got != real {
				t.Fatalf("believed the file: %#x, the probe says %#x", got, real)
			}
		})
	}
}
