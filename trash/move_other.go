//go:build unix && !linux

package trash

// renameNoReplace renames unless something is at to. Between the check
// and the rename another process could create it; Linux closes that gap
// with RENAME_NOREPLACE.
func renameNoReplace(fromDir int, from string, toDir int, to string) error {
	return checkThenRenameat(fromDir, from, toDir, to)
}

// inFolder names to in the open folder dir; without /proc, by its path.
func inFolder(_ int, _, fallback string) string { return fallback }
