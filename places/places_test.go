package places

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func lookup(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPathsAreWhereTheVariableMovesAndWhereTheyWere(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	pl := Place{Path: ".gnupg/", Env: "GNUPGHOME"}
	got := pl.Paths("/h", lookup(map[string]string{"GNUPGHOME": "/keys/gpg"}))
	if want := []string{"/keys/gpg/", "/h/.gnupg/"}; !slices.Equal(got, want) {
		t.Errorf("Paths = %q, want %q", got, want)
	}
	if got := (Place{Path: "$XDG_RUNTIME_DIR/gnupg/"}).Paths("/h", lookup(nil)); len(got) != 0 {
		t.Errorf("an unset runtime folder gives %q", got)
	}
	if got := (Place{Env: "DOCKER_HOST"}).Paths("/h", lookup(map[string]string{"DOCKER_HOST": "tcp://x:2375"})); len(got) != 0 {
		t.Errorf("a non-path gives %q", got)
	}
	cfg := (Place{Path: "$XDG_CONFIG_HOME/gh/"}).For("/h", lookup(map[string]string{"XDG_CONFIG_HOME": "/cfg"}))
	if cfg != "/cfg/gh/" {
		t.Errorf("For = %q", cfg)
	}
}

func TestSecretsAreWellFormed(t *testing.T) {
	for _, pl := range Secrets {
		if pl.Why == "" || pl.Path == "" && pl.Env == "" && pl.Name == "" {
			t.Errorf("%+v: no place or no reason", pl)
		}
		if filepath.IsAbs(pl.Name) || pl.Path != "" && pl.Path[0] == '~' {
			t.Errorf("%+v: a name is a name; a path is relative to home without ~", pl)
		}
	}
}
