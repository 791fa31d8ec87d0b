package policy

import (
	"testing"
	"time"

	"github.com/termhelper/termhelper/config"
)

// TestNoBlowUp guards against inputs whose judging cost multiplies with
// every word: a guessed command name used to be guessed again for each
// wrapped word.
func TestNoBlowUp(t *testing.T) {
	p := testPolicy(t, config.Default())
	for _, s := range []string{"* * * *", "* * * * * * * * * * * * * * * * * * * * * * * * * * * * * *", "eval * * * * * * * * * * * * * * * * * * * * * *", "bash -c \"eval eval eval eval eval eval eval eval * * * * * *\"", "$X $X $X $X $X", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n} x", "x=$(y=$(z=$(w=$(v)))) ", "a | b | c | d | e | f | g | h | i | j | k"} {
		start := time.Now()
		p.Check(s, true)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%q took %v", s, d)
		}
	}
}
