package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/termhelper/termhelper/internal/ownmounts"
)

// TestMain lets the test binary stand for termhelper: as the trampoline
// when called as Command (with stand-ins that testTrampoline sets), and as a command that tries one forbidden act
// when actionVar says which (testAction).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Command {
		testTrampoline()
		os.Exit(Serve(os.Args[2:]))
	}
	if act := os.Getenv(actionVar); act != "" {
		os.Exit(testAction(act))
	}
	// A race-enabled binary sleeps a second at exit by default; the
	// children here are this binary, and many exit.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" "+noExitSleep))
	// The probe keeps its answer in the user's cache folder: the tests'
	// is their own.
	cache, err := os.MkdirTemp("", "sandbox-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	// A test starts its commands by trampolines, unless it asks for held
	// namespaces (useHeld): never some one way and some the other.
	UseHeldNamespaces(false)
	code := ownmounts.Run(m)
	os.RemoveAll(cache)
	os.Exit(code)
}

const noExitSleep = "atexit_sleep_ms=0"

// actionVar names the act the test binary tries when run as a command.
const actionVar = "SANDBOX_TEST_ACTION"
