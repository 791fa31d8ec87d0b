package policy

import (
	"sort"
	"strings"
)

// harmlessVars may be set for an allowed command, in front of it or in the
// request's env: they change how output looks or which of a program's own
// modes it runs in, never what runs or what it loads. Everything else
// (PATH, LD_PRELOAD, BASH_ENV, GIT_CONFIG_*, NODE_OPTIONS, PYTHONPATH,
// EDITOR, HOME, BASH_FUNC_*, the rm shim's TERMHELPER_* ...) is asked
// about: the list of variables that make a program run something else is
// open, so only known harmless ones pass.
var harmlessVars = map[string]bool{
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "COLUMNS": true,
	"LINES": true, "NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true,
	"CLICOLOR_FORCE": true, "COLORTERM": true, "GREP_COLOR": true,
	"GREP_COLORS": true, "LS_COLORS": true, "TIME_STYLE": true,
	"POSIXLY_CORRECT": true, "BLOCK_SIZE": true, "BLOCKSIZE": true,
	"DF_BLOCK_SIZE": true, "DU_BLOCK_SIZE": true, "QUOTING_STYLE": true,
	"TABSIZE": true,
	// Modes and switches that programs only read as data.
	"CI": true, "NODE_ENV": true, "RAILS_ENV": true, "RACK_ENV": true, "APP_ENV": true,
	"MIX_ENV": true, "DEBUG": true, "RUST_BACKTRACE": true, "RUST_LOG": true,
	"CARGO_TERM_COLOR": true, "GOOS": true, "GOARCH": true, "CGO_ENABLED": true,
	"PYTHONUNBUFFERED": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONIOENCODING": true,
	"PYTHONHASHSEED": true, "PYTHONUTF8": true, "NODE_NO_WARNINGS": true,
	"GIT_TERMINAL_PROMPT": true, "DEBIAN_FRONTEND": true, "HOMEBREW_NO_AUTO_UPDATE": true,
	"HOMEBREW_NO_ANALYTICS": true, "NO_UPDATE_NOTIFIER": true, "NEXT_TELEMETRY_DISABLED": true,
	"DO_NOT_TRACK": true, "PORT": true, "PIP_DISABLE_PIP_VERSION_CHECK": true,
	"PIP_NO_INPUT": true, "NPM_CONFIG_FUND": true, "NPM_CONFIG_AUDIT": true,
	"NPM_CONFIG_UPDATE_NOTIFIER": true, "NPM_CONFIG_LOGLEVEL": true,
}

// pagerVars name the program that shows long output; set to cat (or
// nothing) they only keep a pager from waiting for keys.
var pagerVars = map[string]bool{"PAGER": true, "GIT_PAGER": true, "MANPAGER": true,
	"SYSTEMD_PAGER": true, "BAT_PAGER": true, "AWS_PAGER": true, "PSQL_PAGER": true}

// harmlessVar reports whether setting name to value leaves what runs
// unchanged. Names are compared in upper case: Windows reads Path as PATH.
func harmlessVar(name, value string) bool {
	n := strings.ToUpper(name)
	switch {
	case harmlessVars[n], strings.HasPrefix(n, "LC_"):
		return true
	case pagerVars[n]:
		return value == "" || value == "cat"
	}
	return false
}

// judgeEnv asks about the request's own variables as about assignments in
// front of the line: in MCP the model writes that env.
func (p *Policy) judgeEnv(r *report, env map[string]*string) {
	for _, name := range sortedNames(env) {
		value, verb := "", "unsets "
		if v := env[name]; v != nil {
			value, verb = *v, "sets "
		}
		if !harmlessVar(name, value) {
			r.note(askSoft, name, "", "the request's env "+verb+name+", which can change what commands run or load")
		}
	}
}

func sortedNames(env map[string]*string) []string {
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
