//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/places"
)

// xdgDefaults leaves the XDG folders at their defaults under the fake
// home, whatever the machine running the tests sets.
var xdgDefaults = withEnv("XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "XDG_CACHE_HOME=")

// credentialFiles makes each home file of the one list of secret places
// under home (a folder gets a file inside), each holding a mark of its
// own, and returns the files and the marks.
func credentialFiles(t *testing.T, home string) (files, marks []string) {
	t.Helper()
	noEnv := func(string) string { return "" }
	for i, pl := range places.Secrets {
		path := pl.For(home, noEnv)
		if path == "" || pl.Pattern() || !strings.HasPrefix(path, home+"/") || strings.Contains(pl.Path, "RUNTIME") {
			continue
		}
		if pl.Folder() {
			path = filepath.Join(path, "secret")
		}
		mark := "CREDENTIAL-MARK-" + strings.Repeat("x", i%3) + filepath.Base(filepath.Dir(path)) + "-" + filepath.Base(path)
		must(t, os.MkdirAll(filepath.Dir(path), 0o700))
		must(t, os.WriteFile(path, []byte(mark+"\n"), 0o600))
		files, marks = append(files, path), append(marks, mark)
	}
	return files, marks
}

// TestSandboxHidesEveryCredentialFile: every token file of the one list
// (Maven's settings.xml, Gradle's gradle.properties, Yarn's .yarnrc.yml,
// Composer's auth.json, the Hugging Face token, Pulumi's and Kaggle's
// credentials, s3cmd's, ...) made in the user's home is absent from what
// the host receives, read by cat and by Python, run unasked.
func TestSandboxHidesEveryCredentialFile(t *testing.T) {
	s := startConfined(t, "ndjson", xdgDefaults)
	files, marks := credentialFiles(t, s.home)
	if len(files) < 60 {
		t.Fatalf("only %d credential files made", len(files))
	}
	script := "import sys\nfor f in sys.argv[1:]:\n  try: print(open(f).read())\n  except OSError as e: print('refused', e.errno)\nprint('read-done')\n"
	must(t, os.WriteFile(filepath.Join(s.root, "read.py"), []byte(script), 0o644))
	quoted := "'" + strings.Join(files, "' '") + "'"
	for _, cmd := range []string{"cat " + quoted + " 2>&1; echo read-done", python + " read.py " + quoted} {
		r := s.c.exec(map[string]any{"command": cmd})
		if !strings.Contains(r.Output, "read-done") {
			t.Fatalf("%.60s...: the command did not run to its end: %s", cmd, describe(r))
		}
		for i, m := range marks {
			if strings.Contains(r.Output, m) {
				t.Errorf("%.40s...: %s was read: %q", cmd, files[i], r.Output)
			}
		}
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), marks[0]) {
		t.Fatalf("the test itself should read %s", files[0])
	}
}

// TestPolicyAsksForEveryCredentialFile: where no sandbox runs, reading a
// token file of the one list (places the sandbox alone used to know:
// s3cmd's, gsutil's, Oracle Cloud's) is asked about as a secret.
func TestPolicyAsksForEveryCredentialFile(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	c := start(t, "ndjson", root, nil, withEnv("HOME="+home), xdgDefaults, sandboxOff)
	for _, f := range []string{".s3cfg", ".boto", ".oci/config", ".config/doctl/config.yaml", ".config/sops/age/keys.txt",
		".m2/settings.xml", ".gradle/gradle.properties", ".yarnrc.yml", ".config/composer/auth.json", ".composer/auth.json",
		".cache/huggingface/token", ".huggingface/token", ".pulumi/credentials.json", ".kaggle/kaggle.json",
		".databrickscfg", ".snowflake/connections.toml", ".cargo/credentials.toml", ".terraformrc"} {
		a := c.check("cat ~/" + f)
		if a.Decision != "ask" || !strings.Contains(strings.Join(a.Reasons, "\n"), "reads a protected path") {
			t.Errorf("cat ~/%s: %s %q, want asked as a protected path", f, a.Decision, a.Reasons)
		}
	}
}
