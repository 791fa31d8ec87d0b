//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/mask"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/trash"
)

// newTestEngine is an engine for a fresh root, with the rm shim when
// shim is set, closed at the test's end.
func newTestEngine(t *testing.T, shim bool) (*Engine, string) {
	t.Helper()
	root, err := platform.RealRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Root: root, Config: config.Default()}
	if shim {
		if opts.ShimDir, err = trash.Shim(filepath.Join(t.TempDir(), "shim")); err != nil {
			t.Fatal(err)
		}
		opts.TrashDir = filepath.Join(t.TempDir(), "trash")
	}
	e := New(opts)
	t.Cleanup(e.Close)
	return e, root
}

func run(t *testing.T, e *Engine, p RunParams) string {
	t.Helper()
	r, err := e.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Exit == nil {
		t.Fatalf("not finished: %+v", r)
	}
	return r.Output
}

func str(s string) *string { return &s }

// Passwords and tokens a host passes in a request's env are masked in that
// command's output, as the helper's own secrets are.
func TestRequestEnvSecretsAreMasked(t *testing.T) {
	e, _ := newTestEngine(t, false)
	secrets := map[string]string{"MYSQL_PWD": "mysql-pw-0481516", "PGPASSWORD": "pg-pw-2342-xyz",
		"DEPLOY_TOKEN": "tok-9f8e7d6c5b4a", "SMTP_PASS": "smtp-pw-112358"}
	env := map[string]*string{"PLAIN_SETTING": str("visible-value-1")}
	for k, v := range secrets {
		env[k] = str(v)
	}
	out := run(t, e, RunParams{Command: `printenv MYSQL_PWD PGPASSWORD DEPLOY_TOKEN SMTP_PASS PLAIN_SETTING`, Env: env})
	for k, v := range secrets {
		if strings.Contains(out, v) {
			t.Errorf("%s's value reached the output: %q", k, out)
		}
	}
	if strings.Count(out, mask.Replacement) != len(secrets) || !strings.Contains(out, "visible-value-1") {
		t.Errorf("output %q", out)
	}
}

// The request's env can neither send rm's deletions elsewhere nor take
// the shim off PATH: what rm removes lands in the root's trash.
func TestRequestEnvCannotPointRmPastTheTrash(t *testing.T) {
	e, root := newTestEngine(t, true)
	elsewhere := t.TempDir()
	for name, env := range map[string]map[string]*string{
		"trash dir": {"TERMHELPER_TRASH_DIR": str(elsewhere), "TERMHELPER_COMMAND": str("forged")},
		"path":      {"PATH": str("/usr/bin:/bin")},
		"no path":   {"PATH": nil},
		"empty dir": {"TERMHELPER_TRASH_DIR": str("")},
	} {
		victim := filepath.Join(root, "victim.txt")
		if err := os.WriteFile(victim, []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
		out := run(t, e, RunParams{Command: "rm victim.txt && ls", Env: env})
		if _, err := os.Stat(victim); err == nil {
			t.Fatalf("%s: rm did not remove the file: %q", name, out)
		}
		entries, err := trash.List(e.opts.TrashDir)
		if err != nil || len(entries) == 0 || entries[0].Path != victim || entries[0].Command != "rm victim.txt && ls" {
			t.Fatalf("%s: the file is not in the root's trash: %+v %v", name, entries, err)
		}
		if _, err := trash.Restore(e.opts.TrashDir, root, entries[0].ID); err != nil {
			t.Fatal(err)
		}
		if des, _ := os.ReadDir(elsewhere); len(des) != 0 {
			t.Fatalf("%s: something went to the request's trash folder", name)
		}
	}
}
