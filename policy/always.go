package policy

import (
	"mvdan.cc/sh/v3/syntax"
)

// AlwaysName returns the name "always" persists for command: the resolved
// name of its first simple command, past wrappers (timeout 60 npm test gives
// npm; cd and other builtins are skipped). It returns "" when there is none or it cannot be known.
func AlwaysName(command string) string {
	f, err := parse(command)
	if err != nil {
		return ""
	}
	a := &analyzer{r: &report{}, env: &shellEnv{vars: map[string]string{}}, src: command}
	name := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		s, ok := n.(*syntax.Stmt)
		if !ok || name != "" {
			return name == ""
		}
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		ch := a.chain(a.newCmd(s, call))
		last := ch[len(ch)-1]
		switch {
		case len(last.words) > 0 && builtinsAllowed[last.words[0].text]:
			return true // "cd web && npm test" is about npm
		case len(last.words) > 0 && last.words[0].known && last.words[0].text != "":
			name = last.words[0].text
		default:
			name = "-"
		}
		return false
	})
	if name == "-" {
		return ""
	}
	return name
}
