package sandbox

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A Footprint is what confining by a plan depends on besides the plan
// itself: what lies at each of its paths, and the helper's mounts. A
// spare, or namespaces held, confine a command as a fresh trampoline
// would only while the footprint they were made with holds: a secret
// place made since, a protected file replaced, a cache that appeared, the
// root moved, a file system mounted or unmounted on the host (a
// trampoline's mount namespace is a copy of the helper's as it is then).
type Footprint struct {
	there  []pathAt   // each path there (device, inode and type) or missing for another reason
	gone   []goneFrom // the paths missing, by the nearest folder above them that is there
	mounts uint64     // mountGeneration when it was read
	racy   bool       // a folder was not trusted for its recent change: read again, it may be
	// journal is the journal's word for the paths since they were last
	// found as read, shared by every copy.
	journal *footJournal
}

// footJournal is a footprint's journal mark, and the part of the
// footprint the journal does not cover: looked at each time.
type footJournal struct {
	sync.Mutex
	mark journalMark
	rest Footprint
}

// pathAt is what lay at a path.
type pathAt struct{ path, state string }

// goneFrom are missing paths and the nearest folder above them that is
// there, with its change time: while no entry of that folder was made,
// removed or renamed, they are still missing, without a look at each
// (most of a plan's secret places are missing, under a few folders).
type goneFrom struct {
	dir   pathAt
	paths []string
}

// FootprintOf reads p's footprint: its root, temporary folder and lists,
// and the parent of each folder protect makes if its parent is there.
// The last one read is given again while it holds as it was read:
// everything lies as it did, so a fresh read would find the same, at a
// quarter of the cost (a spare is made as each command starts, beside it
// on the processors). See keep for when it is read again.
func FootprintOf(p Plan) Footprint {
	lastFootprint.Lock()
	last := lastFootprint.of
	lastFootprint.Unlock()
	if last != nil && last.keep(p) {
		return last.f
	}
	f := readFootprint(p)
	lastFootprint.Lock()
	lastFootprint.of = &planFootprint{p, f, time.Now()}
	lastFootprint.Unlock()
	return f
}

// lastFootprint is the footprint FootprintOf read last, and its plan.
var lastFootprint struct {
	sync.Mutex
	of *planFootprint
}

type planFootprint struct {
	plan Plan
	f    Footprint
	at   time.Time // when it was read
}

// keep reports whether the footprint is p's and holds as it was read: not
// where a folder of missing paths changed since (a fresh read groups them
// again), nor, once the racy window has passed, where one had just
// changed when it was read.
func (l *planFootprint) keep(p Plan) bool {
	if !l.plan.Same(p) || l.f.racy && time.Since(l.at) >= racyWindow {
		return false
	}
	holds, exact := l.f.check()
	return holds && exact
}

// readFootprint is FootprintOf, read afresh.
func readFootprint(p Plan) Footprint {
	fl := filing{groups: map[string]int{}, nearest: map[string]string{}, missing: map[string]bool{}}
	fl.f.mounts, fl.f.journal = mountGeneration(), &footJournal{}
	for _, list := range [][]string{{p.Root, p.TempDir}, p.Writable, p.Protect, p.Hide} {
		for _, path := range list {
			fl.add(path)
			if strings.HasSuffix(path, "/") {
				fl.add(filepath.Dir(filepath.Clean(path)))
			}
		}
	}
	return fl.f
}

// filing is a footprint being read, with what it learnt on the way.
type filing struct {
	f       Footprint
	groups  map[string]int    // a folder → its index in f.gone
	nearest map[string]string // a missing path's parent → nearestThere
	missing map[string]bool   // a step below a group's folder, seen missing after the folder was read
}

func (fl *filing) add(path string) {
	state, missing := footprintState(path, false)
	if missing && fl.addGone(filepath.Clean(path)) {
		return
	}
	fl.f.there = append(fl.f.there, pathAt{path, state})
}

// addGone files a missing path under the nearest folder above it that
// is there, once the first step below that folder is seen missing after
// the folder was read: anything made there since has changed the folder.
func (fl *filing) addGone(path string) bool {
	parent := filepath.Dir(path)
	dir, ok := fl.nearest[parent]
	if !ok {
		dir = nearestThere(path)
		fl.nearest[parent] = dir
	}
	if dir == "" {
		return false
	}
	i, ok := fl.groups[dir]
	if !ok {
		i = fl.group(dir)
	} else if parent == dir && i >= 0 {
		fl.missing[path] = true // seen missing just now, the folder read before
	}
	rel, err := filepath.Rel(dir, path)
	first, _, _ := strings.Cut(rel, "/")
	step := filepath.Join(dir, first)
	if i < 0 || err != nil {
		return false
	}
	if !fl.missing[step] {
		// Not there, not even as a link: a link whose target is missing
		// would let the path appear without a change to the folder.
		if err := unix.Lstat(step, new(unix.Stat_t)); err != unix.ENOENT {
			return false
		}
		fl.missing[step] = true
	}
	fl.f.gone[i].paths = append(fl.f.gone[i].paths, path)
	return true
}

