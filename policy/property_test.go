package policy

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
)

// deniedSimple are simple commands that are denied on their own.
var deniedSimple = []string{
	"sudo ls", "s''udo id", `\sudo ls`, `"sudo" ls`, "doas ls", "su root",
	"rm -rf /", "rm -rf ~", "rm -rf $HOME", "rm -rf ..", "rm -rf .", "rm -rf *",
	"mkfs.ext4 /dev/sda1", "dd if=x of=/dev/sda", "chmod -R 777 /", "pkill termhelper",
	"killall code", "kill -9 $PPID", "find / -delete", `find . -exec rm -rf / \;`,
	"tee .ssh/authorized_keys", "cp a .env.local", "shutdown now", "mv .env x",
	"truncate -s 0 .env", "$'\\x73udo' ls", "{sudo,ls}",
}

var fillers = []string{"ls", "echo hi", "cat x", "grep y z", "pwd", "date", "wc -l f"}

// composer builds random shell around a denied command.
type composer struct{ r *rand.Rand }

func (c composer) pick(list []string) string { return list[c.r.IntN(len(list))] }

// wrap puts expr (a simple command when simple is true) inside one random
// construct and reports whether the result is still a simple command.
func (c composer) wrap(expr string, simple bool) (string, bool) {
	other := c.pick(fillers)
	if simple && c.r.IntN(3) == 0 {
		w := c.pick([]string{"env X=1 ", "command ", "nice -n 5 ", "timeout 5 ", "nohup ",
			"xargs ", "stdbuf -oL ", "time ", "env -i ", "exec ", "setsid ", "nice "})
		return w + expr, w != "time "
	}
	forms := []func() string{
		func() string { return expr + " | " + other },
		func() string { return other + " | " + expr },
		func() string { return other + "; " + expr },
		func() string { return expr + " && " + other },
		func() string { return other + " || " + expr },
		func() string { return "( " + expr + " )" },
		func() string { return "{ " + expr + "; }" },
		func() string { return "echo $( " + expr + " )" },
		func() string { return `echo "$( ` + expr + ` )"` },
		func() string { return "cat <( " + expr + " )" },
		func() string { return other + " | tee >( " + expr + " )" },
		func() string { return "bash -c " + shQuote(expr) },
		func() string { return "sh -c " + shQuote(expr) },
		func() string { return "eval " + shQuote(expr) },
		func() string { return "if " + other + "; then " + expr + "; fi" },
		func() string { return "for i in 1 2; do " + expr + "; done" },
		func() string { return "while " + expr + "; do :; done" },
		func() string { return "f() { " + expr + "; }; f" },
		func() string { return "{ " + expr + " & }" },
		func() string { return "{ ! " + expr + "; }" },
		func() string { return other + "\n" + expr },
	}
	if !strings.Contains(expr, "`") {
		forms = append(forms, func() string { return "echo `" + expr + "`" })
	}
	return forms[c.r.IntN(len(forms))](), false
}

// shQuote quotes s as one single-quoted shell word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestDeniedNeverAllowed: a line that contains a denied simple command,
// however it is composed, is denied: never allowed, never merely asked.
func TestDeniedNeverAllowed(t *testing.T) {
	p := testPolicy(t, config.Default())
	c := composer{rand.New(rand.NewPCG(1, 2))}
	n := 4000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n; i++ {
		expr, simple := c.pick(deniedSimple), true
		for d := c.r.IntN(4); d >= 0; d-- {
			expr, simple = c.wrap(expr, simple)
		}
		if c.r.IntN(8) == 0 && !strings.Contains(expr, "EOF") {
			expr = "bash <<'EOF'\n" + expr + "\nEOF"
		}
		if v := p.Check(expr, true); v.Decision != Deny {
			t.Fatalf("%q: got %s %q, want deny", expr, v.Decision, v.Reasons)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range append(append([]string{}, deniedSimple...), fillers...) {
		f.Add(s)
	}
	p := testPolicy(f, config.Default())
	f.Fuzz(func(t *testing.T, s string) {
		v := p.Check(s, true)
		if v.Decision != Allow && len(v.Reasons) == 0 {
			t.Fatalf("%q: %s without a reason", s, v.Decision)
		}
		if v.Decision == Allow && strings.HasPrefix(s, "sudo ") {
			t.Fatalf("%q: allowed although it runs sudo", s)
		}
	})
}
