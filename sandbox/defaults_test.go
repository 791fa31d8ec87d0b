//go:build !windows

// The plan's paths are Unix paths, the sandbox's own platforms (Linux,
// and macOS's Seatbelt profile, tested everywhere else): on Windows the
// sandbox has no backend, and these paths mean nothing there.

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/places"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSecretPlacesHonourTheEnvironment(t *testing.T) {
	got := SecretPlaces("/h", env(map[string]string{
		"GNUPGHOME": "/keys/gpg", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
		"DOCKER_HOST": "unix:///srv/docker.sock", "XDG_CONFIG_HOME": "/cfg", "KUBECONFIG": "/k/a:/k/b",
	}))
	for _, want := range []string{"/h/.ssh", "/keys/gpg", "/h/.aws", "/h/.config/gcloud", "/h/.docker/config.json",
		"/h/.netrc", "/h/.git-credentials", "/h/.npmrc", "/h/.pypirc", "/cfg/gh", "/h/.mozilla",
		"/tmp/ssh-x/agent.1", "/srv/docker.sock", "/run/docker.sock", "/k/a", "/h/.kube"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not a secret place: %v", want, got)
		}
	}
	if !slices.Contains(got, "/h/.gnupg") || slices.Contains(got, "") {
		t.Errorf("a moved place is not hidden where it was, or an empty place is listed: %v", got)
	}
	if tcp := SecretPlaces("/h", env(map[string]string{"DOCKER_HOST": "tcp://host:2375"})); slices.ContainsFunc(tcp, func(s string) bool { return !filepath.IsAbs(s) }) {
		t.Errorf("a non-path is listed: %v", tcp)
	}
}

func TestCachesHonourTheToolsVariables(t *testing.T) {
	got := Caches("/h", env(map[string]string{
		"GOCACHE": "/gc", "GOPATH": "/gp1:/gp2", "CARGO_HOME": "/cargo", "XDG_CACHE_HOME": "/xc", "npm_config_cache": "/npm",
	}))
	want := []string{"/gc", "/gp1/pkg/mod", "/cargo/registry", "/cargo/git", "/npm", "/h/.m2/repository", "/h/.gradle/caches"}
	if runtime.GOOS != "darwin" {
		want = append(want, "/xc/pip", "/xc/yarn")
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s is not a cache: %v", w, got)
		}
	}
	if def := Caches("/h", env(nil)); !slices.Contains(def, "/h/go/pkg/mod") || !slices.Contains(def, "/h/.cargo/registry") {
		t.Errorf("the tools' own defaults are missing: %v", def)
	}
}

func TestProtectedPathsOfAPlainRepository(t *testing.T) {
	got := ProtectedPaths("/p", "/h", env(nil))
	for _, want := range []string{"/p/.git/hooks/", "/p/.git/config", "/p/.termhelper.toml", "/h/.bashrc",
		"/h/.zshrc", "/h/.profile", "/h/.config/fish/", "/h/.gitconfig"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not protected: %v", want, got)
		}
	}
}

func TestAGitFileLeadsToTheRealHooksAndConfig(t *testing.T) {
	base := t.TempDir()
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitDir+"\n"), 0o644)
	os.WriteFile(filepath.Join(gitDir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(gitDir, "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644)
	common := filepath.Join(main, ".git")
	got := ProtectedPaths(wt, "/h", env(nil))
	for _, want := range []string{filepath.Join(wt, ".git"), filepath.Join(common, "hooks") + "/",
		filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not protected: %v", want, got)
		}
	}
	if dirs := GitDirs(wt); !slices.Equal(dirs, []string{gitDir, common}) {
		t.Errorf("GitDirs = %v, want the worktree's and the common folder", dirs)
	}
	// A submodule's .git names its folder relative to itself.
	sub := filepath.Join(main, "sub")
	os.MkdirAll(filepath.Join(main, ".git", "modules", "sub"), 0o755)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: ../.git/modules/sub\n"), 0o644)
	if got := ProtectedPaths(sub, "/h", env(nil)); !slices.Contains(got, filepath.Join(main, ".git", "modules", "sub", "hooks")+"/") {
		t.Errorf("the submodule's hooks are not protected: %v", got)
	}
	if dirs := GitDirs(filepath.Join(main)); dirs != nil {
		t.Errorf("a plain repository has no git folder outside the root: %v", dirs)
	}
}

func TestDefaultsMakeACacheOnlyForAToolInUse(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(home, ".cache"), 0o755)
	os.MkdirAll(root, 0o755)
	p := Defaults(root, home, env(map[string]string{"XDG_CACHE_HOME": filepath.Join(home, ".cache")}))
	goBuild := filepath.Join(places.UserCache(home, env(map[string]string{"XDG_CACHE_HOME": filepath.Join(home, ".cache")})), "go-build")
	if fi, err := os.Stat(goBuild); runtime.GOOS != "darwin" && (err != nil || fi.Mode().Perm() != 0o700) {
		t.Errorf("the Go build cache under an existing cache folder was not made private: %v", err)
	}
	if !slices.Contains(p.Writable, filepath.Join(home, ".npm")) {
		t.Errorf("~/.npm (its parent is home) should be writable: %v", p.Writable)
	}
	if _, err := os.Stat(filepath.Join(home, ".m2")); err == nil || slices.Contains(p.Writable, filepath.Join(home, ".m2", "repository")) {
		t.Errorf("Maven's repository was made for a user without ~/.m2: %v", p.Writable)
	}
	if p.Root != root || len(p.Protect) == 0 || len(p.Hide) == 0 {
		t.Errorf("incomplete defaults: %+v", p)
	}
}

