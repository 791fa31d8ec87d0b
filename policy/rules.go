package policy

import (
	"regexp"
	"sort"
	"strings"
)

// ruleFunc judges one simple command by what it is; it records denials and
// asks, and may judge commands it runs (find -exec, sh -c).
type ruleFunc func(a *analyzer, c cmd)

// rules maps a command's base name (cmdBase) to its rule. Filled in init:
// the rules call back into the analyzer, which reads this map.
var rules map[string]ruleFunc

func init() {
	rules = map[string]ruleFunc{}
	add := func(f ruleFunc, names ...string) {
		for _, n := range names {
			rules[n] = f
		}
	}
	add(denyName, "sudo", "su", "doas", "pkexec", "sudoedit", "run0", "runas", "gsudo", "runuser",
		"mke2fs", "mkswap", "wipefs", "blkdiscard", "fdisk", "sfdisk", "cfdisk", "parted",
		"gdisk", "sgdisk", "cgdisk", "diskpart", "format",
		"shutdown", "reboot", "halt", "poweroff")
	add(diskutilRule, "diskutil")
	add(powerRule, "systemctl", "init", "telinit")
	add(rmRule, "rm", "rmdir", "unlink", "shred", "srm")
	add(findRule, "find")
	add(chmodRule, "chmod", "chown", "chgrp", "chattr", "setfacl")
	add(ddRule, "dd")
	add(teeRule, "tee")
	add(copyRule, "cp", "mv", "install", "ln", "rsync", "scp")
	add(inPlaceRule, "sed", "perl", "gsed")
	add(fileArgRule, "truncate", "touch")
	add(outputOptRule, "curl", "wget", "sort", "tree", "time", "script")
	add(killRule, "kill")
	add(pkillRule, "pkill")
	add(killallRule, "killall")
	add(shellRule, shellList...)
	add(evalRule, "eval")
	add(sourceRule, "source", ".")
	add(watchRule, "watch")
	add(codeOptRule, "flock", "su", "script")
	add(trapRule, "trap")
	add(aliasRule, "alias")
	add(both(envRule, dumpRule), "env")
	add(dumpRule, "printenv", "export", "declare", "typeset", "readonly")
	add(both(dumpRule, setRule), "set")
	add(psRule, "ps")
	add(readRule, "read")
	add(printfRule, "printf")
	for _, n := range interpreterList {
		if prev := rules[n]; prev != nil {
			rules[n] = both(prev, interpreterRule)
		} else {
			rules[n] = interpreterRule
		}
	}
	// su is both a privilege change and a taker of -c code: deny wins.
	rules["su"] = denyName
}

func both(f, g ruleFunc) ruleFunc {
	return func(a *analyzer, c cmd) {
		f(a, c)
		g(a, c)
	}
}

// whyByName explains the commands that are denied whatever their arguments.
var whyByName = map[string]string{
	"sudo": "runs as another user", "su": "runs as another user", "doas": "runs as another user",
	"pkexec": "runs as another user", "sudoedit": "runs as another user", "run0": "runs as another user",
	"runas": "runs as another user", "gsudo": "runs as another user", "runuser": "runs as another user",
	"shutdown": "stops or restarts the machine", "reboot": "stops or restarts the machine",
	"halt": "stops or restarts the machine", "poweroff": "stops or restarts the machine",
}

func denyName(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	why, ok := whyByName[base]
	if !ok {
		why = "formats or repartitions a disk"
	}
	a.deny(c.words[0].raw, c.text, why)
}

// dangerousNames are the names a glob in command position is tried
// against.
func dangerousNames() []string {
	names := make([]string, 0, len(rules)+1)
	for n := range rules {
		names = append(names, n)
	}
	sort.Strings(names)
	return append(names, "mkfs")
}

func diskutilRule(a *analyzer, c cmd) {
	for _, w := range c.words[1:] {
		switch strings.ToLower(w.text) {
		case "erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase",
			"partitiondisk", "reformat", "apfs deletecontainer":
			a.deny(w.raw, c.text, "erases a disk")
		}
	}
}

func powerRule(a *analyzer, c cmd) {
	base := cmdBase(c.words[0].text)
	for _, w := range c.words[1:] {
		t := w.text
		if base == "systemctl" && strings.Contains(" poweroff reboot halt kexec soft-reboot suspend hibernate hybrid-sleep ", " "+t+" ") ||
			base != "systemctl" && (t == "0" || t == "6") {
			a.deny(w.raw, c.text, "stops or restarts the machine")
		}
	}
}

// rule is one entry of the config's extra deny list: a word prefix, or a
// glob over the whole simple command when it holds * ? or [.
type rule struct {
	raw   string
	words []string
	re    *regexp.Regexp
}

func compileRules(list []string) []rule {
	var out []rule
	for _, raw := range list {
		r := rule{raw: raw, words: strings.Fields(raw)}
		if len(r.words) == 0 {
			continue
		}
		r.words[0] = cmdBase(r.words[0])
		if strings.ContainsAny(raw, "*?[") {
			r.re = globRegexp(strings.Join(r.words, " "))
		}
		out = append(out, r)
	}
	return out
}

// match reports a hit, or a possible hit when unknown words could complete
// the rule.
func (r rule) match(ws []word) (hit, maybe bool) {
	first := cmdBase(ws[0].text) == r.words[0]
	if r.re != nil {
		text := commandLine(ws)
		if r.re.MatchString(text) {
			return true, false
		}
		return false, first && strings.Contains(text, unknown)
	}
	if !first || len(ws) < len(r.words) {
		return false, false
	}
	for i, rw := range r.words[1:] {
		t := ws[i+1].text
		if strings.Contains(t, unknown) {
			maybe = true
		} else if t != rw {
			return false, false
		}
	}
	return !maybe, maybe
}

// commandLine is a simple command as one string, the name reduced to its
// base, for glob deny rules.
func commandLine(ws []word) string {
	parts := []string{cmdBase(ws[0].text)}
	for _, w := range ws[1:] {
		parts = append(parts, w.text)
	}
	return strings.Join(parts, " ")
}

func (a *analyzer) configDeny(c cmd) {
	for _, r := range a.p.denyRules {
		hit, maybe := r.match(c.words)
		switch {
		case hit:
			a.deny(c.text, "", "matches the deny rule "+quote(r.raw))
		case maybe:
			a.ask(c.text, "", "may match the deny rule "+quote(r.raw))
		}
	}
}

// globRegexp turns a deny-rule glob into a regexp where * also matches
// spaces and slashes: "git push *--force*" is about the whole line.
func globRegexp(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			if j := strings.IndexByte(g[i:], ']'); j > 1 {
				class := strings.Replace(g[i+1:i+j], "!", "^", 1)
				b.WriteString("[" + class + "]")
				i += j
				continue
			}
			b.WriteString(`\[`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile(`^` + regexp.QuoteMeta(g) + `$`)
	}
	return re
}
