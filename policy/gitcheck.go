package policy

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// An entry such as "git diff" or "git log" is meant for a look at the
// repository. git can also write files (--output), run commands
// (grep -O, --upload-pack, rebase --exec, submodule foreach, bisect run,
// -c core.pager=...), read files outside the repository (diff
// --no-index), and run what the repository's own config names
// (core.fsmonitor, diff.external, a textconv driver): a repository can
// ship a bare repository whose config does, and cd into it is enough.

func init() { writeChecks["git"] = gitWrites }

// gitRunners are options that make git run a command or write a file,
// wherever they stand.
var gitRunners = map[string]string{
	"--output": "writes its output to a file", "--output-directory": "writes its output to files",
	"--open-files-in-pager": "runs a program on the files it finds", "--upload-pack": "runs a command",
	"--receive-pack": "runs a command", "--exec": "runs a command", "--extcmd": "runs a command",
	"--config":     "sets git configuration, which can run commands",
	"--config-env": "sets git configuration, which can run commands",
	"--exec-path":  "runs git programs from another folder",
}

// gitRunning are subcommands that run a command they are given.
var gitRunning = map[string]string{"filter-branch": "", "filter-repo": "", "submodule": "foreach",
	"bisect": "run", "rebase": "-x --exec", "difftool": "-x --extcmd", "daemon": "", "instaweb": ""}

// gitWrites finds the options and subcommands by which git writes a file
// or runs a command.
func gitWrites(c cmd) (string, string) {
	ws := c.words[1:]
	sub, at := gitSubcommand(ws)
	for i, w := range ws {
		if i < at && (w.text == "-c" || strings.HasPrefix(w.text, "-c") && len(w.text) > 2) {
			return w.raw, "sets git configuration, which can run commands"
		}
		if name := longName(w.text, gitRunnerNames); name != "" && (name != "--exec-path" || strings.Contains(w.text, "=")) {
			return w.raw, gitRunners[name]
		}
		if sub == "grep" && i > at && (w.text == "-O" || strings.HasPrefix(w.text, "-O")) {
			return w.raw, "runs a program on the files it finds"
		}
	}
	if run, ok := gitRunning[sub]; ok && (run == "" || gitHasAny(ws[at+1:], run)) {
		return ws[at].raw, "git " + sub + " runs commands"
	}
	return "", ""
}

// gitRunnerNames lists gitRunners' options, for resolving an abbreviation
// among all of them (--outp is --output).
const gitRunnerNames = "--output --output-directory --open-files-in-pager --upload-pack --receive-pack --exec" +
	" --extcmd --config --config-env --exec-path"

func gitHasAny(ws []word, opts string) bool {
	for _, w := range ws {
		if hasField(opts, w.text) || hasField(opts, strings.SplitN(w.text, "=", 2)[0]) {
			return true
		}
	}
	return false
}

// gitSubcommand finds git's subcommand past its global options, and its
// index among ws (len(ws) when there is none).
func gitSubcommand(ws []word) (string, int) {
	for i := 0; i < len(ws); i++ {
		t := ws[i].text
		switch {
		case hasField("-C -c --git-dir --work-tree --namespace --config-env --super-prefix", t):
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return t, i
		}
	}
	return "", len(ws)
}

// gitRule judges what git reads (diff --no-index A B, grep --untracked,
// show HEAD:.env) and the repository's own config.
func gitRule(a *analyzer, c cmd) {
	ws := c.words[1:]
	sub, at := gitSubcommand(ws)
	if at >= len(ws) {
		return
	}
	a.gitReads(c, sub, ws[at+1:])
	if a.env.cwd == "" {
		return
	}
	if key := a.p.gitConfigRuns(a.env.cwd, sub); key != "" {
		a.askSoft(c.words[0].raw, c.text, "the repository's git config sets "+key+", which runs a command")
	}
	if sub == "config" || sub == "remote" {
		if gd := gitDir(filepath.FromSlash(kernelPath("", a.env.cwd))); gd != "" && gitCredentials(filepath.Join(gd, "config")) {
			a.askSecret(c.words[0].raw, c.text, "shows the repository's config, which holds a credential")
		}
	}
}

// gitReads judges the files a git command reads: the operands of diff
// --no-index, the folder grep --untracked or --no-index searches, and a
// protected path named as a path or in REV:PATH.
func (a *analyzer) gitReads(c cmd, sub string, ws []word) {
	noIndex := gitHasAny(ws, "--no-index --untracked")
	for _, w := range ws {
		p := w
		if _, after, ok := strings.Cut(w.text, ":"); ok && !strings.HasPrefix(w.text, "-") {
			p.text = after
		}
		switch {
		case strings.HasPrefix(w.text, "-"):
		case sub == "diff" && noIndex:
			a.readPath(w, w.raw, c.text, readArgs{})
		case a.p.readProtect.match(p.text, a.env.cwd) != "":
			a.askSecret(w.raw, c.text, "reads a protected path through git: "+a.p.readProtect.match(p.text, a.env.cwd))
		}
	}
	if sub == "grep" && noIndex {
		a.readPath(word{raw: ".", text: ".", known: true}, "git grep", c.text, readArgs{recursive: true, content: true})
	}
}

