//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// burstSize is how many commands a burst sends back to back.
const burstSize = 200

// burstCommand is the i-th command of a burst. Its output proves it ran
// (its number first and last, and i%5*20 numbered lines between), that it
// ran confined (the key in ~/.ssh reads as nothing, a write to outside
// fails) and what TMPDIR it saw; it writes out-i in the root, and every
// 7th exits 3. m in its command line finds what it left behind.
func burstCommand(i int, m, outside string) string {
	return fmt.Sprintf(`: %s; echo burst-%d; seq -f 'line-%d-%%g' %d; `+
		`(read -r k < ~/.ssh/id_rsa && echo "key $k") 2>/dev/null || echo hidden; `+
		`(echo x > %s/escaped-%d) 2>/dev/null && echo escaped; `+
		`echo "tmp=$TMPDIR"; echo %d > out-%d; echo end-%d; exit %d`,
		m, i, i, i%5*20, outside, i, i, i, i, burstExit(i))
}

func burstExit(i int) int {
	if i%7 == 0 {
		return 3
	}
	return 0
}

// burstOutput is the whole output the i-th command must answer, in a
// command whose TMPDIR is tmp.
func burstOutput(i int, tmp string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "burst-%d\n", i)
	for n := 1; n <= i%5*20; n++ {
		fmt.Fprintf(&b, "line-%d-%d\n", i, n)
	}
	fmt.Fprintf(&b, "hidden\ntmp=%s\nend-%d\n", tmp, i)
	return b.String()
}

// burstTmp is the TMPDIR a command reported, which must be the helper's
// own folder.
func burstTmp(t *testing.T, output string) string {
	t.Helper()
	for _, line := range strings.Split(output, "\n") {
		if tmp, ok := strings.CutPrefix(line, "tmp="); ok && strings.Contains(tmp, "termhelper-") {
			return tmp
		}
	}
	t.Fatalf("no TMPDIR of the helper's own in %q", output)
	return ""
}

// checkBurst fails when the i-th command's answer is not its whole output
// exactly once, nothing else, with its exit code; the rest of the answer
// is in the failure's message.
func checkBurst(t *testing.T, i int, output string, exitCode *int, tmp, rest string) {
	t.Helper()
	if want := burstOutput(i, tmp); output != want {
		t.Errorf("command %d answered %q, want %q; the answer: %s", i, output, want, rest)
	}
	if exitCode == nil || *exitCode != burstExit(i) {
		t.Errorf("command %d: exit code %v, want %d; the answer: %s", i, deref(intString(exitCode)), burstExit(i), rest)
	}
}

// answeredAfter is an answer for a failure's message, with how long the
// call took: a call that waited for the terminal to drain takes longer.
func answeredAfter(r result, began time.Time) string {
	return fmt.Sprintf("%s, after %v", describe(r), time.Since(began).Round(time.Millisecond))
}

func intString(n *int) *string {
	if n == nil {
		return nil
	}
	s := strconv.Itoa(*n)
	return &s
}

// burstKey puts a key in home's ~/.ssh, a secret place the sandbox hides.
func burstKey(t *testing.T, home string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-"+"b0057\n"), 0o600))
}

