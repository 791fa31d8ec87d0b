package policy

import "strings"

// subTool describes a program whose first operands name what it does
// (git push, npm install, docker compose up), so that "always" can approve
// that and nothing more. The option lists are the program's global options,
// those that may come before the subcommand.
type subTool struct {
	args  string // options taking the next word as their value
	flags string // options standing alone
	// optional take a value only when the next word is a number (make -j 4).
	optional string
	// risky options change what the subcommand runs (git -c core.pager=...,
	// make -f other.mk): a command using one never matches an "always" entry.
	risky string
	depth int    // how many operands name the subcommand (aws s3 ls: 2); 0 means 1
	more  string // subcommands naming one more operand (npm run build, docker compose up)
	// tasks: every operand is part of what runs (make build test, mvn clean
	// deploy), so every one is remembered.
	tasks bool
	// toolchain: a leading +name picks a toolchain (cargo +nightly build).
	toolchain bool
}

const helpFlags = " -h --help -v --version -V "

var subTools = map[string]subTool{
	"git": {
		args: "-C -c --git-dir --work-tree --namespace --config-env --super-prefix --list-cmds",
		flags: "--no-pager -P -p --paginate --bare --no-replace-objects --literal-pathspecs --glob-pathspecs" +
			" --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-lazy-fetch --no-advice" +
			" --exec-path --html-path --man-path --info-path" + helpFlags,
		risky: "-c --config-env --exec-path",
		more:  "remote stash submodule worktree notes bisect lfs reflog sparse-checkout",
	},
	"npm": {
		args: "--prefix -w --workspace --userconfig --globalconfig --cache --registry --loglevel",
		flags: "-g --global -s --silent -q --quiet -d -dd -ddd --verbose --json -ws --workspaces" +
			" --include-workspace-root --no-color --color -y --yes --offline --prefer-offline" + helpFlags,
		risky: "--userconfig --globalconfig",
		more:  "run run-script rum urn exec x config cache dist-tag owner access token profile pkg team",
	},
	"npx": {
		args:  "-p --package -c --call --prefix --registry --cache --userconfig",
		flags: "-y --yes --no --no-install -q --quiet -s --silent" + helpFlags,
		risky: "-c --call --userconfig",
	},
	"pnpm": {
		args:  "-C --dir --filter -F --reporter --loglevel --workspace-dir",
		flags: "-r --recursive -w --workspace-root -s --silent --parallel --stream --no-color --color" + helpFlags,
		more:  "run exec dlx store env config",
	},
	"pnpx":  {args: "--package", flags: helpFlags},
	"yarn":  {args: "--cwd", flags: "-s --silent --verbose --offline --frozen-lockfile --no-progress" + helpFlags, more: "run dlx exec workspace config cache global"},
	"bun":   {args: "--cwd -c --config", flags: "--silent --bun --smol" + helpFlags, more: "run x pm"},
	"bunx":  {flags: "--bun" + helpFlags},
	"deno":  {flags: "-q --quiet --unstable" + helpFlags, more: "run task"},
	"cargo": {toolchain: true, args: "-C --config -Z --color", flags: "-vv --verbose -q --quiet --frozen --locked --offline --list" + helpFlags},
	"go":    {flags: helpFlags, more: "mod work tool env"},
	"rustup": {
		toolchain: true,
		flags:     "-q --quiet --verbose" + helpFlags,
		more:      "toolchain target component override self",
	},
	"docker": {
		args: "--context -c -H --host --config -l --log-level --tlscacert --tlscert --tlskey" +
			" -f --file -p --project-name --profile --env-file --project-directory --ansi --progress",
		flags: "-D --debug --tls --tlsverify --dry-run --compatibility --all-resources" + helpFlags,
		more: "compose container image network volume system builder buildx context plugin node service" +
			" stack swarm secret config trust manifest scout",
	},
	"docker-compose": {
		args:  "-f --file -p --project-name --profile --env-file --project-directory --ansi --progress",
		flags: "--verbose --no-ansi --compatibility --dry-run" + helpFlags,
	},
	"podman": {args: "--connection -c --url --root --runroot --log-level", flags: "--remote" + helpFlags,
		more: "compose container image network volume system pod machine secret manifest"},
	"kubectl": {
		args: "-n --namespace --context --cluster --user --kubeconfig -s --server --token" +
			" --as --as-group --as-uid --request-timeout --cache-dir -v",
		flags: "--insecure-skip-tls-verify -h --help",
		more:  "config rollout auth certificate plugin",
	},
	"helm": {
		args:  "-n --namespace --kube-context --kubeconfig --registry-config --repository-cache --repository-config",
		flags: "--debug" + helpFlags,
		more:  "repo plugin registry dependency",
	},
	"terraform": {flags: "-help -version" + helpFlags, more: "state workspace providers"},
	"tofu":      {flags: "-help -version" + helpFlags, more: "state workspace providers"},
	"gh": {
		flags: helpFlags,
		more: "pr issue repo release run workflow gist auth secret variable label codespace cache" +
			" extension project ssh-key gpg-key org ruleset config alias attestation",
	},
	"pip": {
		args: "--python --log --proxy --cache-dir --cert --client-cert --retries --timeout --exists-action" +
			" --trusted-host --index-url -i --extra-index-url",
		flags: "--verbose -q --quiet --isolated --no-cache-dir --disable-pip-version-check --no-input" +
			" --require-virtualenv --no-color --user" + helpFlags,
		more: "cache config",
	},
	"poetry": {
		args:  "-C --directory -P --project",
		flags: "-q --quiet -vv -vvv --verbose -n --no-interaction --no-ansi --ansi --no-plugins --no-cache" + helpFlags,
		more:  "run cache config env self source debug",
	},
	"uv": {
		args:  "--directory --project --cache-dir --config-file --color",
		flags: "-q --quiet --verbose --offline --no-cache --native-tls --no-progress --preview" + helpFlags,
		more:  "run pip tool python cache self",
	},
	"pipx":     {flags: "--verbose -q --quiet" + helpFlags, more: "run"},
	"composer": {args: "-d --working-dir", flags: "-q --quiet --verbose -n --no-interaction --ansi --no-ansi" + helpFlags, more: "run-script run exec global config"},
	"bundle":   {flags: "--verbose --no-color" + helpFlags, more: "exec"},
	"gem":      {flags: helpFlags},
	"dotnet":   {flags: "--info -d --diagnostics" + helpFlags, more: "tool workload nuget sln"},
	"brew":     {flags: "-d --debug -q --quiet --verbose" + helpFlags, more: "services bundle"},
	"apt":      {args: "-o -c -t", flags: "-y --yes -q -qq --quiet -s --simulate" + helpFlags},
	"apt-get":  {args: "-o -c -t", flags: "-y --yes -q -qq --quiet -s --simulate" + helpFlags},
	"systemctl": {
		args:  "-H --host -M --machine -t --type -p --property",
		flags: "--user --system -q --quiet --no-pager -a --all --now" + helpFlags,
	},
	"aws":    {args: "--profile --region --output --endpoint-url --query --color --cli-read-timeout", flags: "--debug --no-paginate --no-verify-ssl --no-cli-pager" + helpFlags, depth: 2},
	"gcloud": {args: "--project --account --configuration --format --verbosity --impersonate-service-account", flags: "-q --quiet" + helpFlags, depth: 3},
	"az":     {args: "--subscription -o --output --query", flags: "--debug --only-show-errors --verbose" + helpFlags, depth: 3},
	"make": {
		args: "-C --directory -f --file --makefile -I --include-dir -o --old-file --assume-old" +
			" -W --what-if --new-file --assume-new --eval",
		flags: "-s --silent --quiet -k --keep-going -S --no-keep-going -n --dry-run --just-print --recon" +
			" -B --always-make -i --ignore-errors -e --environment-overrides -r -R -w --print-directory" +
			" --no-print-directory -q --question -d -p --print-data-base" + helpFlags,
		optional: "-j --jobs -l --load-average",
		risky:    "-f --file --makefile -I --include-dir --eval -e --environment-overrides",
		tasks:    true,
	},
	"gradle": {
		args: "-p --project-dir -b --build-file -c --settings-file -g --gradle-user-home -x --exclude-task" +
			" --console --warning-mode -I --init-script",
		flags: "-q --quiet -i --info -d --debug -s --stacktrace -S --full-stacktrace --offline --no-daemon" +
			" --daemon --parallel --scan --build-cache --continue -w --warn" + helpFlags,
		risky: "-b --build-file -c --settings-file -I --init-script",
		tasks: true,
	},
	"mvn": {
		args: "-f --file -pl --projects -P --activate-profiles -s --settings -gs --global-settings" +
			" -T --threads -rf --resume-from",
		flags: "-q --quiet -B --batch-mode -o --offline -U --update-snapshots -e --errors -X --debug" +
			" -am --also-make -amd --also-make-dependents -N --non-recursive -ntp --no-transfer-progress" + helpFlags,
		risky: "-f --file -s --settings -gs --global-settings",
		tasks: true,
	},
	"rake": {args: "-f --rakefile -C --directory -I --libdir", flags: "-q --quiet -s --silent -t --trace" + helpFlags,
		risky: "-f --rakefile -I --libdir", tasks: true},
	"just": {args: "-f --justfile -d --working-directory", flags: "-q --quiet -n --dry-run -v --verbose" + helpFlags,
		risky: "-f --justfile", tasks: true},
}

