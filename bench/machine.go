//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// machine describes where the numbers were taken: without it a table of
// timings means nothing.
func machine(repo string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- CPU: %d × %s\n", runtime.NumCPU(), procField("/proc/cpuinfo", "model name"))
	fmt.Fprintf(&b, "- memory: %s\n", memTotal())
	fmt.Fprintf(&b, "- kernel: %s\n", firstLine("/proc/sys/kernel/osrelease"))
	fmt.Fprintf(&b, "- Go: %s\n", runtime.Version())
	fmt.Fprintf(&b, "- load average at start: %s\n", firstLine("/proc/loadavg"))
	fmt.Fprintf(&b, "- termhelper: %s\n", revision(repo))
	return b.String()
}

// procField returns the value of the first "key: value" line with key.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
}

// revision names the source the helper was built from, "-dirty" when the
// work tree had changes.
func revision(repo string) string {
	out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func memTotal() string {
	var kib int64
	if _, err := fmt.Sscanf(procField("/proc/meminfo", "MemTotal"), "%d kB", &kib); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
}
