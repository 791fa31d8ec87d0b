package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// dropFile asks the kernel to evict path's pages from the page cache; a
// file that cannot be opened (gone, no permission) is skipped.
func dropFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	if errors.Is(err, unix.ESPIPE) || errors.Is(err, unix.EINVAL) {
		return nil // not a file with a page cache of its own
	}
	return err
}
