package engine

import (
	"errors"
	"path/filepath"

	"github.com/termhelper/termhelper/platform"
	"golang.org/x/sys/unix"
)

// opens counts the opens of a few files (the project's .env files) by
// any process, through inotify: Landlock reports no allowed reads, and
// fanotify, which would name the process, needs privileges the helper
// lacks as an ordinary user. Events are read when asked for, not by a
// goroutine: the kernel queues each open before the open returns, so a
// command that has ended has queued all of its own. The helper's own
// reads are announced first (self) and not counted. Not safe for
// concurrent use: dotenvCache's lock guards it.
type opens struct {
	fd     int // -1: inotify is not available, nothing is counted
	names  map[int32]string
	counts map[string]int
	self   map[string]int
	buf    []byte
}

func newOpens() *opens {
	o := &opens{fd: -1, names: map[int32]string{}, counts: map[string]int{}, self: map[string]int{}}
	if fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err == nil {
		o.fd, o.buf = fd, make([]byte, 16<<10)
	}
	return o
}

// watch counts the opens of the file name in root from now on; it
// reports whether it can.
func (o *opens) watch(root, name string) bool {
	if o.fd < 0 {
		return false
	}
	wd, err := unix.InotifyAddWatch(o.fd, filepath.Join(root, name), unix.IN_OPEN|unix.IN_DONT_FOLLOW)
	if err != nil {
		return false
	}
	o.names[int32(wd)] = name
	return true
}

// selfOpen announces that the helper is about to open name itself.
func (o *opens) selfOpen(name string) {
	for _, n := range o.names {
		if n == name {
			o.self[name]++
			return
		}
	}
}

// snapshot is the count of each file's opens so far.
func (o *opens) snapshot() map[string]int {
	o.drain()
	snap := make(map[string]int, len(o.counts))
	for k, v := range o.counts {
		snap[k] = v
	}
	return snap
}

// since names the files opened after snap was taken.
func (o *opens) since(snap map[string]int) []string {
	o.drain()
	var out []string
	for k, v := range o.counts {
		if v > snap[k] {
			out = append(out, k)
		}
	}
	return out
}

// drain reads the queued events.
func (o *opens) drain() {
	for o.fd >= 0 {
		n, err := unix.Read(o.fd, o.buf)
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				o.close()
			}
			return
		}
		o.events(o.buf[:n])
	}
}

// events counts the opens in buf, whole inotify events.
func (o *opens) events(buf []byte) {
	platform.InotifyEvents(buf, func(ev *unix.InotifyEvent, _ string) {
		name, ok := o.names[ev.Wd]
		switch {
		case ev.Mask&unix.IN_IGNORED != 0:
			delete(o.names, ev.Wd)
		case !ok || ev.Mask&unix.IN_OPEN == 0:
		case o.self[name] > 0:
			o.self[name]--
		default:
			o.counts[name]++
		}
	})
}

func (o *opens) close() {
	if o.fd >= 0 {
		unix.Close(o.fd)
		o.fd = -1
	}
}
