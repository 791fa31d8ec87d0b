//go:build windows

package platform

import (
	"os"

	"golang.org/x/sys/windows"
)

func init() {
	osRealPath = finalPathName
}

// finalPathName asks Windows where p really is: the path of the file it
// opens, with symbolic links, junctions, mounted folders, subst drives and
// short (8.3) names resolved. filepath.EvalSymlinks does not follow
// junctions since Go 1.23.
func finalPathName(p string) (string, error) {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", err
	}
	// Backup semantics lets a directory be opened; no access right is
	// needed to ask for its name.
	h, err := windows.CreateFile(name, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_PATH)
	for {
		// Flags 0: the normalized name with its drive letter (VOLUME_NAME_DOS).
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), 0)
		if err != nil {
			return "", &os.PathError{Op: "resolve", Path: p, Err: err}
		}
		if n < uint32(len(buf)) {
			return winTrimExtended(windows.UTF16ToString(buf[:n])), nil
		}
		buf = make([]uint16, n)
	}
}
