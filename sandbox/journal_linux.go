package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// The journal spares a check its stats. What a plan's lists were made
// from, and a footprint, are checked before each confined command: a
// stat of each path, 40 to 60 of them, about a tenth of the helper's
// time for a short command. The journal watches, with inotify, each
// folder along those paths for changes to the entries on the way, and a
// folder whose entries count for changes to any of them. A check armed
// with it (armJournal, then a look at each path as before) is then told
// by one read that nothing it looked at can have changed.
//
// Covered is what lies at a path (and its own attributes where they
// count), and what a folder lists. Not covered, so looked at each time
// by the caller: what a file holds (a write through a shared mapping
// makes no event), a path with a link on its way (the folders past the
// link are not on the path's way), and a folder on a file system whose
// changes may come from elsewhere (a network's or FUSE's), or be made
// whole (a ZFS rollback). The mount table is part of the mark
// (mountGeneration): a mount is no entry's change. An event lost (the
// queue overflowed) or a watch removed counts as a change. An overlay
// whose layers are changed beneath it, by root on the host, is not seen.

// journalMask is every change to a folder's entries, or to a watched
// folder itself. Writes to what a file holds make no event: what a file
// holds is never covered.
const journalMask = unix.IN_ATTRIB | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// selfMask is every change to a watched file's own attributes, or to
// where it is (through any of its links).
const selfMask = unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW

// entryChanges are the events that change what a folder lists.
const entryChanges = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO

// fsCasefoldFL is FS_CASEFOLD_FL: the folder's names are looked up
// regardless of case.
const fsCasefoldFL = 0x40000000

// maxWatches bounds the folders watched: past it the journal starts over.
// Watches count against the user's inotify limit, which other programs
// (an editor's file watcher) need.
const maxWatches = 2048

// minUserWatches is the least inotify limit the journal is used under: a
// few hundred watches are a small share of it (older kernels' 8192 is
// shared by every editor the user runs).
const minUserWatches = 65536

var journal struct {
	sync.Mutex
	fd      int  // the inotify instance; -1 when there is none
	tried   bool // an instance was asked for
	epoch   uint64
	changes uint64                    // changes seen to watched entries
	watched map[int32]*watchedEntries // by watch descriptor
}

// watchedEntries are the entries of a watched folder that count.
type watchedEntries struct {
	names map[string]bool
	all   bool // every entry (a folder listed)
}

// journalMark is the journal's state when a check was armed, and the
// mount table's (mountGeneration).
type journalMark struct{ epoch, changes, mounts uint64 }

// armed tells that the mark was given (the zero mark covers nothing).
func (m journalMark) armed() bool { return m.epoch != 0 }

// armJournal watches items and returns the journal's mark, and which
// items it covers. The caller then looks at each path: if all is as it
// was, the mark stands for that state of the covered ones until
// journalStill says otherwise (a change since the mark, the look's own
// time included, is in the journal: the watches were in place before
// the look). The others it looks at each time.
func armJournal(items []journalItem) (journalMark, []bool) {
	journal.Lock()
	defer journal.Unlock()
	covered := make([]bool, len(items))
	if !journalOpen() {
		return journalMark{}, covered
	}
	if drainJournal(); journal.fd < 0 {
		return journalMark{}, covered // ended by a failed read
	}
	mark := journalMark{journal.epoch, journal.changes, mountGeneration()}
	a := arming{watched: map[string]*watchedEntries{}, kinds: map[string]uint32{}}
	for i, it := range items {
		covered[i] = a.coverPath(it)
	}
	return mark, covered
}

// arming is what one armJournal has learnt, so that a folder shared by
// many paths' ways is watched and looked at once: the folders it
// watches (nil: one that cannot be), and the type of what lies at each
// path looked at (0: an error). Each was learnt after the folder above
// was watched, so a change since is in the journal.
type arming struct {
	watched map[string]*watchedEntries
	kinds   map[string]uint32
}

// journalStill tells that nothing covered changed since m (a zero m:
// nothing was covered).
func journalStill(m journalMark) bool {
	journal.Lock()
	defer journal.Unlock()
	if !m.armed() || m.epoch != journal.epoch || journal.fd < 0 || mountGeneration() != m.mounts {
		return false
	}
	drainJournal()
	return m.epoch == journal.epoch && journal.changes == m.changes
}

// journalOpen makes the inotify instance, the first time or once too
// many folders are watched (every mark given before is void then);
// false where there is none to be had.
func journalOpen() bool {
	switch {
	case journal.tried && journal.fd < 0:
		return false
	case journal.tried && len(journal.watched) <= maxWatches:
		return true
	case journal.tried:
		unix.Close(journal.fd)
	}
	journal.tried = true
	journal.epoch++
	journal.watched = map[int32]*watchedEntries{}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil || userWatches() < minUserWatches {
		unix.Close(fd)
		fd = -1
	}
	journal.fd = fd
	return fd >= 0
}

