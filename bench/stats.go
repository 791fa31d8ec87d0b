//go:build linux

package main

import (
	"slices"
	"time"
)

// samples are repeated timings of one measure.
type samples []time.Duration

func (s samples) median() time.Duration { return s.pct(50) }

func (s samples) p95() time.Duration { return s.pct(95) }

// pct is the nearest-rank percentile: always a value that was measured.
func (s samples) pct(p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	i := (p*len(c) + 99) / 100
	return c[max(i-1, 0)]
}

func medianInt(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	slices.Sort(c)
	return c[(len(c)-1)/2]
}
