//go:build linux

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A 1 MB single line (a minified bundle, a JSON blob) is capped in the
// answer and whole in the spill file, byte for byte, on a terminal (where
// it wraps 6,250 times at 160 columns) and through pipes alike.
func TestOneMegabyteLineIsWholeInTheSpillFile(t *testing.T) {
	for _, mode := range []string{"pty", "pipes"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := start(t, "ndjson", t.TempDir(), nil)
			r := c.exec(map[string]any{"command": "head -c 1000000 /dev/zero | tr '\\0' x; echo; echo end", "mode": mode})
			require.NotNil(t, r.ExitCode, "%+v", r)
			assert.True(t, r.Truncated)
			assert.Contains(t, r.Output, "...[", "the answer's line is capped")
			assert.Less(t, len(r.Output), 16100)
			require.NotNil(t, r.FullOutputPath)
			data, err := os.ReadFile(*r.FullOutputPath)
			require.NoError(t, err)
			want := strings.Repeat("x", 1000000) + "\nend\n"
			if string(data) != want {
				t.Fatalf("spill file: %d bytes, want %d; starts %.40q, ends %.40q", len(data), len(want), data, data[max(0, len(data)-40):])
			}
		})
	}
}