// group starts filing missing paths under dir, and returns its index in
// f.gone; -1 where dir cannot hold them: gone meanwhile, or changed within
// racyWindow, when its next change could keep its change time (a file
// system's clock moves in ticks, or seconds).
func (fl *filing) group(dir string) int {
	fl.groups[dir] = -1
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return -1
	}
	if time.Since(time.Unix(st.Ctim.Unix())) < racyWindow {
		fl.f.racy = true
		return -1
	}
	i := len(fl.f.gone)
	fl.groups[dir] = i
	fl.f.gone = append(fl.f.gone, goneFrom{dir: pathAt{dir, stateOf(&st, true)}})
	return i
}

// Holds tells whether every path lies as it did, and nothing was mounted
// or unmounted since.
func (f Footprint) Holds() bool {
	holds, _ := f.check()
	return holds
}

// check is Holds, and whether it held without a look at each missing
// path of a folder that changed (a fresh read would group them again).
// While the journal has seen no change since the paths were last found
// as read, only those it does not cover are looked at.
func (f Footprint) check() (holds, exact bool) {
	if mountGeneration() != f.mounts {
		return false, false
	}
	if f.journal == nil {
		return f.look()
	}
	f.journal.Lock()
	mark, rest := f.journal.mark, f.journal.rest
	f.journal.Unlock()
	if journalStill(mark) {
		return rest.look()
	}
	mark, rest = f.armJournal()
	if holds, exact = f.look(); holds && exact {
		f.journal.Lock()
		f.journal.mark, f.journal.rest = mark, rest
		f.journal.Unlock()
	}
	return holds, exact
}

// armJournal has the journal watch f's paths, and returns its mark and
// the part of f it does not cover.
func (f Footprint) armJournal() (journalMark, Footprint) {
	items := make([]journalItem, 0, len(f.there)+len(f.gone))
	for _, at := range f.there {
		items = append(items, journalItem{path: at.path, follow: true})
	}
	for _, g := range f.gone {
		items = append(items, journalItem{path: g.dir.path, follow: true, entries: true})
	}
	mark, covered := armJournal(items)
	var rest Footprint
	for i, at := range f.there {
		if !covered[i] {
			rest.there = append(rest.there, at)
		}
	}
	for i, g := range f.gone {
		if !covered[len(f.there)+i] {
			rest.gone = append(rest.gone, g)
		}
	}
	return mark, rest
}

// look is check, by a look at each path.
func (f Footprint) look() (holds, exact bool) {
	for _, at := range f.there {
		if state, _ := footprintState(at.path, false); state != at.state {
			return false, false
		}
	}
	exact = true
	for _, g := range f.gone {
		if state, _ := footprintState(g.dir.path, true); state == g.dir.state {
			continue
		}
		exact = false
		for _, path := range g.paths {
			if _, missing := footprintState(path, false); !missing {
				return false, false
			}
		}
	}
	return true, exact
}

// footprintState is what lies at path: its device, inode and type, with
// its change time too for a folder's entries; or the error. missing: no
// such file.
func footprintState(path string, entries bool) (state string, missing bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		errno, _ := err.(unix.Errno)
		return "!" + strconv.Itoa(int(errno)), errno == unix.ENOENT
	}
	return stateOf(&st, entries), false
}

// stateOf is footprintState's, from a stat.
func stateOf(st *unix.Stat_t, entries bool) string {
	b := strconv.AppendUint(nil, st.Dev, 16)
	b = strconv.AppendUint(append(b, ':'), st.Ino, 16)
	b = strconv.AppendUint(append(b, ':'), uint64(st.Mode&unix.S_IFMT), 8)
	if entries {
		b = strconv.AppendInt(append(b, ':'), st.Ctim.Nano(), 10)
	}
	return string(b)
}

// nearestThere is the nearest folder above a missing path that is there,
// or "" where one above is missing for another reason (not a folder, not
// to be looked into).
func nearestThere(path string) string {
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		var st unix.Stat_t
		err := unix.Stat(dir, &st)
		switch {
		case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
			return dir
		case err != unix.ENOENT || dir == filepath.Dir(dir):
			return ""
		}
	}
}

// mounts watches the helper's mount table: the kernel marks its
// mountinfo readable with POLLPRI once a mount or an unmount changed it
// since the last poll. The descriptor is the system's, not an *os.File:
// Go's poller would take the mark in its own polls.
var mounts struct {
	sync.Mutex
	table  int
	opened bool
	gen    uint64
}

// mountGeneration counts the changes to the helper's mount table seen so
// far. Where the table cannot be watched, every call is a change of its
// own: no footprint holds, nothing made ahead is used.
func mountGeneration() uint64 {
	mounts.Lock()
	defer mounts.Unlock()
	if !mounts.opened {
		fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		mounts.table, mounts.opened = fd, err == nil
		mounts.gen++
		return mounts.gen
	}
	fds := []unix.PollFd{{Fd: int32(mounts.table), Events: unix.POLLPRI}}
	if n, _ := unix.Poll(fds, 0); n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
		mounts.gen++
	}
	return mounts.gen
}
