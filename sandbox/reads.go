package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
)

// A plan is made for each confined command, and making its default lists
// is mostly reading the disk: which caches are there, where the
// repository's git folders are, what its config says. reads records what
// was read, each path as it was, and each variable looked up with its
// value; the lists made are made again only once one of them has
// changed. Telling takes a stat per path read, a fraction of making them.
type reads struct {
	paths []pathRead
	vars  [][2]string // name and value, in the order looked up
}

// pathRead is one path as it was read: whole when what it holds counted
// (a file read, a folder listed), else only what is there.
type pathRead struct {
	path   string
	follow bool // through a final link (stat), else of the link (lstat)
	whole  bool
	state  string
}

// lookup is getenv, recorded.
func (r *reads) lookup(getenv func(string) string) func(string) string {
	return func(k string) string {
		v := getenv(k)
		r.vars = append(r.vars, [2]string{k, v})
		return v
	}
}

// stat is os.Stat, recorded (r may be nil: not recorded).
func (r *reads) stat(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	r.note(path, true, false, fi, err)
	return fi, err
}

// lstat is os.Lstat, recorded.
func (r *reads) lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	r.note(path, false, false, fi, err)
	return fi, err
}

// open opens path to read it whole, recorded as the file opened was
// before it was read: a change while it is read is a change next time.
func (r *reads) open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if r == nil || err != nil {
		r.note(path, true, true, nil, err)
		return f, err
	}
	fi, err := f.Stat()
	r.note(path, true, true, fi, err)
	return f, nil
}

// readFile is os.ReadFile, recorded as open is.
func (r *reads) readFile(path string) ([]byte, error) {
	f, err := r.open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// walkDir is filepath.WalkDir, each folder listed recorded before it is.
func (r *reads) walkDir(root string, fn fs.WalkDirFunc) {
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			r.note(path, false, true, nil, err)
		} else if d.IsDir() {
			fi, ierr := d.Info()
			r.note(path, false, true, fi, ierr)
		}
		return fn(path, d, err)
	})
}

// note records path as found; a path read again is recorded as last found
// (a cache folder, missing, then made).
func (r *reads) note(path string, follow, whole bool, fi fs.FileInfo, err error) {
	if r == nil {
		return
	}
	for i, p := range r.paths {
		if p.path == path && p.follow == follow {
			whole = whole || p.whole
			r.paths[i] = pathRead{path, follow, whole, pathState(fi, err, whole)}
			return
		}
	}
	r.paths = append(r.paths, pathRead{path, follow, whole, pathState(fi, err, whole)})
}

// hold tells whether every variable and path read is as it was.
func (r *reads) hold(getenv func(string) string) bool {
	for _, kv := range r.vars {
		if getenv(kv[0]) != kv[1] {
			return false
		}
	}
	for _, p := range r.paths {
		stat := os.Lstat
		if p.follow {
			stat = os.Stat
		}
		fi, err := stat(p.path)
		if pathState(fi, err, p.whole) != p.state {
			return false
		}
	}
	return true
}

// pathState is what was found at a path: the error, or what is there
// (fileState), with its size and times when whole.
func pathState(fi fs.FileInfo, err error, whole bool) string {
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return "!" + strconv.Itoa(int(errno))
		}
		return "!" + err.Error()
	}
	return fileState(fi, whole)
}

// made is the last default lists made, with what they were made from.
var made struct {
	sync.Mutex
	root, home string
	reads      *reads
	plan       Plan
}

// madeBefore is the last plan made for root and home, if nothing it was
// made from has changed.
func madeBefore(root, home string, getenv func(string) string) (Plan, bool) {
	if !keepsPlans {
		return Plan{}, false
	}
	made.Lock()
	r, p, ok := made.reads, made.plan, made.root == root && made.home == home
	made.Unlock()
	if !ok || r == nil || !r.hold(getenv) {
		return Plan{}, false
	}
	return p.clone(), true
}

func keepMade(root, home string, r *reads, p Plan) {
	made.Lock()
	made.root, made.home, made.reads, made.plan = root, home, r, p.clone()
	made.Unlock()
}

// clone is p with lists of its own.
func (p Plan) clone() Plan {
	p.Writable, p.Protect, p.Hide = slices.Clone(p.Writable), slices.Clone(p.Protect), slices.Clone(p.Hide)
	return p
}
