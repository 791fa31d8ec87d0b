package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hostNames are editors that commonly host the helper; killing them ends the
// session that would have to approve anything.
var hostNames = []string{"termhelper", "code", "code-insiders", "codium", "cursor",
	"windsurf", "zed", "electron"}

// currentProcs records the helper's and its host's pid and names.
func currentProcs() procInfo {
	pi := procInfo{helperPID: os.Getpid(), hostPID: os.Getppid()}
	pi.names = append(pi.names, hostNames...)
	if exe, err := os.Executable(); err == nil {
		pi.names = append(pi.names, strings.TrimSuffix(strings.ToLower(filepath.Base(exe)), ".exe"))
	}
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pi.hostPID) + "/comm"); err == nil {
			pi.names = append(pi.names, strings.ToLower(strings.TrimSpace(string(b))))
		}
	}
	return pi
}

// matchName returns the protected process name a pkill/killall pattern
// would hit, or "".
func (pi procInfo) matchName(pattern string, regex, exact bool) string {
	pattern = strings.ToLower(pattern)
	var re *regexp.Regexp
	if regex {
		expr := pattern
		if exact {
			expr = "^(?:" + pattern + ")$"
		}
		re, _ = regexp.Compile(expr)
	}
	for _, n := range pi.names {
		switch {
		case re != nil && re.MatchString(n),
			re == nil && (n == pattern || !exact && regex && strings.Contains(n, pattern)):
			return n
		}
	}
	return ""
}

// killRule denies kill aimed at the helper ($PPID in the command's shell, or
// its pid), at its host, or at every process (-1).
func killRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	sig, opts := false, true
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case opts && t == "--":
			opts = false
		case opts && (t == "-l" || t == "-L" || t == "--list"):
			return
		case opts && hasField("-s -n --signal", t):
			sig = true
			i++
		case opts && !sig && strings.HasPrefix(t, "-") && len(t) > 1:
			sig = true
		default:
			a.killTarget(c, ws[i])
		}
	}
}

func (a *analyzer) killTarget(c cmd, w word) {
	t := strings.TrimPrefix(w.text, "-")
	switch {
	case w.text == "-1":
		a.deny(w.raw, c.text, "signals every process of the user, the helper and its host among them")
	case t == strconv.Itoa(a.p.procs.helperPID):
		a.deny(w.raw, c.text, "kills termhelper, which runs this command")
	case t == strconv.Itoa(a.p.procs.hostPID):
		a.deny(w.raw, c.text, "kills the program that started termhelper")
	case w.node != nil:
		if name := a.pidLookup(w); name != "" {
			a.deny(w.raw, c.text, "kills "+name+", the helper or the editor that hosts it")
		}
	}
}

// pidLookup finds kill $(pgrep termhelper) and kill `pidof code`.
func (a *analyzer) pidLookup(w word) string { return a.helperPids(w.node) }

// pipedPids denies a kill given the pids pgrep or pidof of the helper or
// its host print: pgrep termhelper | xargs kill.
func (a *analyzer) pipedPids(from, to *syntax.Stmt) {
	name := a.helperPids(from)
	if name == "" {
		return
	}
	for _, c := range a.cmdsIn(to) {
		for _, l := range a.chain(c) {
			if len(l.words) > 0 && cmdBase(l.words[0].text) == "kill" && l.extra {
				a.deny(l.text, nodeText(a.src, to), "kills "+name+", the helper or the editor that hosts it")
			}
		}
	}
}

// helperPids names the helper or host process a pgrep or pidof in n looks
// up, or "".
func (a *analyzer) helperPids(n syntax.Node) string {
	for _, c := range a.cmdsIn(n) {
		if len(c.words) < 2 {
			continue
		}
		base := cmdBase(c.words[0].text)
		if base != "pgrep" && base != "pidof" {
			continue
		}
		for _, op := range operands(c.words[1:]) {
			if n := a.p.procs.matchName(op.text, base == "pgrep", base == "pidof"); n != "" {
				return n
			}
		}
	}
	return ""
}

// pkillRule denies a pattern that matches the helper or its host, and
// pkill -u without a pattern (every process of a user).
func pkillRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	scoped, exact, inverse := false, false, false
	var pattern *word
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-u -U -g -G -s -t --euid --uid --pgroup --group --session --terminal", t):
			scoped = true
			i++
		case hasField("-P -F --parent --pidfile --signal --ns --nslist -q", t):
			i++
		case strings.HasPrefix(t, "--"):
			exact = exact || t == "--exact"
			inverse = inverse || t == "--inverse"
			scoped = scoped || strings.HasPrefix(t, "--euid=") || strings.HasPrefix(t, "--uid=")
		case strings.HasPrefix(t, "-") && len(t) > 1:
			exact = exact || strings.Trim(t[1:], "fxinoec") == "" && strings.Contains(t, "x")
			inverse = inverse || strings.Trim(t[1:], "fxinoecv") == "" && strings.Contains(t, "v")
		case pattern == nil:
			pattern = &ws[i]
		}
	}
	a.judgePattern(c, pattern, scoped, inverse, func(p string) string {
		return a.p.procs.matchName(p, true, exact)
	})
}

// killallRule: names are exact unless -r (Linux) or -m (macOS) makes them
// regular expressions.
func killallRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	scoped, regex := false, false
	var names []word
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-u --user -t -c -s --signal -o -y --older-than --younger-than", t):
			scoped = scoped || t == "-u" || t == "--user"
			i++
		case t == "-r" || t == "--regexp" || t == "-m":
			regex = true
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			names = append(names, ws[i])
		}
	}
	if len(names) == 0 {
		a.judgePattern(c, nil, scoped, false, nil)
	}
	for i := range names {
		a.judgePattern(c, &names[i], scoped, false, func(p string) string {
			return a.p.procs.matchName(p, regex, true)
		})
	}
}

func (a *analyzer) judgePattern(c cmd, pattern *word, scoped, inverse bool, match func(string) string) {
	switch {
	case pattern == nil && scoped:
		a.deny(c.text, "", "signals every process of a user, the helper and its host among them")
	case pattern == nil:
	case inverse:
		a.deny(pattern.raw, c.text, "signals every process not matching, the helper and its host among them")
	case strings.Contains(pattern.text, unknown):
	default:
		if n := match(pattern.text); n != "" {
			a.deny(pattern.raw, c.text, "kills "+n+", the helper or the editor that hosts it")
		}
	}
}
