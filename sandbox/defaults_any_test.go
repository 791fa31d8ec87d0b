package sandbox

import (
	"path/filepath"
	"slices"
	"testing"
)

// The default lists are made on every platform, whether they can be kept
// there or not.
func TestDefaultsAnywhere(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for range 2 {
		p := Defaults(root, home, func(string) string { return "" })
		if p.Root != root || !slices.Contains(p.Hide, filepath.Join(home, ".ssh")) {
			t.Errorf("the plan for %s misses its root or ~/.ssh: %+v", root, p)
		}
	}
}