func TestDefaultsDoNotHideTheRootItself(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".config", "gh", "extension")
	p := Defaults(root, home, env(nil))
	if slices.Contains(p.Hide, filepath.Join(home, ".config", "gh")) {
		t.Errorf("the secret place the user works in is hidden from their own commands: %v", p.Hide)
	}
	if !slices.Contains(p.Hide, filepath.Join(home, ".ssh")) {
		t.Errorf("the other secret places must stay hidden: %v", p.Hide)
	}
}

func TestMakeTempDirIsPrivateAndRemoved(t *testing.T) {
	dir, remove, err := MakeTempDir()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v", dir, fi.Mode(), err)
	}
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o600)
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s was not removed", dir)
	}
}

func TestModesParseAndOrder(t *testing.T) {
	for _, s := range []string{"workspace-write", "read-only", "off"} {
		if _, err := ParseMode(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseMode("sideways"); err == nil {
		t.Error("an unknown mode parsed")
	}
	if _, err := ParseNetwork("proxy"); err != nil {
		t.Error(err)
	}
	if !Off.Wider(WorkspaceWrite) || !WorkspaceWrite.Wider(ReadOnly) || ReadOnly.Wider(WorkspaceWrite) || Mode("x").Wider(Off) {
		t.Error("modes are ordered read-only < workspace-write < off")
	}
}

func TestTheHooksPathAndSubmodulesAreProtected(t *testing.T) {
	root := t.TempDir()
	git := filepath.Join(root, ".git")
	os.MkdirAll(filepath.Join(git, "modules", "lib", "modules", "inner"), 0o755)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n\tbare = false\n[Core]\n\thooksPath = \".husky\"\n[remote \"origin\"]\n\thooksPath = nope\n"), 0o644)
	for _, m := range []string{"lib", "lib/modules/inner"} {
		os.WriteFile(filepath.Join(git, "modules", m, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	got := ProtectedPaths(root, "/h", env(nil))
	for _, want := range []string{filepath.Join(root, ".husky") + "/",
		filepath.Join(git, "modules", "lib", "hooks") + "/", filepath.Join(git, "modules", "lib", "config"),
		filepath.Join(git, "modules", "lib", "modules", "inner", "hooks") + "/"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not protected: %v", want, got)
		}
	}
	if slices.Contains(got, filepath.Join(root, "nope")+"/") {
		t.Errorf("a hooksPath outside [core] was taken: %v", got)
	}
	if p := expandHooksPath("~/hooks", root, "/h"); p != "/h/hooks" {
		t.Errorf("~/hooks is %s", p)
	}
}

// TestSecretPlacesAreTheOneList: the sandbox hides every place of the one
// list the policy asks about (policy's TestEverySecretPlaceIsAsked), but
// the patterns, which the pid namespace keeps out.
func TestSecretPlacesAreTheOneList(t *testing.T) {
	getenv := env(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
		"DOCKER_HOST": "unix:///srv/docker.sock"})
	hidden := SecretPlaces("/h", getenv)
	n := 0
	for _, pl := range places.Secrets {
		if pl.Pattern() {
			continue
		}
		for _, path := range pl.Paths("/h", getenv) {
			n++
			if path = strings.TrimSuffix(path, "/"); !slices.Contains(hidden, path) {
				t.Errorf("%s (%s) is secret to the policy, not hidden by the sandbox", path, pl.Why)
			}
		}
	}
	for _, want := range []string{"/h/.m2/settings.xml", "/h/.gradle/gradle.properties", "/h/.yarnrc.yml",
		"/h/.config/composer/auth.json", "/h/.cache/huggingface/token", "/h/.kaggle/kaggle.json"} {
		if !slices.Contains(hidden, want) {
			t.Errorf("%s is not hidden", want)
		}
	}
	if n != len(hidden) {
		t.Errorf("the sandbox hides %d places, the list has %d", len(hidden), n)
	}
}

// SecretPlaces keeps its last answer for the same home and variables, and
// works the list out again once either changes.
func TestSecretPlacesFollowHomeAndVariables(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		home   string
		getenv func(string) string
		want   string
	}{
		{"/h", env(), "/h/.gnupg"},
		{"/h", env("GNUPGHOME", "/keys/gpg"), "/keys/gpg"},
		{"/h", env("GNUPGHOME", "/keys/other"), "/keys/other"},
		{"/h2", env("GNUPGHOME", "/keys/other"), "/h2/.gnupg"},
		{"/h2", env("GNUPGHOME", "/keys/other"), "/keys/other"}, // kept
		{"/h2", env("GNUPGHOME", "/keys/other"), "/keys/other"}, // kept, and unchanged by the caller before
	} {
		got := SecretPlaces(c.home, c.getenv)
		if !slices.Contains(got, c.want) || slices.Contains(got, "changed by a caller") {
			t.Errorf("home %s: %s is not among the secret places, or a caller changed them: %v", c.home, c.want, got)
		}
		got[0] = "changed by a caller"
	}
	if got := SecretPlaces("/h", env()); slices.Contains(got, "/keys/other") || !slices.Contains(got, "/h/.gnupg") {
		t.Errorf("the secret places of a home without variables: %v", got)
	}
}
