package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// StoreFile is the file in the user's termhelper folder that keeps the
// names approved with "always", for every root.
const StoreFile = "allow.json"

// Store is the persisted "always" list of one root. Several helpers (one
// per editor window) share the file: writes happen under a lock and re-read
// the file first, so approvals merge instead of clobbering each other.
type Store struct {
	path, root string

	mu      sync.Mutex
	names   []string
	stamp   fileStamp // the zero stamp stands for "no file"
	checked time.Time // when the file was last looked at
}

// recheck is how often Names looks at the file: often enough that
// another window's "always" shows up at once for a person, rarely enough
// to cost nothing on every command.
const recheck = 500 * time.Millisecond

// storeFile is the JSON layout: {"version":1,"roots":{"/abs/root":["npm"]}}.
type storeFile struct {
	Version int                 `json:"version"`
	Roots   map[string][]string `json:"roots"`
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// OpenStore opens the store kept in dir (config.UserDir()) for root.
func OpenStore(dir, root string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("allow store: %w", err)
	}
	s := &Store{path: filepath.Join(dir, StoreFile), root: filepath.Clean(root)}
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// Names returns the approved names of this root, re-reading the file when
// it changed since the last call (another window said "always").
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); now.Sub(s.checked) >= recheck {
		s.checked = now
		if st, _ := stampOf(s.path); st != s.stamp {
			s.reloadLocked() // on error the last good list stays
		}
	}
	return slices.Clone(s.names)
}

// Add persists name for this root.
func (s *Store) Add(name string) error {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "\n\x00") {
		return fmt.Errorf("allow store: invalid name %q", name)
	}
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("allow store: %w", err)
	}
	defer unlock()
	f, err := readStore(s.path)
	if err != nil {
		return err
	}
	list := f.Roots[s.root]
	if !slices.Contains(list, name) {
		list = append(list, name)
		slices.Sort(list)
		f.Roots[s.root] = list
		if err := writeStore(s.path, f); err != nil {
			return err
		}
	}
	return s.reload()
}

func (s *Store) reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reloadLocked()
}

func (s *Store) reloadLocked() error {
	st, _ := stampOf(s.path)
	f, err := readStore(s.path)
	if err != nil {
		return err
	}
	s.names, s.stamp = slices.Clone(f.Roots[s.root]), st
	return nil
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

// readStore reads the file; a missing file is an empty store.
func readStore(path string) (storeFile, error) {
	f := storeFile{Version: 1, Roots: map[string][]string{}}
	var data []byte
	err := whileInUse(func() (err error) {
		data, err = os.ReadFile(path)
		return err
	})
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("allow store: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("allow store %s: %w", path, err)
	}
	if f.Roots == nil {
		f.Roots = map[string][]string{}
	}
	return f, nil
}

// writeStore replaces the file atomically: a reader sees the old file or the
// new one, never half of one.
func writeStore(path string, f storeFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".allow-*.tmp")
	if err != nil {
		return fmt.Errorf("allow store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("allow store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("allow store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("allow store: %w", err)
	}
	if err := whileInUse(func() error { return os.Rename(tmp.Name(), path) }); err != nil {
		return fmt.Errorf("allow store: %w", err)
	}
	return nil
}

// inUseWait bounds how long a file another process holds open is waited
// for; readers hold it for milliseconds.
const inUseWait = 10 * time.Second

// testHookInUse, when set, is told of each attempt refused because the
// file was in use.
var testHookInUse func()

// whileInUse runs op again while it fails because another process holds
// the file open (Windows: another helper reading allow.json refuses a
// rename over it, as may an indexer or a virus scanner), until op succeeds,
// fails otherwise, or inUseWait passes. The writers are already one at a
// time under the store's lock; the rename stays atomic, so a reader sees
// the old file or the new one, and a crash leaves one of them whole.
func whileInUse(op func() error) error {
	deadline := time.Now().Add(inUseWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		err := op()
		if err == nil || !inUse(err) || time.Now().After(deadline) {
			return err
		}
		if testHookInUse != nil {
			testHookInUse()
		}
		time.Sleep(pause)
	}
}
