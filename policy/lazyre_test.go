package policy

import (
	"regexp"
	"testing"
)

// TestLazyRegexps compiles every expression compiled at first use, which
// the package's initialisation no longer proves valid.
func TestLazyRegexps(t *testing.T) {
	if len(lazyREs) == 0 {
		t.Fatal("no lazy expressions registered")
	}
	for _, l := range lazyREs {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("%q: %v", l.expr, err)
		}
	}
}
