package policy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// unknown stands for the part of a word that only exists once the shell runs
// ($(...), $VAR, $((...))). NUL cannot occur in a real argument, so it never
// collides with text and never matches an allow or deny entry by accident.
const unknown = "\x00"

// word is one shell word after quote removal, as far as it can be known
// without running anything.
type word struct {
	node  *syntax.Word
	raw   string // the word as written
	text  string // the value the shell would pass; unknown parts are NUL
	known bool   // no expansion at all: text is exactly what runs
	glob  bool   // an unquoted *, ? or [...] (or an extended glob) is left
	// risky: an expansion that can run code by itself when a variable holds
	// crafted text (arithmetic, ${x@P}, ${!x}, subscripts).
	risky bool
	// param names the variable when the whole word is one $NAME or ${NAME}.
	param string
	// leadVar names a plain $VAR the word starts with, right before a "/":
	// "$DIR/*" is "/*" when DIR is empty.
	leadVar   string
	procSubst bool // the word is a <(...) or >(...), a /dev/fd path
}

// shellEnv is what the analysis knows about the shell's state: the working
// directory (tracked through cd) and variables assigned earlier in the line.
type shellEnv struct {
	home string
	cwd  string // "" once a cd went somewhere that cannot be known
	vars map[string]string
	dl   map[string]string // files saved by curl/wget -> which of them
	ppid string            // $PPID in the command's shell: the helper's pid
	// loops: the words a for loop's variable takes in turn.
	loops map[string][]word
	// allExport: set -a made every variable set later exported.
	allExport bool
}

func (e *shellEnv) downloads() map[string]string {
	if e.dl == nil {
		e.dl = map[string]string{}
	}
	return e.dl
}

func (e *shellEnv) clone() *shellEnv {
	c := *e
	c.vars = make(map[string]string, len(e.vars))
	for k, v := range e.vars {
		c.vars[k] = v
	}
	c.loops = make(map[string][]word, len(e.loops))
	for k, v := range e.loops {
		c.loops[k] = v
	}
	return &c
}

// homeDir is $HOME as the shell would see it: an assignment earlier in the
// line (HOME=/ sh -c 'rm -rf ~') wins over the helper's own.
func (e *shellEnv) homeDir() string {
	if h, ok := e.vars["HOME"]; ok {
		return h
	}
	return e.home
}

// maxBraceWords caps brace expansion: a name or target is decided by its
// first few expansions, and {1..100000} must not cost anything.
const maxBraceWords = 64

// fields resolves a word into the words the shell would produce from it.
// Only brace expansion yields several; word splitting of unknown parts is
// not modelled, they stay one unknown word.
func (e *shellEnv) fields(src string, w *syntax.Word) []word {
	raw := nodeText(src, w)
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return []word{e.resolve(raw, w)}
	}
	var out []word
	for bw, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) == maxBraceWords {
			break
		}
		out = append(out, e.resolve(raw, bw))
	}
	return out
}

// word resolves a word that is known not to be brace-expanded further
// (assignment values, redirection targets).
func (e *shellEnv) word(src string, w *syntax.Word) word {
	if w == nil {
		return word{known: true}
	}
	return e.resolve(nodeText(src, w), w)
}

func (e *shellEnv) resolve(raw string, w *syntax.Word) word {
	r := word{node: w, raw: raw, known: true}
	var b strings.Builder
	for i, part := range w.Parts {
		e.part(&r, &b, part, i == 0)
	}
	r.text = b.String()
	e.markLeadVar(&r, w)
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
			r.param = pe.Param.Value
		}
		if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			if pe, ok := dq.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
				r.param = pe.Param.Value
			}
		}
	}
	return r
}

