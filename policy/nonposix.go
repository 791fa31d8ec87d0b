package policy

import (
	"strings"
)

// checkNonPOSIX judges a line for cmd.exe or PowerShell, whose syntax the sh
// parser does not know. It is deliberately coarse: a line is allowed only
// when it is one plain command with no operator, variable or redirection at
// all, and a few well-known destructive commands are denied wherever they
// appear.
func (p *Policy) checkNonPOSIX(r *report, command string) {
	for _, seg := range splitSegments(command) {
		words := strings.Fields(seg)
		if len(words) == 0 {
			continue
		}
		p.nonPOSIXDeny(r, seg, words)
	}
	if len(r.deny) > 0 {
		return
	}
	words := strings.Fields(command)
	switch {
	case len(words) == 0:
	case strings.ContainsAny(command, ";|&<>$`%^()\n@{}"):
		r.askf(command, "", "operators, variables and redirections are not judged for "+p.cfg.Shell)
	case !p.onAllowListPlain(words):
		r.askf(words[0], command, "not on the allow list")
	default:
		p.nonPOSIXReads(r, command, words[1:])
	}
}

// nonPOSIXReads takes every word of an allowed line that is not an option
// as a path it may read (type .env, Get-Content ~\.ssh\id_rsa) and asks
// about protected ones and those outside the root.
func (p *Policy) nonPOSIXReads(r *report, command string, args []string) {
	for _, w := range args {
		t := strings.ReplaceAll(strings.Trim(w, `"'`), `\`, "/")
		if t == "" || strings.HasPrefix(t, "-") || len(t) == 2 && t[0] == '/' {
			continue // -Path, /s
		}
		if rest, ok := strings.CutPrefix(t, "~"); ok && (rest == "" || rest[0] == '/') {
			t = p.home + rest
		}
		abs := joinPath(p.root, t)
		switch pat := p.readProtect.match(t, p.root); {
		case pat != "":
			r.askf(w, command, "reads a protected path: "+pat)
		case !inside(p.root, abs):
			r.askf(w, command, "reads a path outside the project root: "+abs)
		}
	}
}

func splitSegments(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(";|&\n", r) })
}

func (p *Policy) onAllowListPlain(words []string) bool {
	ws := make([]word, len(words))
	for i, w := range words {
		ws[i] = word{raw: w, text: strings.Trim(w, `"'`), known: true}
	}
	for _, e := range p.cfg.Policy.Allow {
		entry := strings.Fields(e)
		if len(entry) > 0 && len(ws) >= len(entry) && strings.EqualFold(cmdBase(ws[0].text), entry[0]) &&
			matchEntry(append([]string{ws[0].text}, entry[1:]...), ws) {
			return true
		}
	}
	for _, e := range p.alwaysEntries() {
		entry := strings.Fields(e)
		if len(entry) > 0 && strings.EqualFold(cmdBase(ws[0].text), entry[0]) &&
			matchAlways(append([]string{ws[0].text}, entry[1:]...), ws) {
			return true
		}
	}
	return false
}

// nonPOSIXDeny knows the Windows spellings of the hard blocks.
func (p *Policy) nonPOSIXDeny(r *report, seg string, words []string) {
	name := cmdBase(strings.Trim(words[0], `"'`))
	lower := strings.ToLower(seg)
	switch {
	case whyByName[name] != "":
		r.denyf(words[0], seg, whyByName[name])
	case name == "format" || name == "diskpart" || name == "clear-disk" || name == "format-volume":
		r.denyf(words[0], seg, "formats or repartitions a disk")
	case name == "iex" || name == "invoke-expression":
		if strings.Contains(lower, "http") || strings.Contains(lower, "iwr") || strings.Contains(lower, "invoke-webrequest") || strings.Contains(lower, "downloadstring") {
			r.denyf(seg, "", "runs downloaded text as code, unread")
		}
	}
	if strings.Contains(lower, "|") {
		return
	}
	recursive := strings.Contains(lower, "-recurse") || strings.Contains(lower, "/s")
	if recursive && (name == "remove-item" || name == "rm" || name == "del" || name == "rd" || name == "rmdir" || name == "erase" || name == "ri") {
		for _, w := range words[1:] {
			t := strings.Trim(strings.ToLower(w), `"'`)
			if isDriveRoot(t) || t == `\` || t == "/" || t == "~" || t == "$home" || t == "$env:userprofile" ||
				t == "%userprofile%" || t == "." || t == "*" || t == ".." {
				r.denyf(w, seg, "deletes a whole drive, the home folder or the project root")
			}
		}
	}
	if name == "taskkill" || name == "stop-process" || name == "kill" || name == "spps" {
		for _, n := range p.procs.names {
			if strings.Contains(lower, n) {
				r.denyf(seg, "", "kills "+n+", the helper or the editor that hosts it")
			}
		}
	}
}
