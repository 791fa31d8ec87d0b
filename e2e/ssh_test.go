//go:build linux

package e2e

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshServer is an sshd of the test's own on a loopback port, with a
// generated host key and a generated user key, so that termhelper can be
// reached the way a host reaches a remote machine: ssh -T host termhelper.
type sshServer struct {
	dir  string
	port int
}

// findSSHD locates sshd and ssh, or skips: .ci/run installs openssh-server.
func findSSHD(t *testing.T) (string, string) {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if p, err := exec.LookPath("sshd"); err == nil {
		sshd = p
	}
	ssh, err := exec.LookPath("ssh")
	if _, serr := os.Stat(sshd); serr != nil || err != nil {
		t.Skip("no sshd or ssh here: install openssh-server (.ci/run does)")
	}
	return sshd, ssh
}

func startSSHD(t *testing.T) *sshServer {
	t.Helper()
	sshd, _ := findSSHD(t)
	s := &sshServer{dir: t.TempDir()}
	for _, key := range []string{"host", "user"} {
		gen := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(s.dir, key))
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(s.dir, "user.pub"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(s.dir, "authorized_keys"), pub, 0o600))
	if os.Geteuid() == 0 {
		// sshd's privilege separation wants this folder; a container that
		// never started the ssh service lacks it.
		must(t, os.MkdirAll("/run/sshd", 0o755))
	}
	for attempt := 0; attempt < 5; attempt++ {
		if s.run(t, sshd) {
			return s
		}
	}
	t.Fatal("sshd did not start on a free port in 5 attempts")
	return nil
}

// run starts sshd on a port that was free a moment ago; false if sshd
// ended before it listened (the port was taken in between).
func (s *sshServer) run(t *testing.T, sshd string) bool {
	s.port = freePort(t)
	conf := filepath.Join(s.dir, "sshd_config")
	must(t, os.WriteFile(conf, []byte(strings.Join([]string{
		"Port " + strconv.Itoa(s.port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(s.dir, "host"),
		"AuthorizedKeysFile " + filepath.Join(s.dir, "authorized_keys"),
		"StrictModes no", // the temp folder's modes are not sshd's business here
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"PermitRootLogin prohibit-password",
		"PidFile none",
	}, "\n")+"\n"), 0o600))
	var log strings.Builder
	out := &lockedWriter{w: &log}
	cmd := exec.Command(sshd, "-D", "-e", "-f", conf)
	cmd.Stdout, cmd.Stderr = out, out
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(watchdog)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Logf("sshd ended before listening: %s", out.String())
			return false
		default:
		}
		if conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port)); err == nil {
			conn.Close()
			t.Cleanup(func() { cmd.Process.Kill(); <-done })
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-done
	t.Fatalf("sshd did not listen within %s: %s", watchdog, out.String())
	return false
}

// sshArgs is the client's command line up to the remote command.
func (s *sshServer) sshArgs() []string {
	return []string{"ssh", "-T", "-F", "/dev/null", "-i", filepath.Join(s.dir, "user"),
		"-p", strconv.Itoa(s.port), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
		"-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1"}
}

