package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// boundStmts marks the statements of f whose output reaches the answer
// with every line whole: not redirected to a file, not captured by $(...),
// and piped only into filters that print whole input lines (lineFilter).
func (a *analyzer) boundStmts(f *syntax.File) map[*syntax.Stmt]bool {
	out := map[*syntax.Stmt]bool{}
	a.markAll(f.Stmts, out)
	return out
}

func (a *analyzer) markAll(stmts []*syntax.Stmt, out map[*syntax.Stmt]bool) {
	for _, s := range stmts {
		a.mark(s, out)
	}
}

func (a *analyzer) mark(s *syntax.Stmt, out map[*syntax.Stmt]bool) {
	if s == nil || redirectsOutput(s) {
		return
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr, *syntax.DeclClause:
		out[s] = true
	case *syntax.BinaryCmd:
		a.mark(x.Y, out)
		if x.Op != syntax.Pipe && x.Op != syntax.PipeAll || a.lineFilter(x.Y) {
			a.mark(x.X, out)
		}
	case *syntax.Block:
		a.markAll(x.Stmts, out)
	case *syntax.Subshell:
		a.markAll(x.Stmts, out)
	case *syntax.IfClause:
		for c := x; c != nil; c = c.Else {
			a.markAll(c.Cond, out)
			a.markAll(c.Then, out)
		}
	case *syntax.WhileClause:
		a.markAll(x.Cond, out)
		a.markAll(x.Do, out)
	case *syntax.ForClause:
		a.markAll(x.Do, out)
	case *syntax.TimeClause:
		a.mark(x.Stmt, out)
	}
}

// redirectsOutput reports a statement whose standard output goes
// somewhere other than the answer (2>&1 and >&2 still reach it).
func redirectsOutput(s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.DplOut:
			if l := r.Word.Lit(); (fd == "" || fd == "1") && l != "1" && l != "2" {
				return true
			}
		case syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			return true
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrInOut:
			if fd == "" || fd == "1" {
				return true
			}
		}
	}
	return false
}

// lineFilters print whole lines of their input, or counts; the options
// listed cut lines into pieces (grep -o, head -c).
var lineFilters = map[string]string{
	"grep": "-o --only-matching -b --byte-offset", "egrep": "-o --only-matching", "fgrep": "-o --only-matching",
	"rg": "-o --only-matching -r --replace", "sort": "", "uniq": "", "head": "-c --bytes",
	"tail": "-c --bytes", "cat": "", "less": "", "more": "", "nl": "", "wc": "",
}

// lineFilter reports a statement (a command or a pipeline of them) that
// passes whole lines on.
func (a *analyzer) lineFilter(s *syntax.Stmt) bool {
	if s == nil || redirectsOutput(s) {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		return (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && a.lineFilter(x.X) && a.lineFilter(x.Y)
	case *syntax.CallExpr:
		if len(x.Args) == 0 || len(x.Assigns) > 0 {
			return false
		}
		cut, ok := lineFilters[cmdBase(a.env.word(a.src, x.Args[0]).text)]
		if !ok {
			return false
		}
		for _, w := range x.Args[1:] {
			t := a.env.word(a.src, w).text
			if strings.Contains(t, unknown) || cutsLines(t, cut) {
				return false
			}
		}
		return true
	}
	return false
}

// cutsLines reports an option among cut, alone, with a value, or in a
// group of short options.
func cutsLines(arg, cut string) bool {
	for _, o := range strings.Fields(cut) {
		if hasOption(arg, o) {
			return true
		}
	}
	return false
}