func init() {
	// The same programs under their other names.
	for alias, name := range map[string]string{"pip3": "pip", "gradlew": "gradle", "mvnw": "mvn",
		"gmake": "make", "yarnpkg": "yarn", "kubecolor": "kubectl", "opentofu": "tofu"} {
		subTools[alias] = subTools[name]
	}
}

// commandKey is what "always" remembers of a simple command: its name and,
// for a subTool, the operands naming its subcommand, past global options
// (git -C dir status is git status). exact is false when the key cannot be
// trusted to say what runs: a word that cannot be known, an option the
// table does not know (it might take the next word as its value), or a
// risky option.
func commandKey(ws []word) (key []string, exact bool) {
	if len(ws) == 0 || !ws[0].known || ws[0].glob {
		return nil, false
	}
	tool, ok := subTools[cmdBase(ws[0].text)]
	if !ok {
		return []string{ws[0].text}, true
	}
	return tool.key(ws)
}

func (t subTool) key(ws []word) ([]string, bool) {
	key, exact := []string{ws[0].text}, true
	var opts []string
	want := max(t.depth, 1)
	for i := 1; i < len(ws) && (t.tasks || len(key) <= want); i++ {
		w := ws[i]
		switch {
		case !w.known || w.glob || strings.ContainsAny(w.text, " \t\n"):
			return nil, false
		case w.text == "--":
		case strings.HasPrefix(w.text, "-") && len(w.text) > 1,
			t.toolchain && len(key) == 1 && strings.HasPrefix(w.text, "+"):
			skip, ok := t.option(w.text, ws[i+1:])
			exact = exact && ok
			opts = append(opts, w.text)
			i += skip
		default:
			key = append(key, w.text)
			if len(key) == 2 && hasField(t.more, w.text) {
				want++
			}
		}
	}
	if len(key) == 1 {
		// No subcommand: git --version is remembered as itself.
		key = append(key, opts...)
	}
	return key, exact
}

// option says how many of the following words an option uses, and whether
// the option is known and harmless.
func (t subTool) option(opt string, next []word) (int, bool) {
	name, _, hasValue := strings.Cut(opt, "=")
	short := ""
	if len(name) > 2 && name[1] != '-' {
		short = name[:2] // a value stuck to a short option: -Cdir, -j4
	}
	switch {
	case hasField(t.risky, name) || short != "" && hasField(t.risky, short):
		return t.valueWords(name, hasValue), false
	case hasField(t.args, name):
		return t.valueWords(name, hasValue), true
	case hasField(t.optional, name):
		if !hasValue && len(next) > 0 && isNumber(next[0].text) {
			return 1, true
		}
		return 0, true
	case hasField(t.flags, name), strings.HasPrefix(opt, "+"):
		return 0, true
	case short != "" && (hasField(t.args, short) || hasField(t.optional, short)):
		return 0, true
	case t.tasks && strings.HasPrefix(name, "-D"):
		return 0, true // mvn -Dskip=true, gradle -Dorg.gradle.x=y
	}
	return 0, false
}

func (t subTool) valueWords(name string, hasValue bool) int {
	if hasValue || !hasField(t.args, name) {
		return 0
	}
	return 1
}

func isNumber(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
