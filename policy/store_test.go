package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as a second helper process adding names
// to a shared store (see TestStoreProcesses).
func TestMain(m *testing.M) {
	if dir := os.Getenv("TERMHELPER_TEST_STORE_DIR"); dir != "" {
		os.Exit(storeChild(dir, os.Getenv("TERMHELPER_TEST_STORE_PREFIX")))
	}
	os.Exit(m.Run())
}

func storeChild(dir, prefix string) int {
	s, err := OpenStore(dir, "/proj")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; i < 25; i++ {
		if err := s.Add(fmt.Sprintf("%s%d", prefix, i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestStoreAddAndReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Names()) != 0 {
		t.Fatalf("new store: %v", s.Names())
	}
	for _, n := range []string{"npm", "git", "npm"} {
		if err := s.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(" "); err == nil {
		t.Fatal("an empty name must be refused")
	}
	other, err := OpenStore(dir, "/other")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Add("cargo"); err != nil {
		t.Fatal(err)
	}
	again, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Names(); !slices.Equal(got, []string{"git", "npm"}) {
		t.Fatalf("after restart: %v", got)
	}
	if got := other.Names(); !slices.Equal(got, []string{"cargo"}) {
		t.Fatalf("roots are kept apart: %v", got)
	}
}

// TestStoreSeesOtherWindow: a name added through one Store shows up in
// another Store of the same root without reopening.
func TestStoreSeesOtherWindow(t *testing.T) {
	dir := t.TempDir()
	a, _ := OpenStore(dir, "/proj")
	b, _ := OpenStore(dir, "/proj")
	if err := a.Add("make"); err != nil {
		t.Fatal(err)
	}
	if got := b.Names(); !slices.Contains(got, "make") {
		t.Fatalf("other window: %v", got)
	}
}

func TestStoreGoroutines(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		s, err := OpenStore(dir, "/proj")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if err := s.Add(fmt.Sprintf("g%d-%d", g, i)); err != nil {
					t.Error(err)
				}
				s.Names()
			}
		}()
	}
	wg.Wait()
	checkAll(t, dir, []string{"g0-", "g1-"})
}

func TestStoreProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, prefix := range []string{"p0-", "p1-"} {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "TERMHELPER_TEST_STORE_DIR="+dir, "TERMHELPER_TEST_STORE_PREFIX="+prefix)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	// This process writes too, so three writers race for the file.
	if code := storeChild(dir, "main-"); code != 0 {
		t.Fatal("adding from the test process failed")
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	checkAll(t, dir, []string{"p0-", "p1-", "main-"})
	if m, _ := filepath.Glob(filepath.Join(dir, ".allow-*.tmp")); len(m) != 0 {
		t.Fatalf("temporary files left behind: %v", m)
	}
}

// TestStoreWaitsWhileTheFileIsHeldOpen: on Windows a rename over a file
// that another process holds open (another helper reading it) is refused
// until the holder lets go; Add waits for that instead of failing. Where a
// rename replaces an open file (Unix), Add is done at once.
func TestStoreWaitsWhileTheFileIsHeldOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add("first"); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	refused := make(chan struct{}, 1)
	testHookInUse = func() {
		select {
		case refused <- struct{}{}:
		default:
		}
	}
	t.Cleanup(func() { testHookInUse = nil })
	done := make(chan error, 1)
	go func() { done <- s.Add("second") }()
	select {
	case err = <-done:
	case <-refused:
		held.Close()
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Add still waits after the file was let go")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Add neither finished nor waited")
	}
	if err != nil {
		t.Fatalf("Add while the file is held open: %v", err)
	}
	checkNames(t, dir, "first", "second")
}

func checkNames(t *testing.T, dir string, want ...string) {
	t.Helper()
	s, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
}

func checkAll(t *testing.T, dir string, prefixes []string) {
	t.Helper()
	s, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	names := s.Names()
	for _, p := range prefixes {
		for i := 0; i < 25; i++ {
			if n := fmt.Sprintf("%s%d", p, i); !slices.Contains(names, n) {
				t.Errorf("%s missing; %d names present", n, len(names))
			}
		}
	}
}

func TestAnotherWindowsAlwaysShowsUp(t *testing.T) {
	dir := t.TempDir()
	a, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenStore(dir, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if names := b.Names(); len(names) != 0 {
		t.Fatalf("a new store has %v", names)
	}
	if err := a.Add("npm"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(a.Names(), "npm") {
		t.Fatal("the window that said always must see it at once")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(b.Names(), "npm") {
		if time.Now().After(deadline) {
			t.Fatal("another window's always never showed up")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
