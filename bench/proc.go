//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat CPU times: 100 on
// every Linux the suite targets (sysconf is not reachable without cgo).
const clockTicks = 100

// statusKiB reads a "Key:  N kB" line of /proc/PID/status: VmRSS is the
// resident size now, VmHWM the peak over the process's life.
func statusKiB(pid int, key string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

// fdCount counts the open file descriptors of pid.
func fdCount(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// cpuTicks is the user plus system CPU time pid has used, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields start after its ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s, nil
}

// tagged lists the live processes whose environment carries the helper's
// session tag for helper pid: the helper tags every command it starts
// with TERMHELPER_SESSION=<pid>-..., and the tag is inherited by the
// whole tree, so this finds whatever a kill left behind.
func tagged(helperPid int) []int {
	want := []byte("TERMHELPER_SESSION=" + strconv.Itoa(helperPid) + "-")
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasVar(env, want) || isZombie(pid) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func hasVar(env, prefix []byte) bool {
	return bytes.HasPrefix(env, prefix) || bytes.Contains(env, append([]byte{0}, prefix...))
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

// fdTargets summarizes what pid's descriptors point to, folding the
// names of files into their folder so that a leak shows as one count.
func fdTargets(pid int) string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	counts := map[string]int{}
	for _, e := range ents {
		t, err := os.Readlink(dir + "/" + e.Name())
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(t, '/'); i > 0 && !strings.HasPrefix(t, "/dev/") {
			t = t[:i] + "/*"
		}
		if i := strings.IndexByte(t, '['); i > 0 {
			t = t[:i] // pipe:[123] and socket:[456] by kind
		}
		counts[t]++
	}
	var parts []string
	for t, n := range counts {
		parts = append(parts, fmt.Sprintf("%d × %s", n, t))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
