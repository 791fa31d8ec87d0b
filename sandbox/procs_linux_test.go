package sandbox

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// testAction tries one act, named "verb:arg", and prints "allowed" or
// "denied: why"; it is what a confined command does in these tests.
func testAction(act string) int {
	verb, arg, _ := strings.Cut(act, ":")
	pid, _ := strconv.Atoi(arg)
	var err error
	switch verb {
	case "environ":
		_, err = os.ReadFile("/proc/" + arg + "/environ")
	case "ptrace":
		err = unix.PtraceAttach(pid)
	case "signal":
		err = unix.Kill(pid, syscall.SIGTERM)
	case "mount":
		err = unix.Mount("tmpfs", arg, "tmpfs", 0, "")
	case "umount":
		err = unix.Unmount(arg, unix.MNT_DETACH)
	case "mknod-char":
		err = unix.Mknod(arg, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
	case "mknod-block":
		err = unix.Mknod(arg, unix.S_IFBLK|0o666, int(unix.Mkdev(7, 0)))
	case "trampoline":
		// Stand in for the helper: run the trampoline as if this
		// namespace were the helper's, so it must refuse to mount here.
		var w wire
		json.Unmarshal([]byte(arg), &w)
		w.HelperNS = mountNamespace()
		plan, _ := json.Marshal(w)
		self, _ := os.Executable()
		err = unix.Exec(self, []string{self, Command, string(plan), "--", "/bin/sh", "-c", `touch "$OUT/ran"`}, os.Environ())
	case "probe-without-setpcap":
		// Root in a container that took CAP_SETPCAP and left the rest.
		// Capabilities are per thread: Probe runs on this one.
		runtime.LockOSThread()
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		unix.Capget(&hdr, &data[0])
		data[0].Effective &^= 1 << unix.CAP_SETPCAP
		data[0].Permitted &^= 1 << unix.CAP_SETPCAP
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			fmt.Println("capset:", err)
			return 2
		}
		fmt.Printf("%+v\n", Probe(WorkspaceWrite, NetworkOpen))
		return 0
	case "connect", "tcp":
		var c net.Conn
		if c, err = net.Dial(map[string]string{"connect": "unix", "tcp": "tcp"}[verb], arg); err == nil {
			c.Close()
		}
	case "shm":
		// Write into another process's SysV shared memory, by its id.
		var mem []byte
		if mem, err = unix.SysvShmAttach(pid, 0, 0); err == nil {
			copy(mem, "tampered")
			unix.SysvShmDetach(mem)
		}
	case "add-key":
		_, err = unix.AddKey("user", arg, []byte("SECRET"), unix.KEY_SPEC_USER_KEYRING)
	case "find-key":
		_, err = unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", arg, 0)
	case "chroot":
		// chroot takes CAP_SYS_CHROOT; into / it changes nothing.
		err = unix.Chroot("/")
	case "nice":
		// So does a negative nice value (CAP_SYS_NICE).
		err = unix.Setpriority(unix.PRIO_PROCESS, 0, -5)
	default:
		fmt.Println("unknown action", act)
		return 2
	}
	if err != nil {
		fmt.Println("denied:", err)
	} else {
		fmt.Println("allowed")
	}
	return 0
}

// act runs the test binary confined as p says, trying act.
func act(t *testing.T, w world, p Plan, act string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(runArgv(t, p, w.env(actionVar+"="+act), self).out)
}

// outsider is a process outside the sandbox holding a secret in its
// environment, ended with the test.
func outsider(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "1000")
	cmd.Env = []string{"API_TOKEN=SECRET-TOKEN"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func TestOtherProcessesAreOutOfReach(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		pid := strconv.Itoa(outsider(t))
		for _, a := range []string{"environ:" + pid, "ptrace:" + pid} {
			if got := act(t, w, p, a); !strings.HasPrefix(got, "denied") {
				t.Errorf("%s: %s", a, got)
			}
		}
		if measured().abi >= 6 {
			if got := act(t, w, p, "signal:"+pid); !strings.HasPrefix(got, "denied") {
				t.Errorf("a signal left the sandbox: %s", got)
			}
		}
		unconfined := Plan{Mode: Off, Network: NetworkOpen, Root: w.root}
		if got := act(t, w, unconfined, "environ:"+pid); got != "allowed" {
			t.Fatalf("unconfined, the environment should read: %s", got)
		}
	})
}

