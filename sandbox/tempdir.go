package sandbox

import "os"

// MakeTempDir makes the helper's temporary folder, private to the user,
// under the system's: the one folder every confined command may write,
// given to commands as TMPDIR. The caller runs remove at exit.
func MakeTempDir() (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", "termhelper-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
