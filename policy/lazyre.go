package policy

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled at its first use. Compiled at
// package initialisation, the policy's expressions were paid for by every
// process the binary starts, the sandbox's trampoline before each command
// included, which never judges a line.
type lazyRE struct {
	expr string
	re   func() *regexp.Regexp
}

// lazyREs are every lazyRE, so that a test compiles them all.
var lazyREs []*lazyRE

func lazyRegexp(expr string) *lazyRE {
	l := &lazyRE{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	lazyREs = append(lazyREs, l)
	return l
}

func (l *lazyRE) MatchString(s string) bool { return l.re().MatchString(s) }

func (l *lazyRE) FindStringSubmatch(s string) []string { return l.re().FindStringSubmatch(s) }

func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}

func (l *lazyRE) ReplaceAllString(src, repl string) string { return l.re().ReplaceAllString(src, repl) }
