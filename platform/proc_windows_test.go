//go:build windows

package platform

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// winWatchdog bounds every wait: reaching it is a failure, not a measure.
const winWatchdog = 60 * time.Second

const helperVar = "TERMHELPER_TEST_HELPER"

// TestHelperProcess is not a test: it is the child program the other
// tests start, acting as helperVar says.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperVar)
	if mode == "" {
		return
	}
	defer os.Exit(0)
	switch mode {
	case "args": // print the arguments after "--", as the program got them
		i := slices.Index(os.Args, "--")
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(os.Args[i+1:])
	case "sleep":
		say("ready")
		time.Sleep(time.Hour)
	case "handles": // the standard output handle, as Windows set it up
		h, _ := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
		say(fmt.Sprintf("stdout handle %d", h))
	case "listen": // a loopback port of the system's choosing, held
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			say("listen: " + err.Error())
			os.Exit(1)
		}
		say(fmt.Sprintf("listening on %d.", l.Addr().(*net.TCPAddr).Port))
		time.Sleep(time.Hour)
	case "spawn": // a grandchild in the same tree
		child := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		child.Env = append(os.Environ(), helperVar+"=sleep")
		if err := child.Start(); err != nil {
			fmt.Println("spawn:", err)
			os.Exit(1)
		}
		say(fmt.Sprintf("child %d", child.Process.Pid))
		time.Sleep(time.Hour)
	case "start": // a helper of its own, whose commands must die with it
		spec := helperSpec("sleep", false)
		p, err := Start(spec)
		if err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
		fmt.Printf("child %d\n", p.Pid)
		time.Sleep(time.Hour)
	}
}

// say prints a line on the child's standard output or, where a pseudo
// console left it none (Wine), on the console itself, so that the tests
// that need a line from a terminal child run there too.
func say(line string) {
	if h, _ := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE); h != 0 && h != windows.InvalidHandle {
		fmt.Println(line)
		return
	}
	if con, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0); err == nil {
		fmt.Fprintln(con, line)
		con.Close()
	}
}

func helperSpec(mode string, pty bool) Spec {
	exe, _ := os.Executable()
	return Spec{Argv: []string{exe, "-test.run=^TestHelperProcess$"},
		Env: append(os.Environ(), helperVar+"="+mode), Dir: os.TempDir(),
		PTY: pty, Cols: 120, Rows: 30, Tag: "test"}
}

func shellSpec(shell, command string, pty bool) Spec {
	return Spec{Argv: WindowsShellArgv(shell, command, exec.LookPath), Env: os.Environ(),
		Dir: os.TempDir(), PTY: pty, Cols: 120, Rows: 30, Tag: "test"}
}

// started is a running command with its output collected in the background.
type started struct {
	p        *Process
	out, err *collector
}

type collector struct {
	mu   sync.Mutex
	text string
	done chan struct{}
}

func collect(r io.Reader) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			c.mu.Lock()
			c.text += string(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text
}

func start(t *testing.T, spec Spec) *started {
	t.Helper()
	p, err := Start(spec)
	if err != nil {
		t.Fatalf("start %q: %v", spec.Argv, err)
	}
	s := &started{p: p, out: collect(p.Output)}
	if p.Stderr != nil {
		s.err = collect(p.Stderr)
	}
	t.Cleanup(func() {
		p.Kill(SIGKILL, 0)
		p.StopReading()
		p.Close()
	})
	return s
}

// wait waits for the command's end and for its output to end.
func (s *started) wait(t *testing.T) Exit {
	t.Helper()
	ch := make(chan Exit, 1)
	go func() {
		e, _ := s.p.Wait()
		ch <- e
	}()
	var e Exit
	select {
	case e = <-ch:
	case <-time.After(winWatchdog):
		t.Fatalf("the command did not end; output so far: %q", s.out)
	}
	for _, c := range []*collector{s.out, s.err} {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
		case <-time.After(winWatchdog):
			t.Fatalf("the output did not end after the command: %q", c)
		}
	}
	return e
}

