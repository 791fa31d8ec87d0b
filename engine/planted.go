package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/sandbox"
)

// planted watches the files of the project that make another program run
// code (sandbox.ProjectRunners). The sandbox keeps those that are there
// read-only; one that was missing can be made by a confined command, and
// the next approval question names it, with any other change to them
// since the last question, once a confined command has run.
type planted struct {
	mu       sync.Mutex
	base     map[string]string // a file's name in the root → its digest, at the last question
	confined bool              // a confined command has started
}

// maxPlantedFiles bounds the files read in the watched folders.
const maxPlantedFiles = 2000

// ran is a confined command about to start: the state before it is the
// first baseline.
func (w *planted) ran(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base == nil {
		w.base = plantedState(root)
	}
	w.confined = true
}

// since names the watched files changed since the last question, and
// returns the state to keep once this question is answered.
func (w *planted) since(root string) ([]string, map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.confined {
		return nil, nil
	}
	now := plantedState(root)
	var changed []string
	for name, d := range now {
		if w.base[name] != d {
			changed = append(changed, name)
		}
	}
	for name := range w.base {
		if _, ok := now[name]; !ok {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	return changed, now
}

// answered keeps the state a question was asked with.
func (w *planted) answered(state map[string]string) {
	if state == nil {
		return
	}
	w.mu.Lock()
	w.base = state
	w.mu.Unlock()
}

// plantedState digests every watched file under root, by its name in the
// root (slashes): a folder's files each, a link by its target.
func plantedState(root string) map[string]string {
	state := map[string]string{}
	for _, p := range sandbox.ProjectRunners(root) {
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || len(state) >= maxPlantedFiles {
				return nil
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, path)
				state[filepath.ToSlash(rel)] = digest(path, d)
			}
			return nil
		})
	}
	return state
}

// maxDigested is how much of a watched file is read: they are small.
const maxDigested = 1 << 20

func digest(path string, d fs.DirEntry) string {
	if d.Type()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return "link:" + target
	}
	f, err := os.Open(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	n, _ := io.Copy(h, io.LimitReader(f, maxDigested))
	if n == maxDigested {
		if fi, err := f.Stat(); err == nil {
			return "large:" + fi.ModTime().String() + ":" + hex.EncodeToString(h.Sum(nil))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// plantedReason is the reason that names the changed files, so that a
// host that shows only the reasons shows them too.
func plantedReason(changed []string) string {
	return "changed since the last question, while commands ran confined: " + strings.Join(changed, ", ") +
		" (files that make an editor, an agent or direnv run code when the project is next opened)"
}
