package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxReadmeLines keeps the README what a host author reads first: what
// termhelper is, how to install and start it, and links; the reference
// lives in docs/ and CONTRIBUTING.md.
const maxReadmeLines = 300

func TestReadmeShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move reference material to docs/", n, maxReadmeLines)
	}
}
