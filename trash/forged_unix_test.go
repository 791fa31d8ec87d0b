//go:build unix

package trash

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The trash folder is written by the commands themselves, and List is
// the helper's own read, outside any sandbox: an entry whose path or
// command file is a link to a secret must not hand the secret to the
// host, and one that is a pipe must not hold the helper.
func TestListReadsNoFileThroughAForgedEntry(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	forge := func(id string, meta func(entry string)) {
		entry := filepath.Join(dir, id)
		if err := os.MkdirAll(entry, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(entry, "item"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		meta(entry)
	}
	forge("linked-path", func(e string) { os.Symlink(secret, filepath.Join(e, "path")) })
	forge("linked-command", func(e string) {
		os.WriteFile(filepath.Join(e, "path"), []byte("/proj/x"), 0o600)
		os.Symlink(secret, filepath.Join(e, "command"))
		os.Symlink(secret, filepath.Join(e, "time"))
	})
	forge("pipe", func(e string) {
		if err := syscall.Mkfifo(filepath.Join(e, "path"), 0o600); err != nil {
			t.Skipf("no fifo here: %v", err)
		}
	})
	done := make(chan []Entry)
	go func() {
		entries, err := List(dir)
		if err != nil {
			t.Error(err)
		}
		done <- entries
	}()
	var entries []Entry
	select {
	case entries = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("List is held by a forged entry")
	}
	for _, e := range entries {
		if strings.Contains(e.Path+e.Command, "SECRET") {
			t.Errorf("entry %s hands out the secret: %+v", e.ID, e)
		}
	}
	if _, err := Restore(dir, "/proj", "linked-path"); err == nil {
		t.Error("an entry whose path is a link was restored")
	}
}
