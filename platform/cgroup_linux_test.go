package platform

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hider is a command that leaves a fork loop behind which kept nothing of
// it: a cleared environment (no tag), a session of its own, a parent that
// is gone. The loop writes its pid to pidFile; its sleeps carry mark. The
// command waits for the loop to have its session before it ends: the
// terminal's hangup at its end would otherwise end the loop first.
func hider(pidFile, mark string) string {
	loop := fmt.Sprintf(`echo $$ > %s; while :; do sleep %s & sleep 0.02; done`, pidFile, mark)
	return fmt.Sprintf(`env -i /bin/sh -c '(setsid /bin/sh -c "%s" &)'; while [ ! -s %s ]; do sleep 0.01; done`,
		strings.ReplaceAll(loop, `$`, `\$`), pidFile)
}

// markOf is a sleep length unique to this test, to find its processes by.
func markOf(t *testing.T) string {
	// The whole pid: another test binary running at the same time must
	// never share one, since what carries it is killed.
	return fmt.Sprintf("7%07d%03d", os.Getpid(), len(t.Name())%1000)
}

// withMark lists the live processes whose command line holds mark.
func withMark(mark string) []int {
	var out []int
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if st, ok := readStat(pid); ok && st.state != 'Z' && strings.Contains(string(b), mark) {
			out = append(out, pid)
		}
	}
	return out
}

// startHider starts hider on a terminal, waits for its own process to
// exit and for the loop to be running, and returns the loop's pid.
func startHider(t *testing.T, mark string) (*Process, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "loop.pid")
	t.Cleanup(func() {
		// A failed test may leave the loop forking while it is killed.
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for i := 0; i < 100 && len(withMark(mark)) > 0; i++ {
			for _, pid := range withMark(mark) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	p, err := Start(Spec{Argv: ShellArgv("", hider(pidFile, mark)), Dir: t.TempDir(), Env: os.Environ(), PTY: true, Tag: "hider-" + mark})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	go io.Copy(io.Discard, p.Output)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(pidFile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && syscall.Kill(pid, 0) == nil && len(withMark(mark)) > 0 {
			return p, pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("the loop never started: pid file %q, marked %v", b, withMark(mark))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone waits, within a watchdog, until the loop and its sleeps are gone.
func gone(t *testing.T, loop int, mark string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(loop, 0) == nil && !zombie(loop) || len(withMark(mark)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: the loop %d, sleeps %v", loop, withMark(mark))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func zombie(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state == 'Z'
}

func needCgroups(t *testing.T) {
	if why := Containment(); why != "" {
		t.Skip(why)
	}
}

// A command's cgroup holds what kept nothing of it: the tree is alive
// while the loop runs, and a kill ends the loop and all it forked.
func TestCgroupHoldsWhatLeavesTheSession(t *testing.T) {
	needCgroups(t)
	mark := markOf(t)
	p, loop := startHider(t, mark)
	dir := p.sys.cg.dir()
	if !p.Alive() {
		t.Fatal("the tree is reported gone while its fork loop runs")
	}
	p.Kill(SIGTERM, time.Second)
	gone(t, loop, mark)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the command's cgroup %s is still there: %v", dir, err)
	}
}

// What a killed helper left in its cgroups is ended by KillCgroup, given
// the folder its state file recorded; it ends nothing outside one.
func TestKillCgroupEndsALeftContainer(t *testing.T) {
	needCgroups(t)
	mark := markOf(t)
	_, loop := startHider(t, mark)
	if n := KillCgroup(filepath.Dir(CgroupDir())); n != 0 {
		t.Fatalf("KillCgroup of a folder that is no container ended %d processes", n)
	}
	if n := KillCgroup(CgroupDir()); n == 0 {
		t.Fatal("KillCgroup found nothing")
	}
	gone(t, loop, mark)
	if _, err := os.Stat(CgroupDir()); !os.IsNotExist(err) {
		t.Errorf("the container is still there: %v", err)
	}
}

// Without cgroups, the helper (a subreaper) still holds the orphans that
// kept nothing of their command: the only live command's tree has them,
// and EndStrays ends them when there are several. It runs in a process of
// its own, which becomes a subreaper.
func TestStraysWithoutCgroups(t *testing.T) {
	if !inSubreaper(t) {
		return
	}
	initCgroups()
	cgroups.mu.Lock()
	cgroups.base = ""
	cgroups.mu.Unlock()

	mark := markOf(t)
	p, loop := startHider(t, mark)
	if !p.Alive() {
		t.Fatal("the only live tree is reported gone while an unclaimed orphan runs")
	}
	p.Kill(SIGTERM, time.Second)
	gone(t, loop, mark)

	other := startOn(t, "sleep 60")
	mark2 := mark + "1"
	_, loop = startHider(t, mark2)
	if n := EndStrays(); n == 0 {
		t.Fatal("EndStrays found nothing")
	}
	gone(t, loop, mark2)
	if !other.Alive() {
		t.Fatal("EndStrays ended a command's own tree")
	}
}

// inSubreaper runs the calling test again in a process of its own, which
// Init makes a subreaper, and fails unless it passed there; in that
// process it returns true, and the test goes on.
func inSubreaper(t *testing.T) bool {
	t.Helper()
	if os.Getenv("TERMHELPER_SUBREAPER_TEST") != t.Name() {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
		cmd.Env = append(os.Environ(), "TERMHELPER_SUBREAPER_TEST="+t.Name())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("%v\n%s", err, out)
		}
		return false
	}
	Init()
	if !subreaper {
		t.Skip("the helper cannot be a subreaper here")
	}
	return true
}

// A tree whose process cap is a v1 pids cgroup gets it even while
// another tree ends (whose release removes the v1 container once empty):
// a cheap spare is made as each command starts, beside others ending.
func TestEveryTreeGetsItsV1CapWhileOthersEnd(t *testing.T) {
	if v1Dir() == "" {
		t.Skip("no v1 pids cgroup to use here (it takes root and a v1 pids hierarchy)")
	}
	for i := 0; i < 500; i++ {
		old := newTreeCgroup()
		if old == nil {
			t.Skip("no cgroups here")
		}
		limitProcs(old, nil, 8)
		if old.v1 == "" {
			old.release()
			t.Skip("the process cap is the tree's own pids.max here")
		}
		var fresh *treeCgroup
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); old.release() }()
		go func() { defer wg.Done(); fresh = newTreeCgroup(); limitProcs(fresh, nil, 8) }()
		wg.Wait()
		got := fresh.v1
		fresh.release()
		if got == "" {
			t.Fatalf("round %d: a tree made as another ended has no process cap", i)
		}
	}
}
