package platform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A confined command's tree gets a process cap (the config's
// max_processes) from the pids controller of its cgroup: pids.max on
// cgroup v2 where the helper's container can have the controller, else,
// for root on a hybrid hierarchy, a cgroup of its own in the v1 pids
// hierarchy, which the trampoline joins before it confines itself (no
// CLONE_INTO_CGROUP there). pids.events counts the forks the cap
// refused: that is how an answer says the cap was reached. Where neither
// holds, the trampoline's RLIMIT_NPROC stands in (sandbox.CountsProcesses
// says where it bounds one tree).

// pidsV1 is the v1 pids hierarchy's container of command cgroups.
var pidsV1 struct {
	once sync.Once
	mu   sync.Mutex
	dir  string // "" where there is none to use
	next int
}

// PidsLimit says how a confined command's tree is capped by a cgroup
// here: "cgroup" (v2 pids.max), "cgroup v1" or "" (none).
func PidsLimit() string {
	dir := CgroupDir()
	switch {
	case dir == "": // the v1 cgroup caps only a tree a v2 cgroup holds
		return ""
	case hasPids(dir):
		return "cgroup"
	case v1Dir() != "":
		return "cgroup v1"
	}
	return ""
}

// hasPids makes the container's children able to have pids.max, where
// the helper may: the controller enabled in its own cgroup's and the
// container's subtree (pids is a threaded controller, so the helper's own
// processes in its cgroup do not stand in the way). The container is made
// if it is not there (it goes with its last command cgroup).
func hasPids(container string) bool {
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if err := os.Mkdir(container, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return false
	}
	if cgroups.live == 0 {
		defer os.Remove(container)
	}
	return enablePids(container)
}

// enablePids enables the pids controller for the container's children,
// where the helper may, and reports whether they have it.
func enablePids(container string) bool {
	if controllers(container) {
		return true
	}
	os.WriteFile(filepath.Join(filepath.Dir(container), "cgroup.subtree_control"), []byte("+pids"), 0)
	os.WriteFile(filepath.Join(container, "cgroup.subtree_control"), []byte("+pids"), 0)
	return controllers(container)
}

// controllers reports whether dir's children get the pids controller.
func controllers(dir string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	return slices.Contains(strings.Fields(string(b)), "pids")
}

// v1Dir is the container in the v1 pids hierarchy, for root alone ("" for
// anyone else, or where there is none).
func v1Dir() string {
	pidsV1.once.Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		mount, own, err := v1PidsCgroup()
		if err != nil {
			return
		}
		// Named as the v2 container, where there is one, so that the
		// next helper finds it beside it (removeV1).
		name := filepath.Base(CgroupDir())
		if CgroupDir() == "" {
			name = fmt.Sprintf("%s%d-%d", containerPrefix, os.Getpid(), time.Now().UnixNano())
		}
		dir := filepath.Join(mount, own, name)
		if probeContainer(dir) == nil {
			pidsV1.dir = dir
		}
	})
	return pidsV1.dir
}

// v1PidsCgroup finds the v1 pids hierarchy's mount and the helper's path
// in it.
func v1PidsCgroup() (mount, own string, err error) {
	err = eachMount(func(fields, fs []string) bool {
		if fs[0] == "cgroup" && slices.Contains(strings.Split(fs[2], ","), "pids") {
			mount = unescapeMount(fields[4])
		}
		return mount == ""
	})
	if err != nil {
		return "", "", err
	}
	if mount == "" {
		return "", "", errors.New("no v1 pids hierarchy")
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if parts := strings.SplitN(line, ":", 3); len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "pids") {
			return mount, parts[2], nil
		}
	}
	return "", "", errors.New("the helper is in no v1 pids cgroup")
}

