//go:build !unix

package spill

import (
	"io/fs"
	"os"
	"strings"
)

// ownedByMe: on Windows the temporary folder is already the user's own
// (%LOCALAPPDATA%\Temp), and ownership is an ACL, not a uid.
func ownedByMe(fs.FileInfo) bool { return true }

// private: Windows has no Unix permission bits to check.
func private(fs.FileInfo) bool { return true }

// userTag tells users apart in folder names where a temporary folder is
// shared after all.
func userTag() string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, os.Getenv("USERNAME"))
}