func (e *shellEnv) part(r *word, b *strings.Builder, p syntax.WordPart, first bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		e.lit(r, b, p.Value, first)
	case *syntax.SglQuoted:
		if p.Dollar {
			b.WriteString(ansiC(p.Value))
		} else {
			b.WriteString(p.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			if l, ok := q.(*syntax.Lit); ok {
				b.WriteString(dquoteLit(l.Value))
				continue
			}
			e.part(r, b, q, false)
		}
	case *syntax.ParamExp:
		r.known = false
		b.WriteString(e.param(r, p))
	case *syntax.CmdSubst:
		r.known = false
		b.WriteString(e.cmdSubst(p))
	case *syntax.ArithmExp:
		r.known = false
		r.risky = r.risky || arithmUsesNames(p.X)
		b.WriteString(unknown)
	case *syntax.ProcSubst:
		r.known = false
		r.procSubst = true
		b.WriteString("/dev/fd/63")
	case *syntax.ExtGlob:
		r.glob = true
		b.WriteString(p.Op.String() + p.Pattern.Value + ")")
	default:
		r.known = false
		b.WriteString(unknown)
	}
}

// lit removes the backslashes of an unquoted literal and notes globs and a
// leading tilde.
func (e *shellEnv) lit(r *word, b *strings.Builder, v string, first bool) {
	if first && strings.HasPrefix(v, "~") {
		v = e.tilde(r, b, v)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
		case c == '*' || c == '?':
			r.glob = true
			b.WriteByte(c)
		case c == '[' && strings.Contains(v[i+1:], "]"):
			r.glob = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

// tilde expands ~ and ~/..., ~+ (the working directory); ~user and ~- are
// unknown. It returns the rest of the literal.
func (e *shellEnv) tilde(r *word, b *strings.Builder, v string) string {
	end := strings.IndexByte(v, '/')
	if end < 0 {
		end = len(v)
	}
	switch v[1:end] {
	case "":
		b.WriteString(e.homeDir())
	case "+":
		b.WriteString(orUnknown(e.cwd))
	default:
		b.WriteString(unknown)
	}
	r.known = false
	return v[end:]
}

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}

// param gives the value of a parameter expansion where the line itself tells
// it: HOME and PWD, a variable assigned earlier, or the default or alternate
// word of ${X:-word} / ${X:+word}, which is what an obfuscation relies on.
func (e *shellEnv) param(r *word, p *syntax.ParamExp) string {
	if p.Excl || p.Index != nil && !allElems(p.Index) || p.Slice != nil || p.NestedParam != nil {
		r.risky = true
		return unknown
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
		r.risky = true
		return unknown
	}
	if p.Param == nil || p.Length || p.Width || p.Repl != nil || p.Names != 0 {
		return unknown
	}
	if v, ok := e.lookup(p.Param.Value); ok && p.Exp == nil {
		return v
	}
	if p.Exp != nil && p.Exp.Word != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset,
			syntax.AssignUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			return e.word("", p.Exp.Word).text
		}
	}
	return unknown
}

func (e *shellEnv) lookup(name string) (string, bool) {
	if v, ok := e.vars[name]; ok {
		return v, true
	}
	switch name {
	case "HOME":
		return e.home, true
	case "PWD":
		return e.cwd, e.cwd != ""
	case "PPID":
		return e.ppid, e.ppid != ""
	}
	return "", false
}

// allElems reports ${a[@]} and ${a[*]}, the only subscripts that are not
// evaluated as arithmetic.
func allElems(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l == "@" || l == "*"
}

// cmdSubst knows one substitution: $(pwd), the usual way to spell the
// working directory.
func (e *shellEnv) cmdSubst(c *syntax.CmdSubst) string {
	if len(c.Stmts) != 1 || e.cwd == "" {
		return unknown
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(c.Stmts[0].Redirs) > 0 {
		return unknown
	}
	if call.Args[0].Lit() == "pwd" && len(call.Args) <= 2 {
		return e.cwd
	}
	return unknown
}

// markLeadVar notes "$VAR/..." where VAR may be empty.
func (e *shellEnv) markLeadVar(r *word, w *syntax.Word) {
	if len(w.Parts) < 2 || !strings.HasPrefix(r.text, unknown+"/") {
		return
	}
	first := w.Parts[0]
	if dq, ok := first.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		first = dq.Parts[0]
	}
	pe, ok := first.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Index != nil || pe.Length || pe.Excl {
		return
	}
	r.leadVar = pe.Param.Value
}