// gitReadOnly are subcommands that only look at the repository: the
// config keys that matter to them are those that run on every read.
const gitReadOnly = " status diff log show grep blame shortlog ls-files ls-tree rev-parse describe cat-file" +
	" rev-list reflog whatchanged show-ref for-each-ref branch tag remote config help version "

// gitKeysAlways run a command when git reads the repository; gitKeysOther
// when it changes it, talks to a remote or asks for an editor. A * stands
// for any name of a driver, remote or the like.
var (
	gitKeysAlways = []string{"core.fsmonitor", "diff.external", "diff.*.textconv", "diff.*.command",
		"filter.*.clean", "filter.*.smudge", "filter.*.process", "include.path", "includeif.*.path",
		"core.alternaterefscommand", "gpg.program", "gpg.*.program"}
	gitKeysOther = []string{"core.hookspath", "core.sshcommand", "core.askpass", "core.editor", "core.gitproxy",
		"sequence.editor", "credential.helper", "credential.*.helper", "merge.*.driver", "remote.*.uploadpack",
		"remote.*.receivepack", "uploadpack.packobjectshook", "submodule.*.update"}
)

// gitConfigRuns returns the key of the config of the repository git
// finds from dir that makes git subcommand sub run a command, or "". Only
// the repository's own config counts: the user's global one is theirs.
func (p *Policy) gitConfigRuns(dir, sub string) string {
	gd := gitDir(filepath.FromSlash(kernelPath("", dir)))
	if gd == "" {
		return ""
	}
	keys := gitKeysAlways
	if !strings.Contains(gitReadOnly, " "+sub+" ") {
		keys = append(append([]string(nil), keys...), gitKeysOther...)
	}
	for _, name := range []string{"config", "config.worktree"} {
		for _, kv := range gitConfig(filepath.Join(gd, name)) {
			if gitKeyRuns(kv, keys, sub) {
				return kv[0]
			}
		}
	}
	return ""
}

// gitKeyRuns reports a config entry that runs a command: one of keys
// (core.fsmonitor only when it names a program, submodule.*.update only
// with !command), or an alias of sub that is a shell command.
func gitKeyRuns(kv [2]string, keys []string, sub string) bool {
	key, val := kv[0], strings.ToLower(strings.TrimSpace(kv[1]))
	switch {
	case key == "alias."+strings.ToLower(sub):
		return strings.HasPrefix(val, "!")
	case key == "core.fsmonitor" && hasField("true false yes no on off 1 0", val):
		return false
	case path.Base(key) == "update" && strings.HasPrefix(key, "submodule.") && !strings.HasPrefix(val, "!"):
		return false
	}
	for _, k := range keys {
		if ok, _ := path.Match(strings.ReplaceAll(k, ".", "/"), strings.ReplaceAll(key, ".", "/")); ok {
			return true
		}
	}
	return false
}

// gitDir finds the repository git uses from dir, as git discovers it: a
// .git folder or file in dir or a folder above, or dir itself (or a
// folder above) being a bare repository.
func gitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		if isGitDir(dotGit) {
			return dotGit
		}
		if b, err := os.ReadFile(dotGit); err == nil {
			if target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
				if !filepath.IsAbs(target) {
					target = filepath.Join(d, target)
				}
				return target
			}
		}
		if isGitDir(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// isGitDir reports a folder that holds a repository: HEAD, objects, refs.
func isGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// gitConfig reads a git config file into keys (section[.subsection].name,
// in lower case) and values. A file that cannot be read has none.
func gitConfig(file string) [][2]string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = gitSection(line)
		default:
			name, val, _ := strings.Cut(line, "=")
			out = append(out, [2]string{section + "." + strings.ToLower(strings.TrimSpace(name)), val})
		}
	}
	return out
}

// gitSection names a section header: [diff "x"] is diff.x, [Core] core.
func gitSection(line string) string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "["), "]")
	if i := strings.IndexByte(line, ']'); i >= 0 {
		line = line[:i]
	}
	name, sub, ok := strings.Cut(line, " ")
	if !ok {
		return strings.ToLower(line)
	}
	return strings.ToLower(name) + "." + strings.ToLower(strings.Trim(strings.TrimSpace(sub), `"`))
}

// gitCredentials reports a repository config that holds a credential: a
// header with a token (actions/checkout leaves http.*.extraheader =
// AUTHORIZATION: basic ...), a remote URL with a password or token in it,
// or a credential section.
func gitCredentials(file string) bool {
	for _, kv := range gitConfig(file) {
		key, val := kv[0], strings.TrimSpace(kv[1])
		switch {
		case strings.HasSuffix(key, ".extraheader"), strings.HasPrefix(key, "credential."):
			return true
		case strings.HasSuffix(key, ".url") || strings.HasSuffix(key, ".pushurl"):
			if _, rest, ok := strings.Cut(val, "://"); ok && strings.Contains(strings.SplitN(rest, "/", 2)[0], "@") {
				return true
			}
		}
	}
	return false
}

// isGitConfig reports a path that is a repository's config file.
func isGitConfig(p string) bool {
	return path.Base(p) == "config" && (path.Base(path.Dir(p)) == ".git" || strings.HasSuffix(path.Dir(p), ".git"))
}
