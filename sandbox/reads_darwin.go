package sandbox

import "syscall"

// stamps are a stat's device and its modification and change times.
func stamps(st *syscall.Stat_t) (dev uint64, mtime, ctime int64) {
	return uint64(st.Dev), st.Mtimespec.Nano(), st.Ctimespec.Nano()
}
