package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// TestPruneTempDirs: the folder of a helper that is gone is removed; one
// whose helper runs, and one without an owner file, stay.
func TestPruneTempDirs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("not pruned on Windows")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "termhelper-elsewhere") // a pid of another namespace: not known here
	os.Mkdir(other, 0o700)
	os.WriteFile(filepath.Join(other, ownerFile), []byte(strconv.Itoa(gone.Process.Pid)+" pid:[1]"), 0o600)
	for name, pid := range map[string]int{"termhelper-gone": gone.Process.Pid, "termhelper-live": os.Getppid(), "termhelper-none": 0} {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "work"), []byte("x"), 0o600)
		if pid > 0 {
			os.WriteFile(filepath.Join(d, ownerFile), []byte(owner(pid)), 0o600)
		}
	}
	if n := PruneTempDirs(); n != 1 {
		t.Errorf("pruned %d, want 1", n)
	}
	for name, want := range map[string]bool{"termhelper-gone": false, "termhelper-live": true, "termhelper-none": true,
		"termhelper-elsewhere": true} {
		if _, err := os.Stat(filepath.Join(tmp, name)); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", name, err == nil, want)
		}
	}
}
