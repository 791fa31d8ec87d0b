//go:build linux

package e2e

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerExec carries termhelper over `docker exec -i`, as a host
// reaches a project in a container, against a real Docker engine (skipped
// with the reason where none is reachable). With --persist, a background
// counter survives a SIGKILL of the docker exec client, and the next
// docker exec attaches to it and reads on; without, nothing is left in the
// container after the drop.
func TestDockerExec(t *testing.T) {
	ctr := dockerContainer(t)
	t.Run("persist", func(t *testing.T) {
		m := marker()
		c1 := dockerExec(t, ctr, "--persist", "10s")
		r := c1.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 500})
		seen := numbers(r.Output)
		if r.State != "background" || len(seen) == 0 {
			t.Fatalf("not a running counter: %s", describe(r))
		}
		kill9(t, c1)
		c2 := dockerExec(t, ctr, "--persist", "10s")
		if raw, rerr := c2.call("session/list", map[string]any{}); rerr != nil || !strings.Contains(string(raw), `"sessionId":"`+r.SessionID+`"`) {
			t.Fatalf("the session is not listed after the drop: %s %v", raw, rerr)
		}
		readOn(t, c2, r, seen)
		c2.run("session/kill", map[string]any{"sessionId": r.SessionID})
		c2.stop()
		noneInContainer(t, ctr, m)
		noneInContainer(t, ctr, "termhelper") // the background helper, after its grace
	})
	t.Run("without persist", func(t *testing.T) {
		m := marker()
		c := dockerExec(t, ctr)
		c.exec(map[string]any{"command": counter(m), "background": true, "yieldMs": 0})
		kill9(t, c)
		noneInContainer(t, ctr, m)
		noneInContainer(t, ctr, "termhelper")
	})
}

// dockerExec spawns termhelper in the container over docker exec -i.
func dockerExec(t *testing.T, ctr string, args ...string) *client {
	cmd := exec.Command("docker", append([]string{"exec", "-i", ctr, "termhelper", "--root", "/work"}, args...)...)
	c := startCmd(t, "ndjson", cmd)
	c.run("initialize", map[string]any{})
	return c
}

// noneInContainer waits until no process in the container has s in its
// command line.
func noneInContainer(t *testing.T, ctr, s string) {
	t.Helper()
	waitFor(t, "no "+s+" in the container", func() bool {
		out, err := exec.Command("docker", "exec", ctr, "ps", "-o", "args").CombinedOutput()
		must(t, err)
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, s) && !strings.HasPrefix(line, "ps ") {
				return false
			}
		}
		return true
	})
}

// dockerContainer starts a container of an image built here from a
// static termhelper and a static busybox, FROM scratch: no registry is
// needed. It skips the test with the reason when it cannot.
func dockerContainer(t *testing.T) string {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI on PATH (Debian: apt-get install docker.io)")
	}
	if out, err := exec.Command("docker", "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		t.Skipf("no docker engine reachable (%v): %s", err, strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	if err := staticBusybox(filepath.Join(dir, "busybox")); err != nil {
		t.Skip(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "termhelper"), "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building a static termhelper: %v\n%s", err, out)
	}
	must(t, os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o600))
	image := fmt.Sprintf("termhelper-e2e:%d", os.Getpid())
	docker(t, "build", "--network", "none", "-q", "-t", image, dir)
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", image).Run() })
	// --init: an init that reaps, for the background helper once its relay
	// (its parent) is gone.
	ctr := docker(t, "run", "-d", "--rm", "--init", "--network", "none", image, "sleep", "3600")
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", ctr).Run() })
	return ctr
}

const dockerfile = `FROM scratch
COPY busybox /bin/busybox
RUN ["/bin/busybox", "--install", "-s", "/bin"]
RUN mkdir -p /tmp /root /work && chmod 1777 /tmp
COPY termhelper /bin/termhelper
ENV HOME=/root PATH=/bin
WORKDIR /work
`

// docker runs a docker command and returns its output's last line.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0") // the classic builder: no buildx needed
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// staticBusybox copies the machine's busybox to dst if it is static (an
// image FROM scratch has no loader).
func staticBusybox(dst string) error {
	const src = "/bin/busybox"
	f, err := elf.Open(src)
	if err != nil {
		return fmt.Errorf("no busybox at %s (Debian: apt-get install busybox-static): %v", src, err)
	}
	interp := f.Section(".interp")
	f.Close()
	if interp != nil {
		return fmt.Errorf("%s is not static (Debian: apt-get install busybox-static)", src)
	}
	return exec.Command("cp", src, dst).Run()
}
