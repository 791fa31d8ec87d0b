package policy

import (
	"os"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestDisksAndPowerFiles: a write to a disk is denied by what the path is
// (a repository's link to one included), and writes that stop the machine
// are denied like shutdown. Nothing here is run.
func TestDisksAndPowerFiles(t *testing.T) {
	needUnix(t)
	p := testPolicy(t, config.Default())
	for _, line := range []string{"echo x > /dev/block/8:0", "cat img > /dev/root", "echo b > /proc/sysrq-trigger",
		"echo mem > /sys/power/state", "loginctl poweroff", "loginctl reboot", "loginctl terminate-user u",
		"kexec -e", "systemctl suspend"} {
		if v := p.Check(line, true); v.Decision != Deny {
			t.Errorf("%q: %+v, want deny", line, v)
		}
	}
	for _, line := range []string{"loginctl list-sessions", "kexec -l vmlinuz", "echo x > /dev/null"} {
		if v := p.Check(line, true); v.Decision == Deny {
			t.Errorf("%q: %+v", line, v)
		}
	}
	disk := blockDeviceHere()
	if disk == "" {
		t.Skip("no block device in /dev here to link to")
	}
	root := scratchRoot(t)
	if err := os.Symlink(disk, root+"/disk"); err != nil {
		t.Fatal(err)
	}
	p = New(config.Default(), root, nil)
	if v := p.Check("echo x > disk", true); v.Decision != Deny || !containsReason(v, "block device") {
		t.Errorf("a link to %s: %+v", disk, v)
	}
}

// blockDeviceHere names a block device in /dev, or "".
func blockDeviceHere() string {
	entries, _ := os.ReadDir("/dev")
	for _, e := range entries {
		if e.Type()&os.ModeDevice != 0 && e.Type()&os.ModeCharDevice == 0 {
			return "/dev/" + e.Name()
		}
	}
	return ""
}
