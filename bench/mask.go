//go:build linux

package main

import (
	"fmt"
	"strconv"
	"strings"
)

// benchMask runs the mask package's Go benchmarks: what masking secrets
// costs an output stream, the masker and the cleaner together against the
// cleaner alone in the same run, so that machine load weighs on both.
func benchMask(e *env) (result, error) {
	var res result
	out, args, err := goBench(e, "./mask/", "20x")
	if err != nil {
		return res, err
	}
	speeds := map[string]benchLine{}
	for _, b := range parseBench(out) {
		speeds[b.name] = b
	}
	plain, masked := speeds["Pipeline/unmasked"], speeds["Pipeline/masked"]
	p, m := mbPerSec(plain.speed), mbPerSec(masked.speed)
	if p == 0 || m == 0 {
		return res, fmt.Errorf("mask benchmarks not found in:\n%s", out)
	}
	r := p / m // time with masking over time without
	res.add(row{"masking 6 secrets: masker + cleaner vs cleaner alone", plain.speed, masked.speed,
		fmtRatio(r), "≤ 1.3x unmasked", verdict(r <= 1.3)})
	for _, x := range [][2]string{{"Masker", "masker alone, 6 secrets"}, {"MaskerManySecrets", "masker alone, 40 secrets"}} {
		if a, ok := speeds[x[0]]; ok {
			res.add(row{x[1], "", a.speed, "", "", ""})
		}
	}
	res.note("mask: `go %s`, MB/s of raw terminal bytes in 32 KiB chunks; allocations: %s.", strings.Join(args, " "), allocSummary(parseBench(out)))
	return res, nil
}

// mbPerSec reads "123.45 MB/s".
func mbPerSec(s string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSuffix(s, " MB/s"), 64)
	return v
}
