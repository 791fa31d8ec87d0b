//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// setupProfiling makes every helper the bench spawns write a CPU profile
// (termhelper's --cpuprofile) to the -profile folder.
func (e *env) setupProfiling() error {
	var err error
	if e.prof, err = filepath.Abs(e.prof); err != nil {
		return err
	}
	return os.MkdirAll(e.prof, 0o755)
}

// profileArgs returns the arguments that make the next helper write its
// profile, named by section and count.
func (e *env) profileArgs() (env, args []string) {
	if e.prof == "" {
		return nil, nil
	}
	e.nprof++
	path := filepath.Join(e.prof, fmt.Sprintf("%s-%03d.pprof", e.section, e.nprof))
	return nil, []string{"--cpuprofile", path}
}
