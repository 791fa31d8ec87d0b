package policy

import (
	"strings"
	"testing"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/places"
)

// TestEverySecretPlaceIsAsked reads each place of the one list that the
// sandbox also hides (sandbox's TestSecretPlacesAreTheOneList), and each
// name the policy looks for at any depth: where no sandbox runs, the
// question is all that stands between a line and the secret.
func TestEverySecretPlaceIsAsked(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	p := testPolicy(t, config.Default())
	noEnv := func(string) string { return "" }
	for _, pl := range places.Secrets {
		var targets []string
		if path := pl.For(testHome, noEnv); path != "" && !pl.Pattern() {
			targets = append(targets, path)
		}
		if pl.Name != "" {
			targets = append(targets, "sub/"+strings.ReplaceAll(pl.Name, "*", "x"))
		}
		for _, target := range targets {
			if strings.HasSuffix(target, "/") {
				target += "file"
			}
			checkAsksSecret(t, p, "cat '"+target+"'")
		}
	}
}

// TestMovedSecretPlaceIsAsked: a variable that moves a secret place
// moves the question with it, and the usual place stays asked about.
func TestMovedSecretPlaceIsAsked(t *testing.T) {
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/srv/keys/aws")
	t.Setenv("GH_CONFIG_DIR", "/srv/gh")
	p := testPolicy(t, config.Default())
	for _, line := range []string{"cat /srv/keys/aws", "cat /srv/gh/hosts.yml", "cat ~/.config/gh/hosts.yml", "cat ~/.s3cfg"} {
		checkAsksSecret(t, p, line)
	}
}

// checkAsksSecret: line is asked about as a read of a secret, so with the
// sandbox on too (a read outside the root alone is not).
func checkAsksSecret(t *testing.T, p *Policy, line string) {
	t.Helper()
	v := p.Judge(line, testRoot, Judging{Trusted: true, Sandboxed: true})
	if v.Decision != Ask || !readsSecret(p.judge(line, testRoot, nil)) {
		t.Errorf("%s: %s %q, want ask for a secret", line, v.Decision, v.Reasons)
	}
}
