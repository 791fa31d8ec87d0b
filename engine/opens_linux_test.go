package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOpensCountsOthersNotTheHelper: an open announced as the helper's
// own is not counted, any other is, and a file replaced is watched again
// once listed again.
func TestOpensCountsOthersNotTheHelper(t *testing.T) {
	root := t.TempDir()
	env := filepath.Join(root, ".env")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(env, []byte("A=1\n"), 0o600))
	o := newOpens()
	t.Cleanup(o.close)
	if !o.watch(root, ".env") {
		t.Skip("no inotify here")
	}
	snap := o.snapshot()
	o.selfOpen(".env")
	_, err := os.ReadFile(env)
	must(err)
	if got := o.since(snap); len(got) != 0 {
		t.Fatalf("the helper's own read was counted: %q", got)
	}
	_, err = os.ReadFile(env)
	must(err)
	if got := o.since(snap); !slices.Equal(got, []string{".env"}) {
		t.Fatalf("since = %q, want .env", got)
	}
	must(os.Rename(env, env+".old"))
	must(os.WriteFile(env, []byte("A=2\n"), 0o600))
	snap = o.snapshot()
	o.watch(root, ".env")
	_, err = os.ReadFile(env)
	must(err)
	if got := o.since(snap); !slices.Equal(got, []string{".env"}) {
		t.Fatalf("after a replace: since = %q, want .env", got)
	}
}
