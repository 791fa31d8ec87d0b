package sandbox

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"slices"
)

// SubmoduleGits are the .git entries, as paths in the root, of every
// submodule the repository's index lists: git status runs git in each
// one that is there, with its config. A command may write the index
// (git add does) and make a repository anywhere in the root, so a
// submodule entry it adds leads the user's git in the root to config it
// wrote; the engine names such a .git in the next approval question.
// An index it cannot read lists none.
func SubmoduleGits(root string) []string {
	gitDir, common := gitDirs(root, nil)
	return submoduleGits(root, gitDir, common, nil)
}

func submoduleGits(root, gitDir, common string, r *reads) []string {
	if slices.Contains(configValues(filepath.Join(common, "config"), "extensions", "objectFormat", r), "sha256") {
		return nil // longer object names: not read here
	}
	data, err := r.readFile(filepath.Join(gitDir, "index"))
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range gitlinks(data) {
		out = append(out, filepath.Join(root, filepath.FromSlash(p), ".git"))
	}
	return out
}

// gitlinks are the paths of the submodule entries (mode 160000) of an
// index file, versions 2 to 4, SHA-1 object names.
func gitlinks(data []byte) []string {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil
	}
	version, n := binary.BigEndian.Uint32(data[4:]), binary.BigEndian.Uint32(data[8:])
	if version < 2 || version > 4 {
		return nil
	}
	var out []string
	var prev []byte
	rest := data[12:]
	for range n {
		e, ok := readEntry(rest, version, prev)
		if !ok {
			return out
		}
		if e.mode>>12 == 0o16 {
			out = append(out, string(e.path))
		}
		prev, rest = e.path, rest[e.size:]
	}
	return out
}

type indexEntry struct {
	mode uint32
	path []byte
	size int // bytes taken in the index
}

// entryFixed is an entry's stat data, object name and flags.
const entryFixed = 40 + 20 + 2

// readEntry reads one index entry: in version 4 its path drops the
// previous path's tail and is not padded.
func readEntry(b []byte, version uint32, prev []byte) (indexEntry, bool) {
	if len(b) < entryFixed {
		return indexEntry{}, false
	}
	e := indexEntry{mode: binary.BigEndian.Uint32(b[24:]), size: entryFixed}
	if version >= 3 && binary.BigEndian.Uint16(b[60:])&0x4000 != 0 {
		e.size += 2
	}
	if version == 4 {
		return readPathV4(b, e, prev)
	}
	end := bytes.IndexByte(b[e.size:], 0)
	if end < 0 {
		return indexEntry{}, false
	}
	e.path = b[e.size : e.size+end]
	e.size = (e.size + end + 8) &^ 7 // the path and 1 to 8 NULs, to a multiple of 8
	return e, e.size <= len(b)
}

// readPathV4 reads a version 4 path: how much of the previous path to
// drop, then the rest, NUL-ended and not padded.
func readPathV4(b []byte, e indexEntry, prev []byte) (indexEntry, bool) {
	strip, n := offsetVarint(b[e.size:])
	if n == 0 || strip > uint64(len(prev)) {
		return indexEntry{}, false
	}
	e.size += n
	end := bytes.IndexByte(b[e.size:], 0)
	if end < 0 {
		return indexEntry{}, false
	}
	e.path = append(append([]byte{}, prev[:len(prev)-int(strip)]...), b[e.size:e.size+end]...)
	e.size += end + 1
	return e, true
}

// offsetVarint reads git's offset encoding (seven bits a byte, high
// groups first, each continuation adding one), and the bytes it took;
// 0 for a malformed one.
func offsetVarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i > 0 {
			v++
		}
		if v>>57 != 0 {
			return 0, 0
		}
		v = v<<7 | uint64(c&127)
		if c&128 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