// checkBurstFiles fails unless the root holds out-i for each of the first
// n commands, with its number, and nothing was written outside.
func checkBurstFiles(t *testing.T, root, outside string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if b, err := os.ReadFile(filepath.Join(root, "out-"+strconv.Itoa(i))); err != nil || string(b) != strconv.Itoa(i)+"\n" {
			t.Errorf("out-%d: %q %v", i, b, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("confined commands wrote outside the root: %v", entries)
	}
}

// TestSandboxBurst: 200 confined commands sent back to back, each as soon
// as the one before has answered, every 20th beside a second one still
// in flight that is then cancelled: each answers its whole output once,
// with its exit code, and ran confined; then no process carries the
// helper's tag, it holds no more open files than before, and once it has
// exited nothing of its tree is left.
func TestSandboxBurst(t *testing.T) {
	// The debug log says how each command's output ended: a failure
	// shows it.
	s := startConfined(t, "ndjson", withArgs("--log-level", "debug"))
	burstKey(t, s.home)
	m, held := marker(), marker()
	first := s.c.exec(map[string]any{"command": burstCommand(1, m, s.outside)})
	tmp := burstTmp(t, first.Output)
	checkBurst(t, 1, first.Output, first.ExitCode, tmp, describe(first))
	settled(t, s)
	fds := countFds(s.c.cmd.Process.Pid)
	t.Logf("the helper's files before the burst: %v", fdTargets(s.c.cmd.Process.Pid))
	for i := 2; i <= burstSize; i++ {
		if i%20 == 0 {
			burstBeside(t, s, i, m, held, tmp)
			continue
		}
		began := time.Now()
		r := s.c.exec(map[string]any{"command": burstCommand(i, m, s.outside)})
		checkBurst(t, i, r.Output, r.ExitCode, tmp, answeredAfter(r, began))
		if r.Output != burstOutput(i, tmp) {
			t.Logf("the helper's log of command %d:\n%s", i, s.c.logOf(fmt.Sprintf("echo burst-%d;", i)))
		}
	}
	checkBurstFiles(t, s.root, s.outside, burstSize)
	noneLeft(t, m)
	noneLeft(t, held)
	noneLeftBy(t, "processes with the helper's tag", func() []int { return taggedBy(s.c.cmd.Process.Pid) })
	settled(t, s)
	if !eventually(func() bool { return countFds(s.c.cmd.Process.Pid) <= fds }) {
		t.Errorf("the helper's files: %d before the burst, now %d: %v", fds, countFds(s.c.cmd.Process.Pid), fdTargets(s.c.cmd.Process.Pid))
	}
	checkTreeEnds(t, s.c.cmd.Process.Pid, s.root, stopClean(s.c))
}

// TestMCPSandboxBurst: 50 confined commands through the terminal tool,
// back to back: each answers its whole output once, with its exit code,
// and ran confined; then no process carries the helper's tag, and once
// the client has closed, nothing of the helper's tree is left.
func TestMCPSandboxBurst(t *testing.T) {
	s := startConfined(t, "ndjson") // skips where there is no sandbox
	s.c.stop()
	burstKey(t, s.home)
	h := startMCP(t, mcpOpts{root: s.root, env: []string{"HOME=" + s.home}})
	m := marker()
	var tmp string
	for i := 1; i <= 50; i++ {
		res := h.call(map[string]any{"command": burstCommand(i, m, s.outside)})
		r := structured(t, res)
		if i == 1 {
			tmp = burstTmp(t, r.Output)
		}
		checkBurst(t, i, r.Output, r.ExitCode, tmp, fmt.Sprintf("%q", text(res)))
	}
	checkBurstFiles(t, s.root, s.outside, 50)
	noneLeft(t, m)
	pid := h.cmd.Process.Pid
	noneLeftBy(t, "processes with the helper's tag", func() []int { return taggedBy(pid) })
	checkTreeEnds(t, pid, s.root, h.cs.Close)
}

// burstBeside runs the i-th command while a second one (a sleep of held)
// is in flight, then cancels that one once it runs, with its tag.
func burstBeside(t *testing.T, s confined, i int, m, held, tmp string) {
	t.Helper()
	ch := s.c.callAsync("exec/run", map[string]any{"command": fmt.Sprintf(": %s; echo held-%d; exec sleep %s", held, i, held), "timeoutMs": 600000})
	s.c.mu.Lock()
	id := s.c.next
	s.c.mu.Unlock()
	began := time.Now()
	r := s.c.exec(map[string]any{"command": burstCommand(i, m, s.outside)})
	checkBurst(t, i, r.Output, r.ExitCode, tmp, answeredAfter(r, began))
	sleep := "sleep\x00" + held
	waitFor(t, fmt.Sprintf("the command in flight beside %d", i), func() bool { return len(pidsWith(sleep)) > 0 })
	tagged := taggedBy(s.c.cmd.Process.Pid)
	for _, p := range pidsWith(sleep) {
		if !slices.Contains(tagged, p) {
			t.Errorf("the command in flight beside %d, pid %d, is not among those tagged: %v", i, p, tagged)
		}
	}
	s.c.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": id}})
	if _, rerr := s.c.await(ch, "the cancelled command in flight"); rerr == nil || rerr.Code != -32800 {
		t.Errorf("the command in flight beside %d, cancelled, answered %+v, want error -32800", i, rerr)
	}
}

// checkTreeEnds ends the helper pid with stop, which must end it
// cleanly; before, the helper may run its spare alone (or one being
// made), and after, nothing
// of its tree is left: no process it had started, none with its tag, no
// trampoline or spare made for root.
func checkTreeEnds(t *testing.T, pid int, root string, stop func() error) {
	t.Helper()
	tree := descendants(pid)
	self, _ := cmdline(strconv.Itoa(pid))
	for p := range tree {
		// A child with the helper's own command line is one being
		// started (a spare, a holder) that has not executed yet.
		if b, _ := cmdline(strconv.Itoa(p)); !isSpare(string(b)) && string(b) != string(self) {
			t.Errorf("the helper still runs %d, which is no spare: %q", p, b)
		}
	}
	if err := stop(); err != nil {
		t.Errorf("the helper's end: %v", err)
	}
	noneLeftBy(t, "processes of the helper's tree", func() []int { return stillAlive(tree) })
	noneLeftBy(t, "processes with the helper's tag", func() []int { return taggedBy(pid) })
	noneLeft(t, `"Root":"`+root+`"`)
}

// stopClean stops c's helper and returns how it exited, or its log when
// the race detector found something there.
func stopClean(c *client) func() error {
	return func() error {
		c.stop()
		if strings.Contains(c.stderr.String(), "DATA RACE") {
			return fmt.Errorf("a data race in the helper:\n%s", c.stderr)
		}
		return c.waitErr
	}
}

// taggedBy lists the processes whose environment carries the tag of a
// command of the helper helperPid (TERMHELPER_SESSION=PID-START-ID).
func taggedBy(helperPid int) []int {
	want := "TERMHELPER_SESSION=" + strconv.Itoa(helperPid) + "-"
	var out []int
	for _, pid := range procs() {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if strings.HasPrefix(string(env), want) || strings.Contains(string(env), "\x00"+want) {
			out = append(out, pid)
		}
	}
	return out
}

// procStat is a live process's parent and start time (in clock ticks
// after boot, which tells it from a later one given the same pid).
func procStat(pid int) (ppid int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := strings.LastIndexByte(string(b), ')')
	if err != nil || i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return ppid, start, true
}

// descendants maps each live process under pid (its children, theirs,
// and so on) to its start time.
func descendants(pid int) map[int]uint64 {
	children := map[int][]int{}
	starts := map[int]uint64{}
	for _, p := range procs() {
		if ppid, start, ok := procStat(p); ok {
			children[ppid] = append(children[ppid], p)
			starts[p] = start
		}
	}
	tree := map[int]uint64{}
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		tree[queue[0]] = starts[queue[0]]
		queue = append(queue, children[queue[0]]...)
	}
	return tree
}

