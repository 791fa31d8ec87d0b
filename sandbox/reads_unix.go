//go:build linux || darwin

package sandbox

import (
	"io/fs"
	"strconv"
	"syscall"
)

// keepsPlans: a path's state here says when its content changed.
const keepsPlans = true

// fileState is what lies at a path: its device, inode and type, and when
// whole its size and its modification and change times (the change time
// cannot be set back: a file rewritten and dated back still differs).
func fileState(fi fs.FileInfo, whole bool) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "?"
	}
	dev, mtime, ctime := stamps(st)
	b := strconv.AppendUint(nil, dev, 16)
	b = strconv.AppendUint(append(b, ':'), st.Ino, 16)
	b = strconv.AppendUint(append(b, ':'), uint64(st.Mode), 8)
	if whole {
		b = strconv.AppendInt(append(b, ':'), st.Size, 10)
		b = strconv.AppendInt(append(b, ':'), mtime, 10)
		b = strconv.AppendInt(append(b, ':'), ctime, 10)
	}
	return string(b)
}
