package policy

import (
	"strings"
)

// Some commands do what they are for only outside the sandbox: they send
// work to another machine with the user's own credentials (keys, tokens,
// cloud logins), which the sandbox hides and its network rules refuse. A
// line holding one is marked Leaves: confined, it is asked about with every
// reason, and once approved it runs unconfined.

// Reasons a command leaves the sandbox.
const (
	whyRemote  = "leaves the sandbox: it logs in to another machine with the user's keys"
	whyPublish = "leaves the sandbox: it publishes with the user's credentials"
	whyDeploy  = "leaves the sandbox: it changes a deployment or a cloud account with the user's credentials"
	whyForge   = "leaves the sandbox: it writes to the code host with the user's credentials"
)

// leaveRule says why a simple command leaves the sandbox, or "". key is
// the command's commandKey (git push, kubectl apply, aws s3 cp), ws all of
// its words.
type leaveRule func(key []string, ws []word) string

// leaving maps a program's base name to its rule.
var leaving = map[string]leaveRule{
	"ssh": remote, "scp": remote, "sftp": remote, "mosh": remote, "autossh": remote,
	"ssh-copy-id": remote, "sshfs": remote, "sshpass": remote, "rsh": remote, "telnet": remote,
	"ansible": remote, "ansible-playbook": remote,
	"rsync": rsyncLeaves,
	"git":   gitLeaves,
	"npm":   subs(whyPublish, "publish unpublish deprecate owner access dist-tag login adduser token"),
	"pnpm":  subs(whyPublish, "publish login adduser"), "yarn": yarnLeaves,
	"bun": subs(whyPublish, "publish"), "cargo": subs(whyPublish, "publish yank owner login"),
	"twine": subs(whyPublish, "upload register"), "poetry": subs(whyPublish, "publish"),
	"uv": subs(whyPublish, "publish"), "flit": subs(whyPublish, "publish"), "hatch": subs(whyPublish, "publish"),
	"gem":    subs(whyPublish, "push yank owner signin"),
	"docker": dockerLeaves, "podman": dockerLeaves,
	"dotnet": tasks(whyPublish, "push"),
	"mvn":    tasks(whyPublish, "deploy", "release:perform"), "gradle": gradleLeaves,
	"gh": forgeLeaves, "glab": forgeLeaves, "hub": forgeLeaves,
	"kubectl": subs(whyDeploy, "apply create delete replace patch edit scale autoscale rollout set label"+
		" annotate expose run exec cp port-forward attach drain cordon uncordon taint debug certificate"),
	"helm":      subs(whyDeploy, "install upgrade uninstall delete rollback push test registry"),
	"terraform": subs(whyDeploy, "apply destroy import state taint untaint force-unlock login workspace"),
	"pulumi":    subs(whyDeploy, "up destroy import refresh cancel login stack config"),
	"vercel":    unless(whyDeploy, "dev build help --version -v --help -h"),
	"netlify":   subs(whyDeploy, "deploy login link init unlink env:set env:import sites:create sites:delete"),
	"fly":       unless(whyDeploy, "version help --version --help"), "heroku": unless(whyDeploy, "--version help --help local"),
	"firebase": firebaseLeaves,
	"aws":      unless(whyDeploy, "--version help --help configure"), "gcloud": unless(whyDeploy, "version help --version --help"),
	"az": unless(whyDeploy, "version help --version --help"), "doctl": unless(whyDeploy, "version help --help"),
	"serverless": subs(whyDeploy, "deploy remove"), "cdk": subs(whyDeploy, "deploy destroy bootstrap"),
	"sam": subs(whyDeploy, "deploy delete sync"), "eb": subs(whyDeploy, "deploy create terminate"),
	"railway": subs(whyDeploy, "up deploy login link redeploy"), "render": unless(whyDeploy, "--version help"),
	"wrangler": subs(whyDeploy, "deploy publish login secret delete rollback versions"),
	"supabase": supabaseLeaves, "skaffold": subs(whyDeploy, "run deploy delete dev apply"),
}

