package platform

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A process that clears its environment and leaves its session (env -i,
// setsid, a double fork) carries nothing that ties it to its command:
// not the group, not the session, not the tag. While the helper lives it
// is still the helper's child (the helper is a subreaper), but a helper
// killed with SIGKILL leaves it to init. So each command starts in a
// cgroup v2 of its own, made under the helper's own cgroup: whatever the
// tree does, its processes stay in it, cgroup.kill ends them all at once
// (a fork loop included), and the next helper for the root, reading the
// path from the state file, ends what a killed one left. The command is
// born in its cgroup (clone3 with CLONE_INTO_CGROUP), so nothing it forks
// can be quicker than the move.

// treeCgroup is one command's cgroup. Its methods are safe for
// concurrent use and do nothing on a nil one.
type treeCgroup struct {
	mu   sync.Mutex
	path string // "" once removed
	fd   int    // the directory, open until the command has started; -1 after
	v1   string // its cgroup in the v1 pids hierarchy, if it has one (pids_linux.go)
	// events are the pids.events files of path and v1, open while they
	// are there.
	events []*os.File
	// max is its process cap (0: none), refused the forks the cap
	// refused, read as the cgroup goes.
	max, refused int
}

// cgroups is the helper's container of command cgroups: made when the
// first command starts, removed when the last one's cgroup goes.
var cgroups struct {
	once   sync.Once
	mu     sync.Mutex
	base   string // the helper's own cgroup; "" when none can be used
	reason string // why not, for a person
	dir    string // base/termhelper-<pid>-<nanoseconds>
	live   int    // command cgroups in dir
	next   int
}

// containerPrefix starts the name of every container; KillCgroup ends
// nothing else.
const containerPrefix = "termhelper-"

func initCgroups() {
	cgroups.once.Do(func() {
		base, err := ownCgroup()
		if err == nil {
			cgroups.dir = filepath.Join(base, fmt.Sprintf("%s%d-%d", containerPrefix, os.Getpid(), time.Now().UnixNano()))
			err = probeContainer(cgroups.dir)
		}
		if err != nil {
			cgroups.reason = fmt.Sprintf("processes are not held in a cgroup (%v): one that clears its environment and leaves its session outlives a helper killed with SIGKILL", err)
			return
		}
		cgroups.base = base
	})
}

// Containment says how the processes of a command are held: "" when in a
// cgroup of its own, else a sentence saying why not and what it costs.
func Containment() string {
	initCgroups()
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	return cgroups.reason
}

// CgroupDir is the folder holding this helper's command cgroups, for the
// state file; "" when commands are not held in cgroups.
func CgroupDir() string {
	initCgroups()
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.base == "" {
		return ""
	}
	return cgroups.dir
}

// probeContainer makes and removes dir, to learn whether the helper may
// make cgroups where it is.
func probeContainer(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return os.Remove(dir)
}

// ownCgroup finds the helper's own cgroup v2 folder: the cgroup2 mount
// from /proc/self/mountinfo, and the path from /proc/self/cgroup.
func ownCgroup() (string, error) {
	root, mount, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			rel := strings.TrimPrefix(path, strings.TrimSuffix(root, "/"))
			return filepath.Join(mount, rel), nil
		}
	}
	return "", errors.New("no cgroup v2 path in /proc/self/cgroup")
}

// cgroup2Mount returns the root and the mount point of the cgroup2 file
// system, wherever it is mounted (a hybrid hierarchy puts it at
// /sys/fs/cgroup/unified).
func cgroup2Mount() (root, mount string, err error) {
	err = eachMount(func(fields, fs []string) bool {
		if fs[0] == "cgroup2" {
			root, mount = unescapeMount(fields[3]), unescapeMount(fields[4])
		}
		return mount == ""
	})
	if err == nil && mount == "" {
		err = errors.New("no cgroup2 file system is mounted")
	}
	return root, mount, err
}

// eachMount calls fn with each mount's fields in /proc/self/mountinfo,
// before the separator (at least 5) and after it (at least 3: the file
// system, its source and its options), until fn returns false.
func eachMount(fn func(fields, fs []string) bool) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(fs) >= 3 && !fn(fields, fs) {
			break
		}
	}
	return sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// newTreeCgroup makes a cgroup for one command, or returns nil when
// commands are not held in cgroups here.
func newTreeCgroup() *treeCgroup {
	initCgroups()
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.base == "" {
		return nil
	}
	if cgroups.live == 0 {
		if err := os.Mkdir(cgroups.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil
		}
		enablePids(cgroups.dir)
	}
	cgroups.next++
	path := filepath.Join(cgroups.dir, "c"+strconv.Itoa(cgroups.next))
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(path)
		return nil
	}
	cgroups.live++
	return &treeCgroup{path: path, fd: fd}
}