// waitOutput waits until the output matches re and returns the match.
func (s *started) waitOutput(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(winWatchdog)
	for {
		if m := re.FindStringSubmatch(s.out.String()); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("output never matched %s: %q", re, s.out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(winWatchdog)
	for {
		if _, alive := StartTime(pid); !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConPTYOutput(t *testing.T) {
	skipIf(t, noPowerShell())
	skipIf(t, noConsoleHandles())
	s := start(t, shellSpec("", "Write-Output 'hello from conpty'", true))
	if e := s.wait(t); e.Code != 0 {
		t.Errorf("exit %+v, want 0; output %q", e, s.out)
	}
	if !strings.Contains(s.out.String(), "hello from conpty") {
		t.Errorf("output %q lacks the line", s.out)
	}
}

// TestConPTYNonASCII: text beyond ASCII comes back as it was, from
// PowerShell and from cmd (whose own output follows the console's code
// page), on a terminal and on pipes.
func TestConPTYNonASCII(t *testing.T) {
	const text = "héllo wörld 日本語 ✓"
	for _, shell := range []string{"", "cmd"} {
		command := "echo " + text
		if shell == "" {
			command = "Write-Output '" + text + "'"
		}
		for _, pty := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/pty=%v", shellName(shell), pty), func(t *testing.T) {
				if shell == "" {
					skipIf(t, noPowerShell())
				}
				if pty {
					skipIf(t, noConsoleHandles())
				}
				s := start(t, shellSpec(shell, command, pty))
				s.wait(t)
				if !strings.Contains(s.out.String(), text) {
					t.Errorf("output %q lacks %q", s.out, text)
				}
			})
		}
	}
}

func shellName(shell string) string {
	if shell == "" {
		return "powershell"
	}
	return shell
}

func TestPreambleDecodesNativeOutput(t *testing.T) {
	skipIf(t, noPowerShell())
	const text = "naïve 日本語"
	exe, _ := os.Executable()
	// "--" quoted: Windows PowerShell drops a bare one before a native program.
	command := "& '" + exe + "' '-test.run=^TestHelperProcess$' '--' '" + text + "'"
	spec := shellSpec("", command, false)
	spec.Env = append(spec.Env, helperVar+"=args")
	s := start(t, spec)
	s.wait(t)
	if !strings.Contains(s.out.String(), text) {
		t.Errorf("PowerShell passed on %q, want it to hold %q", s.out, text)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		shell, command string
		want           int
	}{
		{"", "exit 3", 3},
		{"", "cmd /c exit 5", 5},
		{"", "Write-Output ok", 0},
		{"", "Get-Item C:\\does\\not\\exist\\termhelper", 1},
		{"cmd", "exit /b 4", 4},
		{"cmd", "echo ok", 0},
	}
	for _, tt := range tests {
		for _, pty := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/%s/pty=%v", shellName(tt.shell), tt.command, pty), func(t *testing.T) {
				if tt.shell == "" {
					skipIf(t, noPowerShell())
				}
				s := start(t, shellSpec(tt.shell, tt.command, pty))
				if e := s.wait(t); e.Code != tt.want || e.Signal != "" {
					t.Errorf("exit %+v, want %d; output %q", e, tt.want, s.out)
				}
			})
		}
	}
}

