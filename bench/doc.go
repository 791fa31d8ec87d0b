// Command bench measures termhelper against the physical floor of the
// machine it runs on, in the same run: start-up, round trip, exit and
// prompt detection, big output, throughput, many sessions at once, the
// cleaner alone, downloads through the egress proxy, and `echo hi` beside
// node-pty (peers). It drives the built binary over its real protocol,
// the way a host does, and prints a Markdown table of the floor, termhelper
// and their ratio next to each target.
//
//	go build -o bin/termhelper . && go run ./bench -bin bin/termhelper
//	go run ./bench -bin bin/termhelper -quick          # the CI smoke run
//	go run ./bench -bin bin/termhelper -only roundtrip
//
// Timings are reported, never asserted: the machine is shared and noisy,
// so only medians and ratios taken in one run mean anything. The suite
// reads /proc, so it runs on Linux only.
package main