// startContained starts cmd born in cg. Where the kernel will not start
// it there (no clone3, a seccomp profile that refuses it), it starts cmd
// as it is, stops using cgroups for good, and says why in Containment.
// It returns the command that runs and the cgroup that holds it, if any.
func startContained(cmd *exec.Cmd, cg *treeCgroup) (*exec.Cmd, *treeCgroup, error) {
	if cg == nil {
		return cmd, nil, startRegistered(cmd)
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
	err := startRegistered(cmd)
	cg.closeFD()
	if err == nil {
		return cmd, cg, nil
	}
	retry := uncontained(cmd)
	if rerr := startRegistered(retry); rerr != nil {
		cg.release()
		return cmd, nil, err
	}
	cg.release()
	cgroups.mu.Lock()
	cgroups.base = ""
	cgroups.reason = fmt.Sprintf("commands cannot be started in a cgroup here (%v): one that clears its environment and leaves its session outlives a helper killed with SIGKILL", err)
	cgroups.mu.Unlock()
	return retry, nil, nil
}

// uncontained is a fresh copy of cmd, not yet started, without the cgroup.
func uncontained(cmd *exec.Cmd) *exec.Cmd {
	attr := *cmd.SysProcAttr
	attr.UseCgroupFD, attr.CgroupFD = false, 0
	return &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Stdin: cmd.Stdin,
		Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles, SysProcAttr: &attr}
}

func (cg *treeCgroup) closeFD() {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.fd >= 0 {
		unix.Close(cg.fd)
		cg.fd = -1
	}
}

// dir is the cgroup's folder, "" once removed (or for a nil one).
func (cg *treeCgroup) dir() string {
	if cg == nil {
		return ""
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	return cg.path
}

// populated reports whether any process is left in the cgroup.
func (cg *treeCgroup) populated() bool {
	dir := cg.dir()
	if dir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && bytes.Contains(b, []byte("populated 1"))
}

// killAll ends every process in the cgroup, waiting a few seconds at most
// for it to empty.
func (cg *treeCgroup) killAll() {
	if dir := cg.dir(); dir != "" {
		killCgroup(dir)
	}
}

// signal sends sig to every process in the cgroup.
func (cg *treeCgroup) signal(sig syscall.Signal) {
	if dir := cg.dir(); dir != "" {
		for _, pid := range cgroupProcs(dir) {
			unix.Kill(pid, sig)
		}
	}
}

// release removes the cgroup once it is empty; the container goes with
// the last one. It is safe to call again.
func (cg *treeCgroup) release() {
	if cg == nil {
		return
	}
	cg.closeFD()
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.path == "" {
		return
	}
	if cg.max > 0 && cg.refused == 0 {
		cg.refused = cg.limitReached()
	}
	cg.closeEvents()
	cg.releaseV1()
	if err := os.Remove(cg.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return // still populated: a later release removes it
	}
	cg.path = ""
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.live--; cgroups.live == 0 {
		os.Remove(cgroups.dir)
	}
}

func cgroupProcs(path string) []int {
	b, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
	var pids []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killCgroup ends every process in the cgroup at path and below it:
// cgroup.kill where the kernel has it (nothing can fork past it), else
// SIGKILL to each process listed, again until none is left. It waits at
// most a few seconds for the cgroup to empty, and reports how many
// processes it found.
func killCgroup(path string) int {
	if path == "" {
		return 0
	}
	found := countProcs(path)
	oneByOne := os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0) != nil
	deadline := time.Now().Add(5 * time.Second)
	for pause := time.Millisecond; countProcs(path) > 0 && time.Now().Before(deadline); pause = min(2*pause, 50*time.Millisecond) {
		if oneByOne {
			walkCgroups(path, func(p string) {
				for _, pid := range cgroupProcs(p) {
					unix.Kill(pid, unix.SIGKILL)
				}
			})
		}
		time.Sleep(pause)
	}
	return found
}

// countProcs counts the processes in the cgroup at path and below it.
func countProcs(path string) int {
	n := 0
	walkCgroups(path, func(p string) { n += len(cgroupProcs(p)) })
	return n
}

// walkCgroups calls fn for path and every cgroup below it, deepest last.
func walkCgroups(path string, fn func(string)) {
	fn(path)
	des, _ := os.ReadDir(path)
	for _, de := range des {
		if de.IsDir() {
			walkCgroups(filepath.Join(path, de.Name()), fn)
		}
	}
}

// KillCgroup ends what a dead helper left in its container of command
// cgroups (CgroupDir of that helper, read from its state file) and
// removes the container. It touches nothing but a termhelper container
// inside the cgroup2 file system. It returns how many processes it ended.
func KillCgroup(dir string) int {
	_, mount, err := cgroup2Mount()
	if err != nil || dir == "" || !strings.HasPrefix(filepath.Base(dir), containerPrefix) ||
		!strings.HasPrefix(filepath.Clean(dir), filepath.Clean(mount)+"/") {
		return 0
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		return 0
	}
	n := killCgroup(dir)
	removeCgroups(dir)
	removeV1(dir)
	return n
}

// removeCgroups removes the empty cgroups at path and below it.
func removeCgroups(path string) {
	des, _ := os.ReadDir(path)
	for _, de := range des {
		if de.IsDir() {
			removeCgroups(filepath.Join(path, de.Name()))
		}
	}
	os.Remove(path)
}