func TestCmdQuotingEndToEnd(t *testing.T) {
	exe, _ := os.Executable()
	prefix := `"` + exe + `" "-test.run=^TestHelperProcess$" -- `
	tests := []struct {
		tail string
		want []string
	}{
		{`plain "a b" c`, []string{"plain", "a b", "c"}},
		{`100% done`, []string{"100%", "done"}},
		{`"%TH_TEST_VAR%"`, []string{"expanded value"}},
		{`%TH_TEST_UNDEFINED%`, []string{"%TH_TEST_UNDEFINED%"}},
		{`a^&b "x&y" "p|q"`, []string{"a&b", "x&y", "p|q"}},
		{`"quote\"inside"`, []string{`quote"inside`}},
		{`"trailing\\" next`, []string{`trailing\`, "next"}},
		{`héllo 日本語`, []string{"héllo", "日本語"}},
	}
	for _, tt := range tests {
		spec := shellSpec("cmd", prefix+tt.tail, false)
		spec.Env = append(spec.Env, helperVar+"=args", "TH_TEST_VAR=expanded value")
		s := start(t, spec)
		if e := s.wait(t); e.Code != 0 {
			t.Errorf("%s: exit %+v; output %q", tt.tail, e, s.out)
			continue
		}
		var got []string
		if err := json.Unmarshal([]byte(strings.TrimSpace(s.out.String())), &got); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: the program got %q (%v), want %q", tt.tail, s.out, err, tt.want)
		}
	}
}

func TestCmdMultiLine(t *testing.T) {
	s := start(t, shellSpec("cmd", "echo first\r\necho second", false))
	s.wait(t)
	if out := s.out.String(); !strings.Contains(out, "first") || !strings.Contains(out, "second") {
		t.Errorf("output %q lacks a line", out)
	}
}

func TestSeparateStderr(t *testing.T) {
	skipIf(t, noConsoleHandles())
	spec := shellSpec("cmd", "echo out-line & echo err-line 1>&2", true)
	spec.SeparateStderr = true
	s := start(t, spec)
	s.wait(t)
	if out := s.out.String(); !strings.Contains(out, "out-line") || strings.Contains(out, "err-line") {
		t.Errorf("terminal output %q", out)
	}
	if s.err == nil || !strings.Contains(s.err.String(), "err-line") {
		t.Errorf("stderr %v", s.err)
	}
}

var childLine = regexp.MustCompile(`child (\d+)`)

func TestKillEndsTree(t *testing.T) {
	for _, pty := range []bool{true, false} {
		s := start(t, helperSpec("spawn", pty))
		child, _ := strconv.Atoi(s.waitOutput(t, childLine)[1])
		s.p.Kill(SIGTERM, time.Second)
		if e := s.wait(t); e.Code != 128+int(SIGTERM) || e.Signal != "SIGTERM" {
			t.Errorf("pty=%v: exit %+v, want 143 SIGTERM", pty, e)
		}
		waitDead(t, child)
		if s.p.Alive() {
			t.Errorf("pty=%v: the tree is still alive", pty)
		}
	}
}

func TestInterruptTypesCtrlC(t *testing.T) {
	s := start(t, helperSpec("sleep", true))
	s.waitOutput(t, regexp.MustCompile("ready"))
	s.p.Kill(SIGINT, 10*time.Second)
	e := s.wait(t)
	if e.Code == 0 && wineVersion() != "" {
		t.Skip("Wine " + wineVersion() + " ends a console program on Ctrl-C with exit code 0, not " +
			"STATUS_CONTROL_C_EXIT: the Ctrl-C ended it, but its exit code cannot say so")
	}
	if e.Signal != "SIGINT" {
		t.Errorf("exit %+v, want a Ctrl-C end (SIGINT)", e)
	}
}

func TestHelperDeathEndsItsCommands(t *testing.T) {
	exe, _ := os.Executable()
	helper := exec.Command(exe, "-test.run=^TestHelperProcess$")
	helper.Env = append(os.Environ(), helperVar+"=start")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Wait()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(winWatchdog):
		helper.Process.Kill()
		t.Fatal("the helper never started its command")
	}
	m := childLine.FindStringSubmatch(line)
	if m == nil {
		helper.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	child, _ := strconv.Atoi(m[1])
	helper.Process.Kill() // no cleanup runs: the job's kill-on-close must do it
	waitDead(t, child)
}

func TestResize(t *testing.T) {
	s := start(t, helperSpec("sleep", true))
	if err := s.p.Resize(100, 40); notImplementedOnWine(err) {
		t.Skip("ResizePseudoConsole is not implemented here" + onWine() + ": " + err.Error())
	} else if err != nil {
		t.Errorf("resize: %v", err)
	}
	pipes := start(t, helperSpec("sleep", false))
	if err := pipes.p.Resize(100, 40); err == nil {
		t.Error("resize of a pipes-mode command succeeded")
	}
}

func TestRealPathJunction(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "Root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	junction := filepath.Join(root, "j")
	mk := exec.Command("cmd.exe", "/d", "/c", "mklink", "/J", junction, outside)
	if out, err := mk.CombinedOutput(); err != nil {
		if wineVersion() != "" {
			t.Skip("no junctions here" + onWine() + ": mklink /J: " + strings.TrimSpace(string(out)))
		}
		t.Fatalf("mklink: %v: %s", err, out)
	}
	realRoot, err := RealPath(strings.ToUpper(root))
	if err != nil {
		t.Fatal(err)
	}
	realJ, err := RealPath(junction)
	if err != nil {
		t.Fatal(err)
	}
	realOut, _ := RealPath(outside)
	if !strings.EqualFold(realJ, realOut) {
		t.Errorf("junction resolves to %q, want %q", realJ, realOut)
	}
	if PathWithin(realRoot, realJ) {
		t.Errorf("a junction to %q counts as inside %q", realJ, realRoot)
	}
	if !PathWithin(realRoot, filepath.Join(strings.ToLower(realRoot), "sub")) {
		t.Errorf("case should not matter under %q", realRoot)
	}
}

func TestStartTimeWindows(t *testing.T) {
	if _, ok := StartTime(os.Getpid()); !ok {
		t.Error("no start time for this process")
	}
	s := start(t, shellSpec("cmd", "exit /b 0", false))
	s.wait(t)
	if _, ok := StartTime(s.p.Pid); ok {
		t.Error("an ended process has a start time")
	}
}

func TestWindowsExit(t *testing.T) {
	tests := []struct {
		code     uint32
		killedBy Signal
		want     Exit
	}{
		{0, 0, Exit{Code: 0}},
		{3, 0, Exit{Code: 3}},
		{143, SIGTERM, Exit{Code: 143, Signal: "SIGTERM"}},
		{0, SIGTERM, Exit{Code: 0}}, // ended by itself before the kill
		{statusControlCExit, 0, Exit{Code: 130, Signal: "SIGINT"}},
		{0xFFFFFFFF, 0, Exit{Code: -1}},
		{0xC0000005, 0, Exit{Code: -1073741819}},
	}
	for _, tt := range tests {
		if got := windowsExit(tt.code, tt.killedBy); got != tt.want {
			t.Errorf("windowsExit(%#x, %v) = %+v, want %+v", tt.code, tt.killedBy, got, tt.want)
		}
	}
}

// TestInitialInputWriteIsTheCallers: in pipes mode the initial input is
// written by WriteInitial on the caller's goroutine, and an input the
// command never reads ends with the command, or at the latest with Close,
// its error returned.
func TestInitialInputWriteIsTheCallers(t *testing.T) {
	spec := helperSpec("sleep", false)
	spec.Stdin = make([]byte, 1<<20) // more than a pipe holds
	s := start(t, spec)
	written := make(chan error, 1)
	go func() { written <- s.p.WriteInitial() }()
	s.waitOutput(t, regexp.MustCompile(`ready`))
	s.p.Kill(SIGKILL, 0)
	s.wait(t)
	s.p.StopReading()
	s.p.Close()
	select {
	case err := <-written:
		if err == nil {
			t.Fatal("WriteInitial returned nil: the input was not its to write, or a command that never read took 1 MiB")
		}
	case <-time.After(winWatchdog):
		t.Fatal("WriteInitial still blocked after Close")
	}
}