// viaSSH turns start's command into ssh -T host termhelper ...: the helper
// runs on the far side of the connection, its stdio carried by ssh. The
// environment start sets for the helper is set on the remote side. With a
// status file, the remote shell writes the helper's exit status there.
func viaSSH(t *testing.T, s *sshServer, status string) opt {
	_, ssh := findSSHD(t)
	return func(c *exec.Cmd) {
		remote := []string{"env", "SHELL="}
		for _, kv := range c.Env {
			if strings.HasPrefix(kv, "TERMHELPER_") {
				remote = append(remote, kv)
			}
		}
		remote = append(remote, c.Args...)
		quoted := make([]string, len(remote))
		for i, a := range remote {
			quoted[i] = shellQuote(a)
		}
		line := strings.Join(quoted, " ")
		if status != "" {
			line += "; echo $? > " + shellQuote(status)
		}
		c.Path = ssh
		c.Args = append(s.sshArgs(), line)
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func TestSSHRoundTrip(t *testing.T) {
	s := startSSHD(t)
	for _, framing := range framings {
		t.Run(framing, func(t *testing.T) {
			root := t.TempDir()
			c := start(t, framing, root, nil, viaSSH(t, s, ""))
			c.call("initialize", map[string]any{"capabilities": map[string]any{}})
			// SSH_CONNECTION is set by sshd: the command ran on the far side.
			r := c.exec(map[string]any{"command": "echo remote-ok; printenv SSH_CONNECTION; pwd"})
			if r.ExitCode == nil || *r.ExitCode != 0 || !strings.Contains(r.Output, "remote-ok") ||
				!strings.Contains(r.Output, "127.0.0.1") || !strings.Contains(r.Output, root) {
				t.Fatalf("remote run: %+v", r)
			}
			command, open := gated(t, "exit 6")
			bg := c.exec(map[string]any{"command": command, "background": true, "yieldMs": 50})
			if bg.SessionID == "" {
				t.Fatalf("background answered finished: %+v", bg)
			}
			open()
			for {
				m := c.note("session/exited")
				if strings.Contains(string(m.Params), `"sessionId":"`+bg.SessionID+`"`) {
					if !strings.Contains(string(m.Params), `"exitCode":6`) {
						t.Fatalf("exited: %s", m.Params)
					}
					break
				}
			}
		})
	}
}

// TestSSHDroppedConnectionEndsEveryTree kills the host's side (the ssh
// client) outright: the connection drops, and the remote helper must end
// every process tree it started, and then itself with status 0: a helper
// killed by SIGPIPE while it cleans up (its stdout is gone) can leave a
// tree behind, so the status is checked, not only the process table.
func TestSSHDroppedConnectionEndsEveryTree(t *testing.T) {
	s := startSSHD(t)
	root := t.TempDir()
	status := filepath.Join(t.TempDir(), "status")
	c := start(t, "ndjson", root, nil, viaSSH(t, s, status))
	c.call("initialize", map[string]any{"capabilities": map[string]any{}})
	mark := marker()
	// Trees that ignore SIGHUP: only the helper's own kill ends them.
	bg := c.exec(map[string]any{"command": "trap '' HUP; sleep " + mark + " & sleep 1" + mark + "; wait",
		"background": true, "yieldMs": 100})
	fg := c.exec(map[string]any{"command": "trap '' HUP; sleep 2" + mark + " & printf 'Name? '; read n",
		"yieldMs": 30000})
	if bg.SessionID == "" || fg.SessionID == "" {
		t.Fatalf("want two live sessions, got %+v and %+v", bg, fg)
	}
	waitFor(t, "the three sleeps", func() bool { return countSleeps(mark) == 3 })
	must(t, c.cmd.Process.Signal(syscall.SIGKILL))
	dropped := time.Now()
	noneLeft(t, mark)
	noneLeft(t, root) // the helper itself: its command line names the root
	t.Logf("every tree ended %s after the connection dropped", time.Since(dropped).Round(time.Millisecond))
	waitFor(t, "the helper's exit status", func() bool { _, err := os.Stat(status); return err == nil })
	waitFor(t, "the status written", func() bool { b, _ := os.ReadFile(status); return strings.HasSuffix(string(b), "\n") })
	if b, _ := os.ReadFile(status); strings.TrimSpace(string(b)) != "0" {
		t.Errorf("the remote helper ended with status %s (141 is death by SIGPIPE), want 0", strings.TrimSpace(string(b)))
	}
}

// countSleeps counts the sleep processes whose argument holds mark.
func countSleeps(mark string) int {
	n := 0
	for _, pid := range pidsWith(mark) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.HasPrefix(string(b), "sleep\x00") {
			n++
		}
	}
	return n
}
