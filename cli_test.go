package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

var singleDash = regexp.MustCompile(`\n +-[a-z]`)

func TestHelpShowsTheHostFlagsOnly(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"--root", "/x", "--help"}} {
		inv, err := parseArgs(args)
		if err != nil || inv.mode != modeHelp {
			t.Fatalf("%q: mode %d, err %v; want the help", args, inv.mode, err)
		}
		for _, want := range []string{"--root DIR", "--config FILE", "--framing MODE", "--log-level LEVEL", "--mcp", "--version", "termhelper mcp", "termhelper run"} {
			if !strings.Contains(inv.usage, want) {
				t.Errorf("%q: the help lacks %q:\n%s", args, want, inv.usage)
			}
		}
		if singleDash.MatchString(inv.usage) {
			t.Errorf("%q: a flag in the -flag form:\n%s", args, inv.usage)
		}
		for _, internal := range []string{"cpuprofile", "__loginenv", "__sandbox"} {
			if strings.Contains(inv.usage, internal) {
				t.Errorf("%q: the help shows %q:\n%s", args, internal, inv.usage)
			}
		}
	}
}

func TestRunHelp(t *testing.T) {
	inv, err := parseArgs([]string{"run", "--help"})
	if err != nil || inv.mode != modeHelp || !strings.Contains(inv.usage, "termhelper run [flags] -- COMMAND") {
		t.Fatalf("mode %d, err %v, usage:\n%s", inv.mode, err, inv.usage)
	}
	if strings.Contains(inv.usage, "--mcp") || strings.Contains(inv.usage, "--framing") {
		t.Errorf("run's help names the server's flags:\n%s", inv.usage)
	}
}

func TestStrayArgumentsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"serve"}, {"--root", "/x", "mcp"}, {"--mcp", "extra"}, {"mcp", "extra"}, {"--bogus"}, {"--root"}, {"run"}, {"run", "--"}, {"mcp", "--framing", "lsp"}} {
		_, err := parseArgs(args)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: err %v, want a usage error", args, err)
			continue
		}
		if !strings.Contains(ue.usage, "usage:") || strings.Contains(ue.msg, " -bogus") {
			t.Errorf("%q: message %q, usage %q", args, ue.msg, ue.usage)
		}
	}
}

func TestModes(t *testing.T) {
	cases := []struct {
		args []string
		mode mode
		root string
	}{
		{nil, modeNative, ""},
		{[]string{"--root", "/p", "--framing", "lsp"}, modeNative, "/p"},
		{[]string{"--mcp", "--root", "/p"}, modeMCP, "/p"},
		{[]string{"mcp", "--root", "/p"}, modeMCP, "/p"},
		{[]string{"-root=/p", "--cpuprofile", "/tmp/x"}, modeNative, "/p"},
		{[]string{"--version"}, modeVersion, ""},
		{[]string{"run", "--root", "/p", "--", "ls", "-la"}, modeRun, "/p"},
	}
	for _, c := range cases {
		inv, err := parseArgs(c.args)
		if err != nil || inv.mode != c.mode || inv.f.root != c.root {
			t.Errorf("%q: mode %d root %q err %v; want mode %d root %q", c.args, inv.mode, inv.f.root, err, c.mode, c.root)
		}
		if c.mode == modeMCP && !inv.f.mcp {
			t.Errorf("%q: MCP mode without the mcp flag set", c.args)
		}
	}
	inv, _ := parseArgs([]string{"run", "--", "ls", "-la"})
	if inv.command != "ls -la" {
		t.Errorf("run's command is %q", inv.command)
	}
}
