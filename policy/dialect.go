package policy

import (
	"errors"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellKind is the language of the shell that will run a line.
type shellKind uint8

const (
	// kindSh is /bin/sh or a shell not known by name: dash on Debian,
	// bash on Fedora and macOS, busybox ash on Alpine. The line is read as
	// POSIX sh and as bash, and what either reading runs is judged.
	kindSh shellKind = iota
	kindPOSIX
	kindBash
	kindZsh
	kindKsh
	// kindForeign reads another language (fish, csh): only what the sh
	// readings show can be judged, and the line is asked about.
	kindForeign
	kindPowerShell
	kindCmd
)

// shellKindOf tells the language of the shell the config names (its
// `shell`, "" for the system's default) on goos.
func shellKindOf(goos, shell string) shellKind {
	if shell == "" {
		if goos == "windows" {
			return kindPowerShell // pwsh if found, else powershell.exe
		}
		return kindSh // /bin/sh
	}
	return kindByName(cmdBase(shell))
}

// kindByName tells a shell's language from its program name (cmdBase).
func kindByName(base string) shellKind {
	switch base {
	case "bash", "rbash":
		return kindBash
	case "dash", "ash", "posh":
		return kindPOSIX
	case "zsh":
		return kindZsh
	case "ksh", "ksh93", "mksh", "oksh", "loksh", "pdksh", "lksh":
		return kindKsh
	case "fish", "csh", "tcsh", "nu", "elvish", "xonsh", "rc", "es":
		return kindForeign
	case "pwsh", "powershell":
		return kindPowerShell
	case "cmd":
		return kindCmd
	}
	return kindSh
}

// langs are the readings of a line a shell of this kind could make.
func (k shellKind) langs() []syntax.LangVariant {
	switch k {
	case kindPOSIX:
		return []syntax.LangVariant{syntax.LangPOSIX}
	case kindBash:
		return []syntax.LangVariant{syntax.LangBash}
	case kindZsh:
		return []syntax.LangVariant{syntax.LangZsh, syntax.LangBash}
	case kindKsh:
		return []syntax.LangVariant{syntax.LangMirBSDKorn, syntax.LangBash}
	}
	return []syntax.LangVariant{syntax.LangPOSIX, syntax.LangBash}
}

func parseIn(lang syntax.LangVariant, src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
}

// reading is one way to read a piece of shell code.
type reading struct {
	lang syntax.LangVariant
	file *syntax.File
}

// readings parses src in each language the analyzer's shell could read it
// in. A language that cannot parse it is asked about; when the readings
// that parse split the code into different statements (a quote that ends
// in one and not in the other: echo $'a\'; touch x), that is asked about
// too, and each reading is judged in full, so a hard block either one
// would run is denied.
func (a *analyzer) readings(src string) []reading {
	var out []reading
	var errs []string
	partial := false
	for _, lang := range a.langs {
		f, err := parseIn(lang, src)
		if err != nil {
			errs = append(errs, lang.String()+": "+err.Error())
			if pf := parsedLines(lang, src, err); pf != nil {
				out, partial = append(out, reading{lang, pf}), true
			}
			continue
		}
		out = append(out, reading{lang, f})
	}
	switch {
	case len(errs) == len(a.langs):
		_, err := parseIn(a.langs[len(a.langs)-1], src)
		a.ask("", "", "cannot parse the command: "+err.Error())
	case len(errs) > 0:
		a.ask("", "", "the shell may read it as "+strings.Join(errs, "; "))
	case len(out) > 1 && !partial && !sameShape(out):
		a.ask("", "", "shells read this line differently ("+langNames(out)+"): a quote or comment ends in one and not in the other")
	}
	if a.kind == kindForeign && !plainLine.MatchString(src) {
		a.ask("", "", "the shell does not read sh syntax, which is all that can be judged")
	}
	return out
}

// plainLine is read alike by every shell: words of plain characters.
var plainLine = lazyRegexp(`^[A-Za-z0-9 \t._/=:,@+%-]*$`)

// parsedLines parses the whole lines before the one where parsing src
// failed: a shell runs each line as it reads it, so what comes before a
// syntax error runs (echo $'a\'; sudo ls + newline + a line dash cannot
// parse runs sudo in dash). nil when there is no such line.
func parsedLines(lang syntax.LangVariant, src string, err error) *syntax.File {
	var line uint
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		line = pe.Pos.Line()
	case errors.As(err, &le):
		line = le.Pos.Line()
	}
	if line < 2 {
		return nil
	}
	lines := strings.SplitAfter(src, "\n")
	f, perr := parseIn(lang, strings.Join(lines[:line-1], ""))
	if perr != nil {
		return nil
	}
	return f
}

func langNames(rs []reading) string {
	var names []string
	for _, r := range rs {
		names = append(names, r.lang.String())
	}
	return strings.Join(names, " and ")
}

// sameShape reports whether every reading splits the code into statements
// at the same places.
func sameShape(rs []reading) bool {
	first := shape(rs[0].file)
	for _, r := range rs[1:] {
		if !slices.Equal(first, shape(r.file)) {
			return false
		}
	}
	return true
}

// shape lists where each statement starts and ends.
func shape(f *syntax.File) []uint {
	var out []uint
	syntax.Walk(f, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok {
			out = append(out, s.Pos().Offset(), s.End().Offset())
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// zshQualifier finds a zsh glob qualifier: *(e:'code':) and *(+fn) run
// code for every file the glob matches.
var zshQualifier = lazyRegexp(`[*?\]]\)?\(`)

// zshWords asks about glob qualifiers in a zsh reading.
func (a *analyzer) zshWords(c cmd) {
	if a.lang != syntax.LangZsh {
		return
	}
	for _, w := range c.words {
		if zshQualifier.MatchString(w.raw) {
			a.ask(w.raw, c.text, "a zsh glob qualifier, which can run code")
		}
	}
}
