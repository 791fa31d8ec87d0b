//go:build !windows

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The submodule entries of a real index are found in every index
// version git writes, beside ordinary and intent-to-add entries.
func TestSubmoduleGitsReadsTheIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			root := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return strings.TrimSpace(string(out))
			}
			git("init", "-q")
			for _, name := range []string{"a", "dir/b", "dir/c-longer-name", "later"} {
				os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
				os.WriteFile(filepath.Join(root, name), []byte(name), 0o644)
			}
			git("add", "a", "dir")
			git("add", "-N", "later")
			sha := git("hash-object", "a")
			git("update-index", "--add", "--cacheinfo", "160000,"+sha+",dir/sub")
			git("update-index", "--add", "--cacheinfo", "160000,"+sha+",zz/deep/sub2")
			git("update-index", "--index-version", version)
			got := SubmoduleGits(root)
			want := []string{filepath.Join(root, "dir", "sub", ".git"), filepath.Join(root, "zz", "deep", "sub2", ".git")}
			if !slices.Equal(got, want) {
				t.Errorf("index v%s: %v, want %v", version, got, want)
			}
		})
	}
}
