package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// mode is what a command line asks termhelper to do.
type mode int

const (
	modeNative mode = iota // the native JSON-RPC protocol on stdio
	modeMCP                // the Model Context Protocol on stdio
	modeRun                // termhelper run -- COMMAND
	modeHelp
	modeVersion
)

// flags are shared by the server and the run subcommand.
type flags struct {
	root, config, framing, logLevel string
	cpuprofile                      string
	mcp                             bool
	persist                         time.Duration // --persist: 0 unless given
}

// invocation is a parsed command line.
type invocation struct {
	mode    mode
	f       flags
	command string // modeRun: the command line
	usage   string // modeHelp: the help to print
}

// usageError is a command line that makes no sense: exit 2, with the usage.
type usageError struct{ msg, usage string }

func (e *usageError) Error() string { return e.msg }

// hidden flags are for the project's own tools (make bench), not for hosts.
var hidden = map[string]bool{"cpuprofile": true}

const serverUsage = `termhelper runs shell commands for AI tools: on real terminals, inside one
project, with output a model can read.

usage:
  termhelper [flags]                 serve JSON-RPC 2.0 on stdin/stdout (the native protocol)
  termhelper --mcp [flags]           serve the Model Context Protocol on stdin/stdout
  termhelper mcp [flags]             the same as --mcp
  termhelper run [flags] -- COMMAND  run one command, print its output, exit with its code
  termhelper --version               print the version
  termhelper --help                  print this help

flags:
%s
The protocol: docs/protocol.md in the repository.
`

const runUsage = `usage: termhelper run [flags] -- COMMAND

Runs COMMAND as the server would (same policy, terminal and output
cleaning), prints its cleaned output and a summary line, and exits with its
exit code. It does not answer prompts: a command that waits for input is
ended.

flags:
%s`

// parseArgs reads a command line (without the program name).
func parseArgs(args []string) (invocation, error) {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			return parseRun(args[1:])
		case "mcp":
			return parseServer(args[1:], true)
		case "help":
			return parseServer([]string{"--help"}, false)
		}
	}
	return parseServer(args, false)
}

func parseServer(args []string, mcp bool) (invocation, error) {
	inv := invocation{mode: modeNative}
	fs := newFlagSet("termhelper", &inv.f)
	fs.StringVar(&inv.f.cpuprofile, "cpuprofile", "", "write a CPU profile to this `FILE` until the helper exits")
	if !mcp {
		fs.BoolVar(&inv.f.mcp, "mcp", false, "serve the Model Context Protocol (the terminal tool) instead of the native one")
		fs.StringVar(&inv.f.framing, "framing", "auto", "`MODE`: auto (from the first byte), lsp (Content-Length headers) or ndjson")
	}
	fs.DurationVar(&inv.f.persist, "persist", 0, "keep the sessions in a background helper for this user and root, for `DURATION` (e.g. 10m) after the last connection is gone; a new one attaches to them (config persist)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	usage := fmt.Sprintf(serverUsage, flagList(fs))
	if err := parse(fs, args, usage); err != nil {
		return helpOr(err, usage)
	}
	if fs.NArg() > 0 {
		return inv, &usageError{fmt.Sprintf("unexpected argument %q (subcommands come first: termhelper mcp, termhelper run)", fs.Arg(0)), usage}
	}
	if inv.f.persist < 0 {
		return inv, &usageError{"--persist must be a duration above zero, such as 10m", usage}
	}
	switch {
	case *showVersion:
		inv.mode = modeVersion
	case mcp || inv.f.mcp:
		inv.mode, inv.f.mcp = modeMCP, true
	}
	return inv, nil
}

func parseRun(args []string) (invocation, error) {
	inv := invocation{mode: modeRun}
	fs := newFlagSet("termhelper run", &inv.f)
	usage := fmt.Sprintf(runUsage, flagList(fs))
	if err := parse(fs, args, usage); err != nil {
		return helpOr(err, usage)
	}
	inv.command = strings.Join(fs.Args(), " ")
	if strings.TrimSpace(inv.command) == "" {
		return inv, &usageError{"no command to run", usage}
	}
	return inv, nil
}

// newFlagSet has the flags every mode takes; it prints nothing itself.
func newFlagSet(name string, f *flags) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&f.root, "root", "", "the project root `DIR`; every command runs inside it (default: the current directory)")
	fs.StringVar(&f.config, "config", "", "the user's TOML config `FILE` (default: config.toml in the user's config folder); the root's .termhelper.toml goes over it and may only narrow it")
	fs.StringVar(&f.logLevel, "log-level", "warn", "`LEVEL` of the log on stderr: debug, info, warn or error")
	return fs
}

func parse(fs *flag.FlagSet, args []string, usage string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		// The flag package names flags with one dash; hosts and the
		// README use two.
		return &usageError{strings.Replace(err.Error(), ": -", ": --", 1), usage}
	}
	return err
}

// helpOr turns --help into modeHelp; any other error stands.
func helpOr(err error, usage string) (invocation, error) {
	if errors.Is(err, flag.ErrHelp) {
		return invocation{mode: modeHelp, usage: usage}, nil
	}
	return invocation{}, err
}

// flagList is the visible flags in the --flag form the README uses.
func flagList(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(fl *flag.Flag) {
		if hidden[fl.Name] {
			return
		}
		arg, usage := flag.UnquoteUsage(fl)
		head := "--" + fl.Name
		if arg != "" {
			head += " " + arg
		}
		fmt.Fprintf(&b, "  %-20s %s", head, usage)
		if fl.DefValue != "" && fl.DefValue != "false" {
			fmt.Fprintf(&b, " (default %s)", fl.DefValue)
		}
		b.WriteString("\n")
	})
	return b.String()
}