// userWatches is the kernel's limit of inotify watches per user.
func userWatches() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// coverPath watches the folders on item's way for the entry taken in
// each, down to where the way ends: a missing entry (its making is an
// event), the path itself (watched itself where its attributes count, a
// folder whose entries count watched whole). False where the way passes
// a link or a file system not covered.
func (a arming) coverPath(it journalItem) bool {
	path := filepath.Clean(it.path)
	if !filepath.IsAbs(path) {
		return false
	}
	dir, rest := "/", strings.TrimPrefix(path, "/")
	for rest != "" {
		name, more, _ := strings.Cut(rest, "/")
		if !a.watch(dir, name, false) {
			return false
		}
		next := filepath.Join(dir, name)
		switch a.kind(next) {
		case 0:
			return true // missing, or not to be looked into: its entry is watched
		case unix.S_IFLNK:
			return more == "" && !it.follow // a link's own attributes never change
		case unix.S_IFDIR:
		default: // a file: the way ends here
			return more != "" || !it.attrs || a.watchFile(next)
		}
		dir, rest = next, more
	}
	return (!it.attrs || a.watch(dir, "", false)) && (!it.entries || a.watch(dir, "", true))
}

// kind is the type of what lies at path, not followed; 0 for an error.
func (a arming) kind(path string) uint32 {
	k, ok := a.kinds[path]
	if !ok {
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil {
			k = st.Mode & unix.S_IFMT
		}
		a.kinds[path] = k
	}
	return k
}

// watch watches folder dir for changes to entry name, or to all of
// them.
func (a arming) watch(dir, name string, all bool) bool {
	w, ok := a.watched[dir]
	if !ok {
		w = watchFolder(dir)
		a.watched[dir] = w
	}
	if w == nil {
		return false
	}
	w.all = w.all || all
	if name != "" {
		w.names[name] = true
	}
	return true
}

// watchFile watches the file at path itself: a change to its
// attributes through another of its links reaches no folder of this one.
func (a arming) watchFile(path string) bool {
	if _, ok := a.watched[path]; ok {
		return true
	}
	w := addWatch(path, selfMask)
	a.watched[path] = w
	return w != nil
}

// watchFolder has the kernel watch folder dir, and returns what of it
// counts; nil where it cannot be watched, or its changes may be made
// out of this kernel's sight. Every entry of a folder whose names are
// looked up regardless of case counts: the event names the entry as it
// was made, a lookup finds it by any case.
func watchFolder(dir string) *watchedEntries {
	w := addWatch(dir, journalMask)
	if w != nil && caseFolded(dir) {
		w.all = true
	}
	return w
}

// addWatch adds a watch at path, on a file system that is covered.
func addWatch(path string, mask uint32) *watchedEntries {
	var fs unix.Statfs_t
	if unix.Statfs(path, &fs) != nil || !localFS(uint32(fs.Type)) {
		return nil
	}
	wd, err := unix.InotifyAddWatch(journal.fd, path, mask)
	if err != nil {
		return nil
	}
	w := journal.watched[int32(wd)]
	if w == nil {
		w = &watchedEntries{names: map[string]bool{}}
		journal.watched[int32(wd)] = w
	}
	return w
}

// caseFolded tells a folder whose names are looked up regardless of
// case. Made so later (only while it is empty) is an event of its own.
func caseFolded(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return true // not to be told: taken as folded
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	return err == nil && flags&fsCasefoldFL != 0
}

// localFS tells the file systems whose every change is made through this
// kernel, so that inotify sees it: not a network's, nor FUSE's, nor
// /proc's or /sys's.
func localFS(magic uint32) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.RAMFS_MAGIC:
		return true
	}
	return false
}

// drainJournal reads the events queued and counts those that concern a
// covered entry. A read that fails but for an empty queue ends the
// journal: no mark holds after it, as an event may be left unread.
func drainJournal() {
	var buf [4096]byte
	for {
		n, err := unix.Read(journal.fd, buf[:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil || n <= 0:
			unix.Close(journal.fd)
			journal.fd = -1
			journal.epoch++
			return
		}
		platform.InotifyEvents(buf[:n], func(ev *unix.InotifyEvent, name string) {
			if journalCounts(ev, name) {
				journal.changes++
			}
		})
	}
}

// journalCounts tells whether an event is a change to a covered entry:
// any change to an entry that counts, or to the watched folder or file
// itself, what a folder whose entries count lists, a lost event or a
// watch gone.
func journalCounts(ev *unix.InotifyEvent, name string) bool {
	if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 {
		if ev.Mask&unix.IN_IGNORED != 0 {
			delete(journal.watched, ev.Wd)
		}
		return true
	}
	w := journal.watched[ev.Wd]
	return w == nil || name == "" || w.names[name] || w.all && ev.Mask&entryChanges != 0
}
