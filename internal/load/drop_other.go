//go:build !linux

package main

import "errors"

// dropFile: only Linux lets a process evict another file's pages without
// privileges; elsewhere the load is the spinners and the writer alone.
func dropFile(string) error {
	return errors.New("evicting the page cache is supported on Linux only")
}
