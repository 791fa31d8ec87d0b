//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The measures read /proc (RSS, fds, blocked reads), which only Linux has.
func main() {
	fmt.Fprintln(os.Stderr, "bench: runs on Linux only")
	os.Exit(2)
}
