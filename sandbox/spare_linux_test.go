package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFootprintChangesWithWhatLiesAtThePlansPaths(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o755)
	config := filepath.Join(root, ".termhelper.toml")
	p := Plan{Mode: WorkspaceWrite, Root: root, TempDir: dir,
		Protect: []string{config, filepath.Join(root, ".git", "hooks") + "/"},
		Hide:    []string{filepath.Join(dir, "home", ".aws")}}
	steps := []struct {
		what string
		do   func() error
	}{
		{"the protected file appears", func() error { return os.WriteFile(config, []byte("a"), 0o644) }},
		{"the protected file is replaced", func() error {
			os.WriteFile(config+".new", []byte("b"), 0o644)
			return os.Rename(config+".new", config)
		}},
		{"the folder a protected folder would be made in appears", func() error { return os.Mkdir(filepath.Join(root, ".git"), 0o755) }},
		{"a secret place appears", func() error { return os.MkdirAll(filepath.Join(dir, "home", ".aws"), 0o700) }},
	}
	before := Footprint(p)
	if Footprint(p) != before {
		t.Fatal("the footprint changed with nothing changed")
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		now := Footprint(p)
		if now == before {
			t.Errorf("%s: the footprint did not change", s.what)
		}
		before = now
	}
	os.WriteFile(config, []byte("written in place"), 0o644) // same file: the spare's mount shows it
	if Footprint(p) != before {
		t.Error("a write in place changed the footprint")
	}
}

func TestTheTrampolineIsASpareOnlyWithItsSocket(t *testing.T) {
	plan := func(ctl int) string {
		b, _ := json.Marshal(wire{Plan: Plan{Mode: ReadOnly, Network: NetworkOpen, TempDir: "/tmp"}, CtlFD: ctl})
		return string(b)
	}
	for _, args := range [][]string{{plan(0), spareArg}, {plan(3), "--", "true"}, {plan(3), spareArg, "true"}} {
		if _, _, err := parseArgs(args); err == nil {
			t.Errorf("%q was taken", strings.Join(args[1:], " "))
		}
	}
	if _, argv, err := parseArgs([]string{plan(3), spareArg}); err != nil || argv != nil {
		t.Errorf("a spare's arguments: %v, %v", argv, err)
	}
}
