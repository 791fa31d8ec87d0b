package cleaner

import "testing"

func TestRepeatMarkerLen(t *testing.T) {
	for _, n := range []int{-12, -1, 0, 1, 2, 9, 10, 99, 100, 12345, 1 << 40} {
		if got, want := repeatMarkerLen(n), len(repeatMarker(n)); got != want {
			t.Errorf("repeatMarkerLen(%d) = %d, want %d", n, got, want)
		}
	}
}
