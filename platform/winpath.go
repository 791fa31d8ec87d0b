package platform

import (
	"path/filepath"
	"runtime"
	"strings"
)

// Windows path rules, without build tags so that they are tested on every
// system: a path starts with a volume (a drive letter, "C:", or a UNC
// share, `\\server\share`), either separator is accepted, and names
// compare without case.

// osRealPath follows every link in a path. Windows replaces it (see
// winpath_windows.go): there EvalSymlinks leaves junctions alone, which
// would let a junction inside the root lead outside it unseen.
var osRealPath = filepath.EvalSymlinks

// RealPath returns p with every symbolic link (and, on Windows, junction)
// followed: the path that the system itself opens.
func RealPath(p string) (string, error) {
	return osRealPath(p)
}

// PathWithin reports whether path is root or below it, by the running
// system's rules: WithinFold on Windows, Within elsewhere. Both must be
// absolute, as RealPath returns them.
func PathWithin(root, path string) bool {
	if runtime.GOOS == "windows" {
		return WithinFold(root, path)
	}
	return Within(root, path)
}

// WithinFold reports whether path is root or below it by Windows rules:
// the volumes match, and every name of root matches the one of path at the
// same depth without case. Both must be absolute; "." and ".." are applied
// first, as Windows does before it looks at the disk.
func WithinFold(root, path string) bool {
	rv, rr := winSplitVolume(WinClean(root))
	pv, pr := winSplitVolume(WinClean(path))
	if rv == "" || pv == "" || !winSameName(rv, pv) || !winRooted(rr) || !winRooted(pr) {
		return false
	}
	rn, pn := winNames(rr), winNames(pr)
	if len(pn) < len(rn) {
		return false
	}
	for i, n := range rn {
		if !winSameName(n, pn[i]) {
			return false
		}
	}
	return true
}

// winSameName compares names as NTFS does: each letter by its simple upper
// case (not full case folding, under which "K" and the Kelvin sign would
// match though they are different files).
func winSameName(a, b string) bool {
	//lint:ignore SA6005 EqualFold folds more than NTFS does (see above)
	return strings.ToUpper(a) == strings.ToUpper(b)
}

// WinClean returns the shortest form of a Windows path: slashes become
// backslashes, "." and ".." are applied without climbing above the volume,
// repeated separators go, the \\?\ prefix of an extended-length path is
// dropped, and a drive letter is upper case. The root of a volume keeps
// its backslash ("C:\").
func WinClean(p string) string {
	p = winTrimExtended(strings.ReplaceAll(p, "/", `\`))
	vol, rest := winSplitVolume(p)
	if len(vol) == 2 {
		vol = strings.ToUpper(vol)
	}
	names := winNames(rest)
	var out []string
	for _, n := range names {
		switch {
		case n == ".":
		case n == ".." && len(out) > 0 && out[len(out)-1] != "..":
			out = out[:len(out)-1]
		case n == ".." && winRooted(rest):
			// Above the volume's root is the root itself.
		default:
			out = append(out, n)
		}
	}
	joined := strings.Join(out, `\`)
	if winRooted(rest) {
		return vol + `\` + joined
	}
	if joined == "" && vol == "" {
		return "."
	}
	return vol + joined
}

// winTrimExtended turns \\?\C:\x into C:\x and \\?\UNC\srv\share into
// \\srv\share, the form the rest of the system (and a person) uses.
func winTrimExtended(p string) string {
	for _, prefix := range []string{`\\?\`, `\??\`} {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if len(rest) >= 4 && strings.EqualFold(rest[:4], `UNC\`) {
			return `\\` + rest[4:]
		}
		return rest
	}
	return p
}

// winSplitVolume splits off the volume: "C:" or `\\server\share`.
func winSplitVolume(p string) (vol, rest string) {
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return p[:2], p[2:]
	}
	if !strings.HasPrefix(p, `\\`) {
		return "", p
	}
	parts := strings.SplitN(p[2:], `\`, 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", p
	}
	vol = `\\` + parts[0] + `\` + parts[1]
	return vol, p[len(vol):]
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func winRooted(rest string) bool {
	return strings.HasPrefix(rest, `\`)
}

// winNames lists the names of a path after its volume, without empty ones.
func winNames(rest string) []string {
	var names []string
	for _, n := range strings.Split(rest, `\`) {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}
