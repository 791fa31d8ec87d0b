package sandbox

import "syscall"

// stamps are a stat's device and its modification and change times.
func stamps(st *syscall.Stat_t) (dev uint64, mtime, ctime int64) {
	return st.Dev, st.Mtim.Nano(), st.Ctim.Nano()
}
