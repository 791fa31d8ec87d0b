package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Planted watches the files of the project that make another program run
// code (ProjectRunners), and the .git of each submodule the index
// lists (SubmoduleGits: the user's git status runs git there). The sandbox keeps those that are there
// read-only; one that was missing can be made by a confined command, and
// the next approval question names it, with any other change to them
// since the last question, once a confined command has run.
type Planted struct {
	mu       sync.Mutex
	base     map[string]string // a file's name in the root → its digest, at the last question
	confined bool              // a confined command has started
}

// maxPlantedFiles bounds the files read in each watched folder: a
// folder flooded with files must not hide a change to another.
const maxPlantedFiles = 500

// Ran is a confined command about to start: the state before it is the
// first baseline.
func (w *Planted) Ran(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base == nil {
		w.base = plantedState(root)
	}
	w.confined = true
}

// Since names the watched files changed since the last question, and
// returns the state to keep once this question is answered.
func (w *Planted) Since(root string) ([]string, map[string]string) {
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

// Answered keeps the state a question was asked with.
func (w *Planted) Answered(state map[string]string) {
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
	for _, p := range ProjectRunners(root) {
		digestTree(root, p, state)
	}
	for i, p := range SubmoduleGits(root) {
		if i == maxPlantedFiles {
			break
		}
		if d, ok := submoduleDigest(p); ok {
			rel, _ := filepath.Rel(root, p)
			state[filepath.ToSlash(rel)] = d
		}
	}
	return state
}

// submoduleDigest digests where a submodule's .git leads git: a .git
// file's content, or a .git folder's config; false where there is none.
func submoduleDigest(dotGit string) (string, bool) {
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		config := filepath.Join(dotGit, "config")
		cfi, err := os.Lstat(config)
		if err != nil {
			return "folder", true
		}
		return "folder:" + digest(config, fs.FileInfoToDirEntry(cfi)), true
	}
	return digest(dotGit, fs.FileInfoToDirEntry(fi)), true
}

// digestTree adds the files of one watched path to state, at most
// maxPlantedFiles of them.
func digestTree(root, top string, state map[string]string) {
	n := 0
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		switch {
		case n >= maxPlantedFiles:
			return fs.SkipAll
		case err != nil || d.IsDir():
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		state[filepath.ToSlash(rel)] = digest(path, d)
		n++
		return nil
	})
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

// PlantedReason is the reason that names the changed files, so that a
// host that shows only the reasons shows them too; a folder with many is
// named once, with their count, so that no name is buried among them.
func PlantedReason(changed []string) string {
	return "changed since the last question, while commands ran confined: " + strings.Join(grouped(changed), ", ") +
		" (files that make an editor, an agent, direnv or git run code when the project is next opened)"
}

// maxNamedInFolder is how many changed files of one watched folder are
// named.
const maxNamedInFolder = 3

// grouped are the changed names, each watched folder's reduced to the
// folder and a count when it has more than maxNamedInFolder.
func grouped(changed []string) []string {
	count := map[string]int{}
	for _, name := range changed {
		count[watchedOf(name)]++
	}
	var out []string
	named := map[string]bool{}
	for _, name := range changed {
		switch w := watchedOf(name); {
		case count[w] <= maxNamedInFolder:
			out = append(out, name)
		case !named[w]:
			out = append(out, fmt.Sprintf("%s/ (%d files)", w, count[w]))
			named[w] = true
		}
	}
	return out
}

// watchedOf is the watched path a changed name is, or lies in.
func watchedOf(name string) string {
	for _, w := range ProjectRunners("") {
		if w = filepath.ToSlash(w); name == w || strings.HasPrefix(name, w+"/") {
			return w
		}
	}
	return name
}
