package spill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A spill file written far past its cap stays under it, keeps its first
// lines and its newest ones whole, and says what it dropped.
func TestSpillIsCapped(t *testing.T) {
	t.Parallel()
	l := NewFileIn(t.TempDir(), "cap")
	l.capped.max, l.capped.head = 4000, 1000
	w, path, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const lines = 5000
	for i := range lines {
		fmt.Fprintf(w, "line %d é\n", i)
		if fi, err := os.Stat(path); err != nil || fi.Size() > 4000 {
			t.Fatalf("after line %d: %v %v", i, fi.Size(), err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	head, rest, ok := strings.Cut(text, "[... ")
	if !ok || !strings.HasPrefix(head, "line 0 é\nline 1 é\n") || !strings.HasSuffix(head, " é\n") {
		t.Fatalf("head: %q", head[:min(len(head), 200)])
	}
	marker, tail, _ := strings.Cut(rest, "]\n")
	if !strings.Contains(marker, "bytes of output dropped here") || !strings.HasPrefix(tail, "line ") ||
		!strings.HasSuffix(tail, fmt.Sprintf("line %d é\n", lines-1)) {
		t.Fatalf("marker %q, tail %q", marker, tail[:min(len(tail), 200)])
	}
	total := int64(0)
	for i := range lines {
		total += int64(len(fmt.Sprintf("line %d é\n", i)))
	}
	kept := int64(len(head)) + int64(len(tail))
	if l.Dropped() != total-kept {
		t.Fatalf("dropped %d, want %d", l.Dropped(), total-kept)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left beside the spill: %d", len(entries))
	}
}

// A line longer than the room left is cut between characters.
func TestSpillCapCutsBetweenCharacters(t *testing.T) {
	t.Parallel()
	l := NewFileIn(t.TempDir(), "long")
	l.capped.max, l.capped.head = 1000, 100
	w, path, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for range 200 {
		w.Write([]byte("ééé"))
	}
	data, _ := os.ReadFile(path)
	head, rest, ok := strings.Cut(string(data), "\n[... ")
	_, tail, _ := strings.Cut(rest, "]\n")
	if !ok || strings.Trim(head, "é") != "" || strings.Trim(tail, "é") != "" || len(data) > 1000 {
		t.Fatalf("cut inside a character: %q", data)
	}
}
