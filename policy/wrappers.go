package policy

import "strings"

// wrapSpec describes a command that runs another command given after its
// own options: "nice -n 5 CMD", "timeout -s KILL 5 CMD".
type wrapSpec struct {
	argOpts string // options taking the next word as argument, space separated
	noCmd   string // options after which no command follows (command -v)
	fixed   int    // operands before the command (timeout's duration)
	deflt   string // command run when none is given (xargs runs echo)
	extra   bool   // the command gets more arguments at run time
}

var wrappers = map[string]wrapSpec{
	"command":      {noCmd: "-v -V"},
	"builtin":      {},
	"exec":         {argOpts: "-a"},
	"nice":         {argOpts: "-n --adjustment"},
	"nohup":        {},
	"timeout":      {argOpts: "-s --signal -k --kill-after", fixed: 1},
	"gtimeout":     {argOpts: "-s --signal -k --kill-after", fixed: 1},
	"time":         {argOpts: "-o --output -f --format"},
	"stdbuf":       {argOpts: "-i -o -e --input --output --error"},
	"setsid":       {},
	"ionice":       {argOpts: "-c -n --class --classdata", noCmd: "-p -P -u --pid --pgid --uid"},
	"chrt":         {noCmd: "-p --pid", fixed: 1},
	"taskset":      {noCmd: "-p --pid", fixed: 1},
	"unbuffer":     {},
	"xargs":        {argOpts: "-n -I -P -L -d -E -s -a --max-args --max-procs --max-lines --delimiter --arg-file", deflt: "echo", extra: true},
	"flock":        {argOpts: "-w -E --timeout --conflict-exit-code", noCmd: "-c --command", fixed: 1},
	"busybox":      {},
	"caffeinate":   {argOpts: "-t -w"},
	"chronic":      {},
	"ifne":         {},
	"eatmydata":    {},
	"nocache":      {},
	"fakeroot":     {argOpts: "-l -s -i --lib --faked"},
	"proxychains":  {argOpts: "-f"},
	"proxychains4": {argOpts: "-f"},
	"torsocks":     {argOpts: "-u -p -a -P"},
	"firejail":     {},
	"rlwrap":       {argOpts: "-f -H -P -S"},
	"strace":       {argOpts: "-o -e -s -u -a -E -I -O -S -X -b -P", noCmd: "-p"},
	"ltrace":       {argOpts: "-o -e -s -u -a -n -A -D -F -l -x", noCmd: "-p"},
	"entr":         {noCmd: "-s"},
	"sudo":         {argOpts: "-u -g -C -D -h -p -r -t -U --user --group --chdir --host --prompt --role --type", noCmd: "-l -v -k -K -e -V -s -i"},
	"doas":         {argOpts: "-u -C"},
}

// inner returns the command c runs on its behalf, if c is a wrapper.
func (a *analyzer) inner(c cmd) (cmd, bool) {
	base := cmdBase(c.words[0].text)
	if base == "env" {
		return envInner(c)
	}
	spec, ok := wrappers[base]
	if !ok {
		return cmd{}, false
	}
	rest, ok := spec.split(c.words)
	if !ok {
		return cmd{}, false
	}
	in := c
	in.level++
	if len(rest) == 0 {
		if spec.deflt == "" {
			return cmd{}, false
		}
		rest = []word{{raw: c.words[0].raw, text: spec.deflt, known: true}}
	}
	in.words = rest
	if spec.extra {
		in.extra, in.stmt = true, nil
	}
	return in, true
}

// split skips the wrapper's name, options and fixed operands and returns the
// words of the wrapped command. ok is false when an option says no command
// follows.
func (s wrapSpec) split(ws []word) ([]word, bool) {
	i := 1
	for i < len(ws) {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		if optIn(s.noCmd, t) {
			return nil, false
		}
		i++
		if hasField(s.argOpts, t) || !strings.Contains(t, "=") && longName(t, s.argOpts) != "" {
			i++
		}
	}
	i += s.fixed
	if i >= len(ws) {
		return nil, true
	}
	return ws[i:], true
}

func hasField(list, f string) bool {
	for _, x := range strings.Fields(list) {
		if x == f {
			return true
		}
	}
	return false
}

// envInner parses env's options and NAME=value words; what follows is the
// command it runs, with those variables set.
func envInner(c cmd) (cmd, bool) {
	in := c
	in.level++
	in.assigns = append([]assignment(nil), c.assigns...)
	ws := c.words[1:]
loop:
	for len(ws) > 0 {
		t := ws[0].text
		switch {
		case t == "--":
			ws = ws[1:]
			break loop
		case t == "-u" || t == "-C" || !strings.Contains(t, "=") && isLong(t, "--unset --chdir"):
			ws = ws[min(2, len(ws)):]
		case strings.HasPrefix(t, "-") && len(t) > 1:
			ws = ws[1:]
		case strings.Contains(t, "=") && !strings.HasPrefix(t, "="):
			name, _, _ := strings.Cut(t, "=")
			val := ws[0]
			val.text = t[len(name)+1:]
			in.assigns = append(in.assigns, assignment{name: name, raw: ws[0].raw, val: val})
			ws = ws[1:]
		default:
			break loop
		}
	}
	if len(ws) == 0 {
		return cmd{}, false
	}
	in.words = ws
	return in, true
}
