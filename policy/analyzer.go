package policy

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deep strings handed to sh -c, eval and friends are
// parsed again; past it the line is asked about, never allowed.
const maxDepth = 8

// analyzer walks one piece of shell code and records reasons in a report.
type analyzer struct {
	p     *Policy
	r     *report
	env   *shellEnv
	kind  shellKind            // the shell that runs this code
	langs []syntax.LangVariant // the readings it could make (kind.langs)
	lang  syntax.LangVariant   // the reading being judged
	src   string
	where string // "" for the line itself, "inside bash -c" for nested code
	depth int
	seen  map[*syntax.BinaryCmd]bool
	// guessing: judging a command under an assumed name (see judgeAs).
	guessing bool
	// outBound: this code's output reaches the answer whole (see
	// boundStmts); bound: its statements that pass that on.
	outBound bool
	bound    map[*syntax.Stmt]bool
	allow    [][]string // the config's allow list: word prefixes
	always   [][]string // the "always" entries, read once per check (matchAlways)
	// reqEnv: the request's own variables, which reach a confined command
	// as they are (the helper's own secret ones it gets as placeholders).
	reqEnv map[string]*string
}

// cmd is one simple command: its words after quote removal, the
// assignments in front of it, and where it came from.
type cmd struct {
	words   []word
	assigns []assignment
	text    string       // source of the simple command, for reasons
	stmt    *syntax.Stmt // the statement whose stdin it reads; nil if unknown
	extra   bool         // more arguments come at run time (xargs)
	level   int          // wrappers peeled off so far
}

type assignment struct {
	name string
	raw  string
	val  word
}

// analyze judges a line into r. The request's env is the shell's own from
// the start: with HOME=/ in it, rm -rf ~ deletes /.
func (p *Policy) analyze(r *report, command, dir string, reqEnv map[string]*string) {
	vars := map[string]string{}
	for name, v := range reqEnv {
		if v != nil {
			vars[name] = *v
		}
	}
	a := &analyzer{
		p:        p,
		r:        r,
		kind:     p.kind,
		langs:    p.kind.langs(),
		outBound: true,
		allow:    splitEntries(p.cfg.Policy.Allow),
		always:   splitEntries(p.alwaysEntries()),
		env:      &shellEnv{home: p.home, cwd: dir, vars: vars, ppid: strconv.Itoa(p.procs.helperPID)},
		reqEnv:   reqEnv,
	}
	a.run(command)
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// run parses src in every reading its shell could make and walks each
// from the same state.
func (a *analyzer) run(src string) {
	rs := a.readings(src)
	start := a.env.clone()
	for i, r := range rs {
		if i > 0 {
			a.env = start.clone()
		}
		a.src, a.lang = src, r.lang
		a.seen = map[*syntax.BinaryCmd]bool{}
		a.bound = a.boundStmts(r.file)
		syntax.Walk(r.file, a.visit)
	}
}

// nested analyses code the line hands to a shell of kind (sh -c, eval,
// watch). env carries assignments made for that shell only.
// bound says whether what the code prints reaches the answer whole.
func (a *analyzer) nested(code, where string, env *shellEnv, kind shellKind, bound bool) {
	if a.depth >= maxDepth {
		a.ask(code, "", "shell code nested too deep to judge")
		return
	}
	sub := &analyzer{p: a.p, r: a.r, env: env, depth: a.depth + 1, where: where, guessing: a.guessing,
		allow: a.allow, always: a.always, kind: kind, langs: kind.langs(), outBound: bound, reqEnv: a.reqEnv}
	sub.run(code)
}

func (a *analyzer) deny(part, in, why string) {
	a.r.denyf(part, in, a.withWhere(why))
}

// ask records what no confinement makes harmless: a line that cannot be
// read, or that may match a deny rule.
func (a *analyzer) ask(part, in, why string) {
	a.r.note(askHard, part, in, a.withWhere(why))
}

// askSoft records what a sandbox holds: an unknown program, a write, a
// read of a path outside the root that is no secret.
func (a *analyzer) askSoft(part, in, why string) {
	a.r.note(askSoft, part, in, a.withWhere(why))
}

// askSecret records a read of a secret.
func (a *analyzer) askSecret(part, in, why string) {
	a.r.note(askSecret, part, in, a.withWhere(why))
}

func (a *analyzer) withWhere(why string) string {
	if a.where == "" {
		return why
	}
	return why + " (" + a.where + ")"
}

func (a *analyzer) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		a.stmt(n)
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			a.pipeline(n)
		}
	case *syntax.FuncDecl:
		a.funcDecl(n)
	case *syntax.ParamExp:
		a.paramRead(n)
		a.paramAssign(n)
	case *syntax.ArithmExp:
		a.arithNames(n.X)
	case *syntax.ArithmCmd:
		a.arithNames(n.X)
		if arithmUsesNames(n.X) {
			a.askSoft(nodeText(a.src, n), "", "arithmetic on variables can run commands hidden in their values")
		}
	case *syntax.LetClause:
		a.arithNames(n)
		a.askSoft(nodeText(a.src, n), "", "arithmetic on variables can run commands hidden in their values")
	case *syntax.TestClause:
		a.testClause(n)
	case *syntax.CoprocClause:
		a.askSoft(nodeText(a.src, n), "", "starts a coprocess")
	case *syntax.ForClause:
		a.forLoop(n)
	}
	return true
}

