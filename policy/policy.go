package policy

import (
	"os"
	"path/filepath"
	"runtime"

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
	// Leaves: the line must run outside the sandbox to do what it says
	// (git push, npm publish, ssh, a deploy tool: see leaving in
	// leaves.go). Approved or allowed, it runs unconfined.
	Leaves bool
}

// Judging is what a line is judged with besides its text and folder.
type Judging struct {
	// Trusted: the host vouches for where the line comes from. An
	// untrusted line is never allowed without a person's approval.
	Trusted bool
	// Sandboxed: the line will run confined (writes only where the sandbox
	// lets it, the network only through the proxy, the secret folders
	// hidden). What the confinement holds is then not asked about: an
	// unknown program, a write, a read outside the root that is no secret.
	Sandboxed bool
	// Env is the request's own environment (a nil value unsets the
	// variable). It is judged as assignments written in front of the line
	// would be: PATH, LD_PRELOAD or GIT_CONFIG_* change what runs.
	Env map[string]*string
}

// Policy judges command lines for one project root. It is safe for
// concurrent use.
type Policy struct {
	cfg  config.Config
	root string
	home string
	// realRoot and realHome are root and home with the links on their way
	// resolved (/home may be a link to /var/home).
	realRoot, realHome string
	store              *Store
	protect            *protector // what no command may write
	// readProtect: what no command reads without approval.
	readProtect *protector
	denyRules   []rule
	procs       procInfo
	goos        string    // the system the commands run on
	kind        shellKind // the language of the shell that runs them
	nonPOSIX    bool      // cmd.exe or PowerShell: the line is not sh syntax
}

// procInfo names the processes a command must not kill: the helper and the
// host that started it.
type procInfo struct {
	helperPID, hostPID int
	names              []string
}

// New builds a policy for root (an absolute, symlink-free path). store may
// be nil. Lines are judged in the language of the shell that will run
// them: the config's shell, or the system's default (/bin/sh, which may be
// dash or bash; PowerShell on Windows).
func New(cfg config.Config, root string, store *Store) *Policy {
	return newFor(runtime.GOOS, cfg, root, store)
}

// homeFor is the folder "~" names for goos's shell: $HOME for a POSIX
// shell, as sh expands it, and %USERPROFILE% for Windows' own.
func homeFor(goos string) string {
	if h := os.Getenv("HOME"); goos != "windows" && h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// newFor builds a policy for commands run on goos.
func newFor(goos string, cfg config.Config, root string, store *Store) *Policy {
	home := homeFor(goos)
	p := &Policy{
		cfg:   cfg,
		root:  filepath.ToSlash(filepath.Clean(root)),
		home:  filepath.ToSlash(home),
		store: store,
		procs: currentProcs(),
		goos:  goos,
		kind:  shellKindOf(goos, cfg.Shell),
	}
	p.realRoot, p.realHome = kernelPath("", p.root), kernelPath("", p.home)
	userDir, _ := config.UserDir()
	p.protect = newProtector(cfg.Policy, p.root, p.home, filepath.ToSlash(userDir), foldsCase(goos))
	p.readProtect = newReadProtector(cfg.Policy, p.root, p.home, foldsCase(goos))
	p.denyRules = compileRules(cfg.Policy.Deny)
	p.nonPOSIX = p.kind == kindPowerShell || p.kind == kindCmd
	return p
}

// Check judges a command line run at the root. It never runs anything.
func (p *Policy) Check(command string, trusted bool) Verdict {
	return p.Judge(command, p.root, Judging{Trusted: trusted})
}

// CheckDir judges a command line run in dir, unconfined and with no
// environment of its own.
func (p *Policy) CheckDir(command, dir string, trusted bool) Verdict {
	return p.Judge(command, dir, Judging{Trusted: trusted})
}

// Judge judges a command line run in dir (absolute, inside the root: "rm
// -rf .." means something else in a subfolder). It never runs anything.
func (p *Policy) Judge(command, dir string, j Judging) Verdict {
	v := p.judge(command, dir, j.Env).verdict(j.Sandboxed && j.Trusted)
	if v.Decision == Allow && !j.Trusted {
		v.Decision, v.Reasons = Ask, []string{"commands from an untrusted source always need approval"}
	}
	return v
}

// judge collects every reason about a line.
func (p *Policy) judge(command, dir string, env map[string]*string) *report {
	r := &report{}
	p.judgeEnv(r, env)
	if p.nonPOSIX {
		p.judgeWindows(r, command, filepath.ToSlash(dir), p.kind == kindPowerShell, 0)
	} else {
		p.analyze(r, command, filepath.ToSlash(dir), env)
	}
	return r
}

// alwaysEntries are the names approved with "always" for this root,
// re-read so that another window's approval counts at once.
func (p *Policy) alwaysEntries() []string {
	if p.store == nil {
		return nil
	}
	return p.store.Names()
}

// askClass says whether a sandbox holds what an ask is about.
type askClass uint8

const (
	// askHard: asked however the line runs (it cannot be read, or it may
	// match a deny rule).
	askHard askClass = iota
	// askSoft: the sandbox holds it: an unknown program, a write, a read
	// outside the root of what is no secret.
	askSoft
	// askSecret: reads a secret, which the sandbox may not hide (a .env
	// inside the root, a variable of the command's own environment).
	askSecret
)

// report collects reasons while a line is analysed.
type report struct {
	deny []string
	ask  []string
	// class of each ask reason, by its text.
	class map[string]askClass
	// leaving: why the line must leave the sandbox (git push, ssh, ...).
	leaving []string
}

func (r *report) denyf(part, in, why string) {
	r.deny = appendOnce(r.deny, reason(part, in, why))
}

func (r *report) askf(part, in, why string) {
	r.note(askHard, part, in, why)
}

// note records an ask; the same reason met again as something a sandbox
// does not hold stays asked in a sandbox.
func (r *report) note(c askClass, part, in, why string) {
	text := reason(part, in, why)
	if r.class == nil {
		r.class = map[string]askClass{}
	}
	if prev, seen := r.class[text]; !seen || prev == askSoft {
		r.class[text] = c
	}
	r.ask = appendOnce(r.ask, text)
}

func (r *report) leave(part, in, why string) {
	r.leaving = appendOnce(r.leaving, reason(part, in, why))
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

// verdict decides. Confined, what the sandbox holds is not asked about,
// unless the line leaves the sandbox: then it runs unconfined, and every
// reason counts, with why it leaves.
func (r *report) verdict(confined bool) Verdict {
	leaves := len(r.leaving) > 0
	switch {
	case len(r.deny) > 0:
		return Verdict{Decision: Deny, Reasons: r.deny, Leaves: leaves}
	case len(r.ask) == 0:
		return Verdict{Decision: Allow, Leaves: leaves}
	case !confined:
		return Verdict{Decision: Ask, Reasons: r.ask, Leaves: leaves}
	case leaves:
		return Verdict{Decision: Ask, Reasons: append(append([]string(nil), r.leaving...), r.ask...), Leaves: true}
	}
	var held []string
	for _, a := range r.ask {
		if r.class[a] != askSoft {
			held = append(held, a)
		}
	}
	if len(held) == 0 {
		return Verdict{Decision: Allow}
	}
	return Verdict{Decision: Ask, Reasons: held}
}
