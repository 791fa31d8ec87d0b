package mcp

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/policy"
)

// openFront is a front over a real engine in a temporary root.
func openFront(t *testing.T) *front {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := newFront(Options{Open: func(root string) (*engine.Engine, func(), error) {
		cfg := config.Default()
		cfg.LoginEnv = false
		return engine.New(engine.Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)}), nil, nil
	}})
	f.open(root)
	t.Cleanup(f.closeEngine)
	return f
}

func (e *events) remembered() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.reported)
}

// The record of finished answers given does not grow with every command:
// one never handed over has no end event to come, and one handed over is
// dropped once its event has come.
func TestReportedDoesNotGrow(t *testing.T) {
	f := openFront(t)
	ctx := context.Background()
	for range 3 {
		r, err := f.eng.Run(ctx, engine.RunParams{Command: "echo hi"})
		if err != nil || r.Exit == nil {
			t.Fatalf("echo hi: %v %+v", err, r)
		}
		f.events.answered(r.ID)
	}
	if n := f.events.remembered(); n != 0 {
		t.Fatalf("%d finished commands never handed over are remembered", n)
	}
	zero := int64(0)
	r, err := f.eng.Run(ctx, engine.RunParams{Command: "sleep 30", YieldMs: &zero})
	if err != nil || r.Exit != nil {
		t.Fatalf("sleep 30 must answer alive: %v %+v", err, r)
	}
	r, err = f.eng.Kill(ctx, engine.KillParams{SessionID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	f.events.answered(r.ID)
	deadline := time.Now().Add(watchdog)
	for f.events.remembered() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a handed session is remembered after its end event")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if lead, _ := f.events.take(); lead != "" {
		t.Fatalf("an end answered in a result is noticed again: %q", lead)
	}
}