// TestKeyringsAreOutOfReach: a confined command finds no kernel keyring,
// whatever its network: it could read the keys of the user's other
// processes in the keyrings it reaches (the session keyring it inherits,
// root's user keyring), and pass a key to another session through them.
func TestKeyringsAreOutOfReach(t *testing.T) {
	name := "termhelper-test-" + strconv.Itoa(os.Getpid())
	id, err := unix.AddKey("user", name, []byte("SECRET"), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("no keyring for the test itself: %v", err)
	}
	t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0) })
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		for _, network := range []Network{NetworkOpen, NetworkProxy} {
			p := w.plan(WorkspaceWrite)
			p.Network = network
			if network != NetworkOpen && !measured().netOK {
				continue
			}
			for _, a := range []string{"find-key:" + name, "add-key:" + name + "-" + v.name} {
				if got := act(t, w, p, a); !strings.HasPrefix(got, "denied") {
					t.Errorf("network %s, %s: %s", network, a, got)
				}
			}
		}
		unconfined := Plan{Mode: Off, Network: NetworkOpen, Root: w.root}
		if got := act(t, w, unconfined, "find-key:"+name); got != "allowed" {
			t.Fatalf("unconfined, the user's key should be found: %s", got)
		}
	})
}

func TestNothingCanBeMountedOrMadeADevice(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		p := w.plan(WorkspaceWrite)
		for _, a := range []string{
			"mount:" + w.root, "umount:" + filepath.Join(w.home, ".ssh"),
			"mknod-char:" + filepath.Join(w.root, "null"), "mknod-block:" + filepath.Join(w.root, "loop"),
		} {
			if got := act(t, w, p, a); !strings.HasPrefix(got, "denied") {
				t.Errorf("%s: %s", a, got)
			}
		}
		if os.Geteuid() == 0 {
			unconfined := Plan{Mode: Off, Network: NetworkOpen, Root: w.root}
			if got := act(t, w, unconfined, "mknod-char:"+filepath.Join(w.root, "null")); got != "allowed" {
				t.Fatalf("unconfined root should make a device: %s", got)
			}
		}
	})
}

func TestCapabilitiesAreGone(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		w := newWorld(t)
		for _, a := range []string{"chroot", "nice"} {
			if got := act(t, w, w.plan(WorkspaceWrite), a); !strings.HasPrefix(got, "denied") {
				t.Errorf("%s: %s", a, got)
			}
			if os.Geteuid() == 0 {
				if got := act(t, w, Plan{Mode: Off, Network: NetworkOpen, Root: w.root}, a); got != "allowed" {
					t.Fatalf("unconfined root should be allowed to %s: %s", a, got)
				}
			}
		}
	})
}

func TestASecretSocketCannotBeReached(t *testing.T) {
	eachVariant(t, func(t *testing.T, v variant) {
		if v.force == "none" && measured().abi < 9 {
			t.Skip("Landlock before ABI 9 cannot close a socket; Probe says so")
		}
		w := newWorld(t)
		agent := filepath.Join(w.home, "agent.sock")
		l, err := net.Listen("unix", agent)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for c, err := l.Accept(); err == nil; c, err = l.Accept() {
				c.Close()
			}
		}()
		p := w.plan(WorkspaceWrite)
		p.Hide = append(p.Hide, SecretPlaces(w.home, func(k string) string {
			if k == "SSH_AUTH_SOCK" {
				return agent
			}
			return ""
		})...)
		if got := act(t, w, p, "connect:"+agent); !strings.HasPrefix(got, "denied") {
			t.Errorf("the agent's socket was reached: %s", got)
		}
		if got := act(t, w, Plan{Mode: Off, Network: NetworkOpen, Root: w.root}, "connect:"+agent); got != "allowed" {
			t.Fatalf("unconfined, the socket should answer: %s", got)
		}
	})
}

func TestRootThatCannotDropItsCapabilitiesHasNoSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root holds capabilities to drop")
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), actionVar+"=probe-without-setpcap")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Mode:off") || !strings.Contains(string(out), "CAP_SETPCAP") {
		t.Fatalf("%v: %s", err, out)
	}
}
