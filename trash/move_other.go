//go:build !linux

package trash

// moveNoReplace renames unless something is at dst. Between the check and
// the rename another process could create dst; Linux closes that gap with
// RENAME_NOREPLACE.
func moveNoReplace(src, dst string) error {
	return checkThenRename(src, dst)
}