// arithmUsesNames reports arithmetic that reads a variable: bash evaluates a
// variable's text as arithmetic again, and a subscript in that text can run
// a command.
func arithmUsesNames(x syntax.ArithmExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			found = true
		case *syntax.Lit:
			if v := n.Value; v != "" && (v[0] == '_' || isLetter(v[0])) {
				found = true
			}
		}
		return !found
	})
	return found
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// dquoteLit removes the backslashes that are special inside double quotes.
func dquoteLit(v string) string { return unescape(v, "$`\"\\\n") }

// unescape removes a backslash before any of special; a backslash-newline
// disappears altogether.
func unescape(v, special string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte(special, v[i+1]) >= 0 {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// ansiC decodes the escapes of bash's $'...' quoting, the quoting that
// spells $'\x73udo' for sudo.
func ansiC(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		i += ansiEscape(&b, v[i:]) - 1
	}
	return b.String()
}

// ansiEscape writes the character of the escape at the start of s (after the
// backslash) and returns how many bytes of s it used.
func ansiEscape(b *strings.Builder, s string) int {
	simple := map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10,
		'r': 13, 't': 9, 'v': 11, '\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	if c, ok := simple[s[0]]; ok {
		b.WriteByte(c)
		return 1
	}
	switch s[0] {
	case 'x':
		return 1 + numEscape(b, s[1:], 16, 2, false)
	case 'u':
		return 1 + numEscape(b, s[1:], 16, 4, true)
	case 'U':
		return 1 + numEscape(b, s[1:], 16, 8, true)
	case 'c':
		if len(s) > 1 {
			b.WriteByte(s[1] & 0x1f)
			return 2
		}
	}
	if s[0] >= '0' && s[0] <= '7' {
		return numEscape(b, s, 8, 3, false)
	}
	b.WriteByte('\\')
	b.WriteByte(s[0])
	return 1
}

func numEscape(b *strings.Builder, s string, base, max int, isRune bool) int {
	n := 0
	for n < max && n < len(s) && isDigit(s[n], base) {
		n++
	}
	if n == 0 {
		b.WriteByte('\\')
		return 0
	}
	v, _ := strconv.ParseUint(s[:n], base, 32)
	if isRune {
		b.WriteString(string(rune(v)))
	} else {
		b.WriteByte(byte(v))
	}
	return n
}

func isDigit(c byte, base int) bool {
	if base == 8 {
		return c >= '0' && c <= '7'
	}
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// nodeText is the source of a node, for messages.
func nodeText(src string, n syntax.Node) string {
	if n == nil || src == "" {
		return ""
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

// quote shows a piece of the command in a reason: double quotes, newlines
// made visible, long text shortened.
func quote(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	s = strings.ReplaceAll(s, unknown, "?")
	if len(s) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	if strings.Contains(s, `"`) && !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}

// hdoc resolves a here-document body. With a quoted delimiter (<<'EOF')
// the body is literal; otherwise it expands like double quotes, except that
// a backslash before " stays.
func (e *shellEnv) hdoc(src string, r *syntax.Redirect) word {
	w := r.Hdoc
	if w == nil {
		return word{known: true}
	}
	res := word{node: w, raw: nodeText(src, w), known: true}
	var b strings.Builder
	quoted := r.Word != nil && (r.Word.Lit() == "" || strings.Contains(r.Word.Lit(), `\`))
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		switch {
		case ok && quoted:
			b.WriteString(l.Value)
		case ok:
			b.WriteString(unescape(l.Value, "$`\\\n"))
		default:
			e.part(&res, &b, p, false)
		}
	}
	res.text = b.String()
	return res
}
