package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/termhelper/termhelper/config"
)

// Decision is the outcome of a check.
type Decision string

// The three decisions of PROTOCOL.md section 7.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Verdict is a decision with the reasons for it: for deny, what is blocked
// and why; for ask, what keeps the line from being allowed.
type Verdict struct {
	Decision Decision
	Reasons  []string
}

// Policy judges command lines for one project root. It is safe for
// concurrent use.
type Policy struct {
	cfg     config.Config
	root    string
	home    string
	store   *Store
	protect *protector // what no command may write
	// readProtect: what no command reads without approval.
	readProtect *protector
	denyRules   []rule
	procs       procInfo
	nonPOSIX    bool // cmd.exe or PowerShell: the line is not sh syntax
}

// procInfo names the processes a command must not kill: the helper and the
// host that started it.
type procInfo struct {
	helperPID, hostPID int
	names              []string
}

// New builds a policy for root (an absolute, symlink-free path). store may
// be nil.
func New(cfg config.Config, root string, store *Store) *Policy {
	home, _ := os.UserHomeDir()
	p := &Policy{
		cfg:   cfg,
		root:  filepath.ToSlash(filepath.Clean(root)),
		home:  filepath.ToSlash(home),
		store: store,
		procs: currentProcs(),
	}
	userDir, _ := config.UserDir()
	p.protect = newProtector(cfg.Policy, p.root, p.home, filepath.ToSlash(userDir))
	p.readProtect = newReadProtector(cfg.Policy, p.root, p.home)
	p.denyRules = compileRules(cfg.Policy.Deny)
	switch strings.ToLower(strings.TrimSuffix(filepath.Base(cfg.Shell), ".exe")) {
	case "cmd", "powershell", "pwsh":
		p.nonPOSIX = true
	}
	return p
}

// Check judges a command line run at the root. It never runs anything.
func (p *Policy) Check(command string, trusted bool) Verdict {
	return p.CheckDir(command, p.root, trusted)
}

// CheckDir judges a command line run in dir (absolute, inside the root):
// "rm -rf .." means something else in a subfolder.
func (p *Policy) CheckDir(command, dir string, trusted bool) Verdict {
	var r *report
	if p.nonPOSIX {
		r = p.checkNonPOSIX(command)
	} else {
		r = p.analyze(command, filepath.ToSlash(dir))
	}
	v := r.verdict()
	if v.Decision == Allow && !trusted {
		v = Verdict{Ask, []string{"commands from an untrusted source always need approval"}}
	}
	return v
}

// alwaysEntries are the names approved with "always" for this root,
// re-read so that another window's approval counts at once.
func (p *Policy) alwaysEntries() []string {
	if p.store == nil {
		return nil
	}
	return p.store.Names()
}

// report collects reasons while a line is analysed.
type report struct {
	deny, ask []string
}

func (r *report) denyf(part, in, why string) {
	r.deny = appendOnce(r.deny, reason(part, in, why))
}

func (r *report) askf(part, in, why string) {
	r.ask = appendOnce(r.ask, reason(part, in, why))
}

// reason reads like `"sudo" in "sudo rm x": runs as another user`.
func reason(part, in, why string) string {
	switch {
	case part == "" && in == "":
		return why
	case in == "" || part == in:
		return quote(part) + ": " + why
	case part == "":
		return quote(in) + ": " + why
	}
	return quote(part) + " in " + quote(in) + ": " + why
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

func (r *report) verdict() Verdict {
	switch {
	case len(r.deny) > 0:
		return Verdict{Deny, r.deny}
	case len(r.ask) > 0:
		return Verdict{Ask, r.ask}
	}
	return Verdict{Decision: Allow}
}
