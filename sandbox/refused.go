package sandbox

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Landlock refuses a file operation with EACCES (EPERM for some), and a
// mount of the sandbox with EROFS, to the command alone: the helper hears
// nothing. What a command was refused is therefore read from its own
// error lines: a line that holds one of refusalMarks (strerror's words,
// which the C library, the shells, coreutils, Python, Node and Go all
// print, in any case) and an absolute path (quoted or a word of its own;
// "~/" counts as the home folder; the one nearest to those words, as the
// line names the program first) that the plan does not let the command
// write: outside the root (in workspace-write), the temporary folder and
// the writable places, or inside a protected path. A path under a secret
// place is a "read" refusal unless the line says it wrote; a path under
// /proc is a "read" (another process's environment). Paths under /dev and
// /sys, relative paths, and paths the plan lets the command write (where
// the refusal is the file's own permissions) are not reported.
var refusalMarks = []string{"permission denied", "read-only file system", "operation not permitted"}

// shellPrefix is how a shell names itself and the line of its script in
// front of an error ("/bin/sh: 1: cannot create f: ..."): the shell is no
// path the command was refused.
var shellPrefix = regexp.MustCompile(`^\S+: [0-9]+: `)

// writeWords mark a line about a write, for a refusal under a secret
// place.
var writeWords = []string{"create", "touch", "write", "remove", "move", "mkdir", "directory", "link", "rename",
	"overwrite", "read-only file system"}

// RefusedPath is the refusal a line of output reports, if it is one.
func RefusedPath(line string, plan Plan, home string) (Denial, bool) {
	low := strings.ToLower(line)
	mark := -1
	for _, m := range refusalMarks {
		if i := strings.Index(low, m); i >= 0 {
			mark = i
			break
		}
	}
	if mark < 0 {
		return Denial{}, false
	}
	if p := shellPrefix.FindStringIndex(line); p != nil {
		line, mark = line[p[1]:], mark-p[1]
	}
	paths := pathsIn(line, mark, home)
	if len(paths) == 0 {
		return Denial{}, false
	}
	kind := refusalKind(paths[0], low, plan)
	if kind == "" {
		return Denial{}, false
	}
	return Denial{Kind: kind, Path: paths[0]}, true
}

// refusalKind says what the sandbox refused at path, or "" when it would
// not have refused anything there.
func refusalKind(path, low string, plan Plan) string {
	switch {
	case under(path, "/dev") || under(path, "/sys"):
		return ""
	case under(path, "/proc"):
		return "read"
	case inAny(path, plan.Hide):
		if containsAny(low, writeWords) {
			return "write"
		}
		return "read"
	case inAny(path, plan.Protect) || !writable(path, plan):
		return "write"
	}
	return ""
}

func writable(path string, plan Plan) bool {
	if plan.Mode == WorkspaceWrite && under(path, plan.Root) {
		return true
	}
	return (plan.TempDir != "" && under(path, plan.TempDir)) || inAny(path, plan.Writable)
}

// quotes are the pairs that quote a path in error lines: coreutils,
// Python and Node use ”, older tools `', GNU tools in a UTF-8 locale ‘’.
var quotes = [][2]string{{"'", "'"}, {`"`, `"`}, {"`", "'"}, {"‘", "’"}, {"“", "”"}}

// pathsIn are the absolute paths a line names, quoted or as words of
// their own, without the punctuation around them, nearest to the byte
// at mark first: "sh: 1: cannot create /x: Permission denied" names the
// shell too, farther away.
func pathsIn(line string, mark int, home string) []string {
	type found struct {
		path string
		dist int
	}
	var all []found
	add := func(s string, at int) {
		s = strings.Trim(s, " \t:,;()[]{}'\"`‘’“”")
		if strings.HasPrefix(s, "~/") && home != "" {
			s = path.Join(home, s[2:])
		}
		if strings.HasPrefix(s, "/") {
			all = append(all, found{path.Clean(s), abs(at - mark)})
		}
	}
	for _, q := range quotes {
		for at := 0; ; {
			i := strings.Index(line[at:], q[0])
			if i < 0 {
				break
			}
			from := at + i + len(q[0])
			j := strings.Index(line[from:], q[1])
			if j < 0 {
				break
			}
			add(line[from:from+j], from)
			at = from + j + len(q[1])
		}
	}
	at := 0
	for _, w := range strings.Fields(line) {
		i := strings.Index(line[at:], w)
		add(w, at+i)
		at += i + len(w)
	}
	slices.SortStableFunc(all, func(a, b found) int { return a.dist - b.dist })
	out := make([]string, len(all))
	for i, f := range all {
		out[i] = f.path
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func inAny(path string, places []string) bool {
	for _, p := range places {
		if under(path, strings.TrimSuffix(p, "/")) {
			return true
		}
	}
	return false
}

// under reports whether path is dir or lies below it.
func under(path, dir string) bool {
	if dir == "" {
		return false
	}
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maxRefusals bounds the paths kept from one command's output.
const maxRefusals = 16

// Refusals are the paths a confined command's error lines say it was
// refused (see RefusedPath), each once.
type Refusals struct {
	plan Plan
	home string
	caps Caps

	mu   sync.Mutex
	seen []Denial
}

// NewRefusals reads the output of a command confined by plan, with
// home its home folder, on a machine whose caps are caps.
func NewRefusals(plan Plan, home string, caps Caps) *Refusals {
	return &Refusals{plan: plan, home: home, caps: caps}
}

// Line reads one line of the command's output.
func (r *Refusals) Line(line string) {
	d, ok := RefusedPath(line, r.plan, r.home)
	if !ok {
		d, ok = limitRefused(line, r.plan, r.caps)
	}
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == d {
			return
		}
	}
	if len(r.seen) < maxRefusals {
		r.seen = append(r.seen, d)
	}
}

// List lists what the lines read so far say was refused.
func (r *Refusals) List() []Denial {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Denial(nil), r.seen...)
}
