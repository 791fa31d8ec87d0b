package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
	// unsure: the lists are not to be kept. A path read twice was not the
	// same both times (the lists may mix both), or what was read changed
	// too recently for its change time to tell the next change (racy).
	unsure bool
}

// pathRead is one path as it was read: whole when what it holds counted
// (a file read, a folder listed), else only what is there.
type pathRead struct {
	path   string
	follow bool // through a final link (stat), else of the link (lstat)
	whole  bool
	dir    bool   // a folder was there
	id     string // the error, or device, inode and type
	times  string // whole: size, modification and change times
}

// racyWindow: a path that changed this recently when it was read may
// change again with the same change time (a file system's clock moves in
// ticks, or in seconds): lists made from it are not kept.
var racyWindow = 2 * time.Second

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
	r.note(pathReadOf(path, true, false, fi, err))
	return fi, err
}

// lstat is os.Lstat, recorded.
func (r *reads) lstat(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	r.note(pathReadOf(path, false, false, fi, err))
	return fi, err
}

// made records dir as the lists made it: missing when first read, there
// now, by their own doing, which is no change.
func (r *reads) made(dir string) {
	if r == nil {
		return
	}
	fi, err := os.Stat(dir)
	r.put(pathReadOf(dir, true, false, fi, err))
}

// open opens path to read it whole, recorded as the file opened was
// before it was read: a change while it is read is a change next time.
func (r *reads) open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if r == nil {
		return f, err
	}
	if err != nil {
		r.note(pathReadOf(path, true, true, nil, err))
		return nil, err
	}
	fi, err := f.Stat()
	r.note(pathReadOf(path, true, true, fi, err))
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

// walkDir is filepath.WalkDir, its root and each folder listed recorded
// before they are: a root that is not a folder (missing, a link) too.
func (r *reads) walkDir(root string, fn fs.WalkDirFunc) {
	fi, err := os.Lstat(root)
	r.note(pathReadOf(root, false, true, fi, err))
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != root {
			fi, ierr := d.Info()
			r.note(pathReadOf(path, false, true, fi, ierr))
		}
		return fn(path, d, err) // an error after a folder's Info: it could not be listed
	})
}

// note records a read. A path read again must be as it was.
func (r *reads) note(read pathRead) {
	if r == nil {
		return
	}
	if read.whole && !strings.HasPrefix(read.id, "!") && read.times == "" {
		r.unsure = true // changed too recently to tell
	}
	for _, p := range r.paths {
		if p.path == read.path && p.follow == read.follow &&
			(p.id != read.id || (p.whole && read.whole && p.times != read.times)) {
			r.unsure = true
		}
	}
	r.put(read)
}

// put records read in place of an earlier read of its path, keeping what
// the earlier read of the whole had.
func (r *reads) put(read pathRead) {
	for i, p := range r.paths {
		if p.path == read.path && p.follow == read.follow {
			if p.whole && !read.whole {
				read.whole, read.times = true, p.times
			}
			r.paths[i] = read
			return
		}
	}
	r.paths = append(r.paths, read)
}

// varsHold tells whether every variable looked up has its value still.
func (r *reads) varsHold(getenv func(string) string) bool {
	for _, kv := range r.vars {
		if getenv(kv[0]) != kv[1] {
			return false
		}
	}
	return true
}

// pathsHold tells whether each path lies as it was read.
func pathsHold(paths []pathRead) bool {
	for _, p := range paths {
		stat := os.Lstat
		if p.follow {
			stat = os.Stat
		}
		fi, err := stat(p.path)
		now := pathReadOf(p.path, p.follow, p.whole, fi, err)
		if now.id != p.id || now.times != p.times {
			return false
		}
	}
	return true
}

// armJournal has the journal watch the paths read, and returns its mark
// and the reads it does not cover: those are looked at each time, with
// each file read whole, as what it holds is not covered (see
// journal_linux.go).
func (r *reads) armJournal() (journalMark, []pathRead) {
	items := make([]journalItem, len(r.paths))
	for i, p := range r.paths {
		items[i] = journalItem{path: p.path, follow: p.follow, attrs: true, entries: p.whole && p.dir}
	}
	mark, covered := armJournal(items)
	var rest []pathRead
	for i, p := range r.paths {
		if !covered[i] || p.whole && !p.dir && !strings.HasPrefix(p.id, "!") {
			rest = append(rest, p)
		}
	}
	return mark, rest
}

// pathReadOf is what a read found at a path: the error, or what is there
// (fileState); a whole read's times are left out (and it is unsure) when
// it changed within racyWindow.
func pathReadOf(path string, follow, whole bool, fi fs.FileInfo, err error) pathRead {
	read := pathRead{path: path, follow: follow, whole: whole}
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			read.id = "!" + strconv.Itoa(int(errno))
		} else {
			read.id = "!" + err.Error()
		}
		return read
	}
	var changed time.Time
	read.dir = fi.IsDir()
	read.id, read.times, changed = fileState(fi)
	if !whole || time.Since(changed) < racyWindow {
		read.times = ""
	}
	return read
}

// made is the last default lists made, with what they were made from.
var made struct {
	sync.Mutex
	root, home string
	reads      *reads
	plan       Plan
	// looked: a look found every path read as it was, since they were
	// made. mark is the journal's since the last such look, but for rest,
	// which it does not cover.
	looked bool
	mark   journalMark
	rest   []pathRead
}

// madeBefore is the last plan made for root and home, if nothing it was
// made from has changed: each path read is looked at, or, while the
// journal has seen no change since they were, those it does not cover.
// The journal is armed at the second look: lists made again at each
// command (a command that changes a file read) do not pay for it.
func madeBefore(root, home string, getenv func(string) string) (Plan, bool) {
	made.Lock()
	r, p, looked, mark, rest := made.reads, made.plan, made.looked, made.mark, made.rest
	ok := made.root == root && made.home == home
	made.Unlock()
	if !ok || r == nil || !r.varsHold(getenv) {
		return Plan{}, false
	}
	if journalStill(mark) {
		if !pathsHold(rest) {
			return Plan{}, false
		}
		return p.clone(), true
	}
	mark, rest = journalMark{}, nil
	if looked {
		mark, rest = r.armJournal()
	}
	if !pathsHold(r.paths) {
		return Plan{}, false
	}
	made.Lock()
	if made.reads == r {
		made.looked, made.mark, made.rest = true, mark, rest
	}
	made.Unlock()
	return p.clone(), true
}

// keepMade keeps the lists r made, unless r is unsure of them.
func keepMade(root, home string, r *reads, p Plan) {
	made.Lock()
	defer made.Unlock()
	made.root, made.home, made.reads, made.plan = root, home, nil, Plan{}
	made.looked, made.mark, made.rest = false, journalMark{}, nil
	if !r.unsure {
		made.reads, made.plan = r, p.clone()
	}
}

// clone is p with lists of its own.
func (p Plan) clone() Plan {
	p.Writable, p.Protect, p.Hide = slices.Clone(p.Writable), slices.Clone(p.Protect), slices.Clone(p.Hide)
	p.Neutral = slices.Clone(p.Neutral)
	return p
}
