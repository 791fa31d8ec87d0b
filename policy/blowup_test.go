package policy

import (
	"testing"

	"github.com/termhelper/termhelper/config"
)

// TestNoBlowUp guards against inputs whose judging cost multiplies with
// every word: a guessed command name used to be guessed again for each
// wrapped word. The cost is counted in allocations, which a busy machine
// leaves as they are (a wall-clock limit is one it can outrun): the worst
// of these takes about 16,000; a cost doubling with each of twenty words
// would take millions.
func TestNoBlowUp(t *testing.T) {
	p := testPolicy(t, config.Default())
	for _, s := range []string{"* * * *", "* * * * * * * * * * * * * * * * * * * * * * * * * * * * * *", "eval * * * * * * * * * * * * * * * * * * * * * *", "bash -c \"eval eval eval eval eval eval eval eval * * * * * *\"", "$X $X $X $X $X", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n} x", "x=$(y=$(z=$(w=$(v)))) ", "a | b | c | d | e | f | g | h | i | j | k"} {
		if n := testing.AllocsPerRun(1, func() { p.Check(s, true) }); n > 1_000_000 {
			t.Errorf("%q took %.0f allocations", s, n)
		}
	}
}