func init() {
	for alias, name := range map[string]string{"flyctl": "fly", "sls": "serverless", "tofu": "terraform",
		"opentofu": "terraform", "kubecolor": "kubectl", "gradlew": "gradle", "mvnw": "mvn",
		"yarnpkg": "yarn", "docker-compose": "docker", "netlify-cli": "netlify"} {
		leaving[alias] = leaving[name]
	}
}

// leaves records why c leaves the sandbox, if it does.
func (a *analyzer) leaves(c cmd) {
	rule := leaving[cmdBase(c.words[0].text)]
	if rule == nil || a.guessing {
		return
	}
	key, _ := commandKey(c.words)
	if len(key) == 0 {
		key = looseKey(c.words)
	}
	if why := rule(key, c.words); why != "" {
		a.r.leave(strings.Join(key, " "), c.text, a.withWhere(why))
	}
}

// looseKey is the name and every operand, for a line whose subcommand
// cannot be told for sure (a word holds a blank, or is made at run time):
// a rule then sees each operand that could name what leaves.
func looseKey(ws []word) []string {
	key := []string{ws[0].text}
	for _, w := range operands(ws[1:]) {
		key = append(key, w.text)
	}
	return key
}

// remote: a use that names another machine (any operand) logs in there;
// options alone (ssh -V) do not.
func remote(_ []string, ws []word) string {
	for _, w := range ws[1:] {
		if !strings.HasPrefix(w.text, "-") {
			return whyRemote
		}
	}
	return ""
}

// subcommand is the word naming what a program does: from its key when
// the program's options are known (subTools), else its first operand.
func subcommand(key []string, ws []word) string {
	if len(key) > 1 {
		return key[1]
	}
	if ops := operands(ws[1:]); len(ops) > 0 {
		return ops[0].text
	}
	return ""
}

// subs leave with why when the subcommand is one of list.
func subs(why, list string) leaveRule {
	return func(key []string, ws []word) string {
		if hasField(list, subcommand(key, ws)) {
			return why
		}
		return ""
	}
}

// unless leaves with why for every use but the subcommands in list (a
// cloud CLI acts on the account in almost everything it does).
func unless(why, list string) leaveRule {
	return func(key []string, ws []word) string {
		first := subcommand(key, ws)
		if first == "" && len(ws) > 1 {
			first = ws[1].text // only options: aws --version
		}
		if hasField(list, first) {
			return ""
		}
		return why
	}
}

// tasks leave with why when one of the targets is in list (mvn deploy).
func tasks(why string, list ...string) leaveRule {
	return func(key []string, _ []word) string {
		for _, k := range key[1:] {
			for _, l := range list {
				if k == l {
					return why
				}
			}
		}
		return ""
	}
}

// gradleLeaves: the publish tasks, but publishToMavenLocal.
func gradleLeaves(key []string, _ []word) string {
	for _, k := range key[1:] {
		if strings.HasPrefix(k, "publish") && k != "publishToMavenLocal" || strings.HasSuffix(k, ":publish") {
			return whyPublish
		}
	}
	return ""
}

// sshRemote reports an operand naming a machine reached over ssh:
// user@host:path, host:path (not a Windows drive), ssh:// URLs.
func sshRemote(t string) bool {
	if strings.HasPrefix(t, "ssh://") || strings.HasPrefix(t, "git+ssh://") || strings.HasPrefix(t, "rsync://") {
		return true
	}
	i := strings.IndexByte(t, ':')
	return i > 1 && !strings.Contains(t[:i], "/") && !strings.Contains(t, "://")
}

func rsyncLeaves(_ []string, ws []word) string {
	for _, w := range ws[1:] {
		if sshRemote(w.text) || hasField("-e --rsh", w.text) || strings.HasPrefix(w.text, "--rsh=") {
			return whyRemote
		}
	}
	return ""
}