// limitProcs caps the tree cg holds at max processes (0: no cap): pids.max
// in cg, or in a v1 cgroup the launch's trampoline joins. The spare, when
// the tree is a spare's, counts as one of them.
func limitProcs(cg *treeCgroup, launch Launch, max int) {
	if cg == nil || max <= 0 {
		return
	}
	cg.mu.Lock()
	cg.max = max
	cg.mu.Unlock()
	v := []byte(strconv.Itoa(max))
	if os.WriteFile(filepath.Join(cg.dir(), "pids.max"), v, 0) == nil {
		cg.openEvents(cg.dir())
		return
	}
	container := v1Dir()
	if container == "" {
		return
	}
	// Under the lock: a tree's release removes the container once empty,
	// which between the two mkdirs would leave this tree without its cap.
	pidsV1.mu.Lock()
	pidsV1.next++
	dir := filepath.Join(container, "c"+strconv.Itoa(pidsV1.next))
	os.Mkdir(container, 0o755)
	err := os.Mkdir(dir, 0o755)
	pidsV1.mu.Unlock()
	if err != nil {
		return
	}
	if os.WriteFile(filepath.Join(dir, "pids.max"), v, 0) != nil {
		os.Remove(dir)
		return
	}
	cg.mu.Lock()
	cg.v1 = dir
	cg.mu.Unlock()
	cg.openEvents(dir)
	if j, ok := launch.(cgroupJoiner); ok {
		j.JoinCgroup(dir)
	}
}

// cgroupJoiner is a Launch whose process joins the cgroup at dir before it
// confines itself (the sandbox trampoline).
type cgroupJoiner interface{ JoinCgroup(dir string) }

// openEvents opens the pids.events of the cgroup at dir, so that an
// answer reads it without a lookup (opening a cgroup's file is most of
// what reading it costs).
func (cg *treeCgroup) openEvents(dir string) {
	f, err := os.Open(filepath.Join(dir, "pids.events"))
	if err != nil {
		return
	}
	cg.mu.Lock()
	cg.events = append(cg.events, f)
	cg.mu.Unlock()
}

// closeEvents closes what openEvents opened; limitReached reads by path
// after it.
func (cg *treeCgroup) closeEvents() {
	for _, f := range cg.events {
		f.Close()
	}
	cg.events = nil
}

// limitReached reads the number of forks the cap refused, while the
// cgroups are there.
func (cg *treeCgroup) limitReached() int {
	n := 0
	for _, b := range cg.readEvents() {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("max ")); ok {
				if c, err := strconv.Atoi(string(bytes.TrimSpace(v))); err == nil {
					n += c
				}
			}
		}
	}
	return n
}

// readEvents is each pids.events of the cgroups: through the files open,
// else by path.
func (cg *treeCgroup) readEvents() [][]byte {
	var out [][]byte
	if len(cg.events) > 0 {
		for _, f := range cg.events {
			b := make([]byte, 256)
			n, _ := f.ReadAt(b, 0)
			out = append(out, b[:n])
		}
		return out
	}
	for _, dir := range []string{cg.path, cg.v1} {
		if dir != "" {
			b, _ := os.ReadFile(filepath.Join(dir, "pids.events"))
			out = append(out, b)
		}
	}
	return out
}

// releaseV1 removes the v1 cgroup once its processes are gone; the
// container goes with it when it is the last.
func (cg *treeCgroup) releaseV1() {
	if cg.v1 == "" {
		return
	}
	pidsV1.mu.Lock() // beside limitProcs's mkdirs
	defer pidsV1.mu.Unlock()
	if err := os.Remove(cg.v1); err == nil || errors.Is(err, os.ErrNotExist) {
		os.Remove(filepath.Dir(cg.v1)) // fails while another command's is there
		cg.v1 = ""
	}
}

// limitDenials says that the tree reached its process cap, if it did.
func (p *Process) limitDenials() []Denial {
	cg := p.sys.cg
	if cg == nil {
		return nil
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.refused == 0 && cg.path != "" {
		cg.refused = cg.limitReached()
	}
	if cg.refused == 0 {
		return nil
	}
	return []Denial{ProcessLimitDenial(cg.max)}
}

// removeV1 removes what a dead helper left in the v1 pids hierarchy
// beside its v2 container (named alike): cgroups its commands' processes,
// ended already, have left empty.
func removeV1(v2dir string) {
	if os.Geteuid() != 0 {
		return
	}
	if mount, own, err := v1PidsCgroup(); err == nil {
		removeCgroups(filepath.Join(mount, own, filepath.Base(v2dir)))
	}
}