// stillAlive lists the processes of tree still running, the same ones.
func stillAlive(tree map[int]uint64) []int {
	var out []int
	for pid, start := range tree {
		if _, now, ok := procStat(pid); ok && now == start {
			out = append(out, pid)
		}
	}
	return out
}

// isSpare tells what the helper makes ahead by its command line: a
// spare, a trampoline's (--spare) or the exec stub's waiting for its
// command (its last step w), or a holder making namespaces (--holder).
func isSpare(cmdline string) bool {
	if strings.HasPrefix(cmdline, "termhelper-exec\x00") {
		words := strings.Split(strings.TrimSuffix(cmdline, "\x00"), "\x00")
		return len(words) > 2 && words[len(words)-2] == "w"
	}
	return strings.HasSuffix(cmdline, "\x00--spare\x00") || strings.HasSuffix(cmdline, "\x00--holder\x00")
}

// fdTargets is what pid's descriptors name.
func fdTargets(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		l, _ := os.Readlink(dir + e.Name())
		out = append(out, e.Name()+"="+l)
	}
	return out
}

// settled waits until the helper is at rest between commands: its spare
// made, confined and waiting for a command (in recvmsg), and the spare's
// network listener taken by the helper; where the spare is the exec stub,
// its own namespaces too, all unchanged for settleTime. Its descriptors
// are then the same after any number of commands.
func settled(t *testing.T, s confined) {
	t.Helper()
	helper := s.c.cmd.Process.Pid
	var last string
	var since time.Time
	waitFor(t, "a spare waiting for the next command, the helper's files unchanged", func() bool {
		now := spareAtRest(helper)
		if now != last || now == "" {
			last, since = now, time.Now()
			return false
		}
		return time.Since(since) >= settleTime
	})
}

// settleTime is how long the helper's files and its spare stay as they
// are before they count as settled: a spare being replaced still waits
// for its command a moment after the helper let go of it.
const settleTime = 200 * time.Millisecond

// spareAtRest is the pid of a spare of helper's waiting for its command
// and the helper's files, once the helper holds the spare's seccomp
// listener (and a stub's own namespaces); "" while there is none.
func spareAtRest(helper int) string {
	for p := range descendants(helper) {
		b, _ := cmdline(strconv.Itoa(p))
		sc, _ := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", p))
		if isSpare(string(b)) && strings.HasPrefix(string(sc), strconv.Itoa(syscall.SYS_RECVMSG)+" ") {
			targets := strings.Join(fdTargets(helper), " ")
			stub := strings.HasPrefix(string(b), "termhelper-exec\x00")
			if strings.Contains(targets, "seccomp notify") && (!stub || strings.Contains(targets, "ipc:[")) {
				return strconv.Itoa(p) + " " + targets
			}
		}
	}
	return ""
}