// gitLeaves: git push and send-email always; cloning or fetching only
// from a remote the line names as an ssh one (the user's keys). A fetch
// over https goes through the sandbox's proxy.
func gitLeaves(key []string, ws []word) string {
	if len(key) < 2 {
		return ""
	}
	switch key[1] {
	case "push", "send-email", "request-pull":
		return "leaves the sandbox: it sends to another machine with the user's credentials"
	case "svn":
		if len(key) > 2 && key[2] == "dcommit" {
			return whyForge
		}
	case "lfs":
		if len(key) > 2 && key[2] == "push" {
			return whyForge
		}
	case "clone", "fetch", "pull", "ls-remote", "submodule", "remote", "archive":
		for _, w := range ws[2:] {
			if sshRemote(w.text) {
				return whyRemote
			}
		}
	}
	return ""
}

func yarnLeaves(key []string, ws []word) string {
	if len(key) > 1 && (hasField("publish login", key[1]) || key[1] == "npm" && len(ws) > 2 && hasField("publish login", ws[2].text)) {
		return whyPublish
	}
	return ""
}

// dockerLeaves: pushing an image or logging in to a registry, and building
// with --push.
func dockerLeaves(key []string, ws []word) string {
	for _, k := range key[1:] {
		if k == "push" || k == "login" {
			return whyPublish
		}
	}
	for _, w := range ws {
		if w.text == "--push" || strings.HasPrefix(w.text, "--output=type=registry") {
			return whyPublish
		}
	}
	return ""
}

// forgeWrites are the gh (and glab) verbs that write, by command group.
var forgeWrites = map[string]string{
	"pr":        "create merge close comment edit review ready reopen lock unlock",
	"mr":        "create merge close comment edit approve revoke reopen note update",
	"issue":     "create close comment edit reopen delete transfer lock unlock pin unpin develop",
	"release":   "create upload delete edit delete-asset",
	"repo":      "create delete fork edit rename archive unarchive sync set-default deploy-key",
	"gist":      "create edit delete rename",
	"workflow":  "run enable disable",
	"run":       "rerun cancel delete",
	"secret":    "set delete remove",
	"variable":  "set delete",
	"label":     "create edit delete clone",
	"auth":      "login logout refresh setup-git token switch",
	"ssh-key":   "add delete",
	"gpg-key":   "add delete",
	"cache":     "delete",
	"extension": "install upgrade remove",
	"codespace": "create delete edit ssh cp code ports",
	"project":   "create delete edit close copy item-add item-edit item-delete field-create field-delete link unlink",
	"ruleset":   "create edit delete",
}

// forgeLeaves: the gh and glab commands that write to the code host, and
// gh api (whose method the line may not show).
func forgeLeaves(_ []string, ws []word) string {
	ops := operands(ws[1:])
	switch {
	case len(ops) == 0:
		return ""
	case ops[0].text == "api":
		return whyForge
	case len(ops) > 1 && hasField(forgeWrites[ops[0].text], ops[1].text):
		return whyForge
	}
	return ""
}

// firebaseLeaves: deploys, deletes and logins (firebase emulators:start
// runs here).
func firebaseLeaves(_ []string, ws []word) string {
	ops := operands(ws[1:])
	if len(ops) > 0 && (strings.Contains(ops[0].text, "deploy") || strings.Contains(ops[0].text, "delete") ||
		hasField("login use init", ops[0].text)) {
		return whyDeploy
	}
	return ""
}

// supabaseLeaves: what reaches the hosted project (supabase start runs
// here).
func supabaseLeaves(_ []string, ws []word) string {
	ops := operands(ws[1:])
	for i, o := range ops {
		if hasField("deploy push link login secrets", o.text) || o.text == "delete" && i > 0 {
			return whyDeploy
		}
	}
	return ""
}