// forLoop notes the words "for f in a b *.go" gives f, so that cat "$f"
// in the body is judged for each of them.
func (a *analyzer) forLoop(f *syntax.ForClause) {
	wi, ok := f.Loop.(*syntax.WordIter)
	if !ok || wi.Name == nil {
		return
	}
	name := wi.Name.Value
	a.env.vars[name] = unknown
	delete(a.env.loops, name)
	if !wi.InPos.IsValid() {
		return // for f; do: the positional parameters, unknown
	}
	var items []word
	for _, w := range wi.Items {
		items = append(items, a.env.fields(a.src, w)...)
	}
	if a.env.loops == nil {
		a.env.loops = map[string][]word{}
	}
	a.env.loops[name] = items
}

func (a *analyzer) stmt(s *syntax.Stmt) {
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		c := a.newCmd(s, x)
		a.simple(c)
		a.savedOutput(s, c)
	case *syntax.DeclClause:
		a.decl(s, x)
	}
	for _, r := range s.Redirs {
		a.redirect(s, r)
	}
}

// newCmd resolves a call's words in the current state.
func (a *analyzer) newCmd(s *syntax.Stmt, call *syntax.CallExpr) cmd {
	c := cmd{text: nodeText(a.src, call), stmt: s}
	for _, as := range call.Assigns {
		c.assigns = append(c.assigns, a.assignment(as))
	}
	for _, w := range call.Args {
		c.words = append(c.words, a.env.fields(a.src, w)...)
	}
	return c
}

func (a *analyzer) assignment(as *syntax.Assign) assignment {
	v := word{known: true}
	if as.Value != nil {
		v = a.env.word(a.src, as.Value)
	}
	if as.Array != nil || as.Index != nil || as.Append {
		v = word{text: unknown}
	}
	return assignment{name: as.Name.Value, raw: nodeText(a.src, as), val: v}
}

// cmdsIn lists the simple commands anywhere under n, resolved but not judged.
func (a *analyzer) cmdsIn(n syntax.Node) []cmd {
	var out []cmd
	syntax.Walk(n, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok {
			if call, ok := s.Cmd.(*syntax.CallExpr); ok {
				out = append(out, a.newCmd(s, call))
			}
		}
		return true
	})
	return out
}

// testClause asks about [[ ]] comparisons that evaluate variables as
// arithmetic (-eq, -lt, ...) and about -v or -R of a name that may hold a
// subscript; everything else in [[ ]] only reads.
func (a *analyzer) testClause(t *syntax.TestClause) {
	risky := false
	syntax.Walk(t.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				risky = risky || !isNumberTest(n.X) || !isNumberTest(n.Y)
				a.arithNames(n.X)
				a.arithNames(n.Y)
			}
		case *syntax.UnaryTest:
			// -v 'a[$(cmd)]' evaluates the subscript.
			if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar) {
				risky = risky || riskyName(a.env.word(a.src, w))
			}
		}
		return !risky
	})
	if risky {
		a.askSoft(nodeText(a.src, t), "", "arithmetic on variables can run commands hidden in their values")
	}
}

func isNumberTest(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l != "" && strings.Trim(l, "-0123456789") == ""
}

// decl handles export/declare/local/readonly: they assign like a bare
// assignment and are themselves judged like a command name.
func (a *analyzer) decl(s *syntax.Stmt, d *syntax.DeclClause) {
	text := nodeText(a.src, d)
	c := cmd{text: text, stmt: s, words: []word{{raw: d.Variant.Value, text: d.Variant.Value, known: true}}}
	flags := ""
	for _, as := range d.Args {
		if as.Name == nil {
			if as.Value != nil {
				w := a.env.word(a.src, as.Value)
				flags += w.text
				c.words = append(c.words, w)
			}
			continue
		}
		asg := a.assignment(as)
		c.words = append(c.words, word{raw: asg.raw, text: asg.raw, known: true})
		if !as.Naked {
			a.track(asg)
			if strings.Contains(flags, "n") && a.p.secretVar(asg.val.text) {
				a.askSecretVar(asg.raw, text, "makes a name for "+asg.val.text+secretWhy, asg.val.text)
			}
		}
		a.checkVar(asg, text, d.Variant.Value != "export" && !strings.Contains(flags, "x"))
	}
	dumpRule(a, c)
	a.checkAllowed(c, d.Variant.Value)
}

// funcDecl denies the fork bomb: a function that calls itself in a pipe or
// in the background, so each call starts two more.
func (a *analyzer) funcDecl(f *syntax.FuncDecl) {
	if f.Name == nil {
		return
	}
	name := f.Name.Value
	selfCall, spawns := false, false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 && a.env.word(a.src, n.Args[0]).text == name {
				selfCall = true
			}
		case *syntax.Stmt:
			spawns = spawns || n.Background
		case *syntax.BinaryCmd:
			spawns = spawns || n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		}
		return true
	})
	if selfCall && spawns {
		a.deny(nodeText(a.src, f), "", "a function that starts copies of itself without end: a fork bomb")
	}
}
