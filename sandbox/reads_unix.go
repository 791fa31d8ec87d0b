//go:build linux || darwin

package sandbox

import (
	"io/fs"
	"strconv"
	"syscall"
	"time"
)

// keepsPlans: a path's state here says when its content changed.
const keepsPlans = true

// fileState is what lies at a path: its device, inode and type (id);
// its size and its modification and change times (the change time cannot
// be set back: a file rewritten and dated back still differs); and when
// it last changed.
func fileState(fi fs.FileInfo) (id, times string, changed time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "?", "", time.Now()
	}
	dev, mtime, ctime := stamps(st)
	b := strconv.AppendUint(nil, dev, 16)
	b = strconv.AppendUint(append(b, ':'), st.Ino, 16)
	b = strconv.AppendUint(append(b, ':'), uint64(st.Mode), 8)
	t := strconv.AppendInt(nil, st.Size, 10)
	t = strconv.AppendInt(append(t, ':'), mtime, 10)
	t = strconv.AppendInt(append(t, ':'), ctime, 10)
	return string(b), string(t), time.Unix(0, ctime)
}
