package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// maxWalk bounds how many entries are looked at for links leading out of a
// folder that a recursive read following links reads: listing a folder
// costs little per entry (no stat), a node_modules holds tens of
// thousands. A variable for the tests.
var maxWalk = 50000

var errWalkBound = errors.New("too many entries")

// linksOut looks through the folder dir (absolute, as the policy names it)
// for a symbolic link that a recursive read following links would take
// out of the root (a repository can ship sshlink -> ~/.ssh), and says why
// that needs approval, or "". Links to folders inside the root are looked
// through too, since the read follows them. A folder too large to look
// through is asked about.
func (p *Policy) linksOut(dir string) (string, askClass) {
	queue := []string{kernelPath("", dir)}
	walked := []string{}
	n := 0
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if walkedUnder(walked, d) {
			continue
		}
		walked = append(walked, d)
		why, class, more, err := p.walkLinks(d, &n)
		switch {
		case errors.Is(err, errWalkBound):
			return "follows symbolic links in " + dir + ", which holds too many files to look for links leading out of the root", askSoft
		case why != "":
			return why, class
		}
		queue = append(queue, more...)
	}
	return "", askSoft
}

func walkedUnder(walked []string, d string) bool {
	for _, w := range walked {
		if inside(w, d) {
			return true
		}
	}
	return false
}

// walkLinks walks one folder without following links, and judges each
// link it meets; it returns the folders inside the root that links lead
// to, to be walked in turn.
func (p *Policy) walkLinks(dir string, n *int) (why string, class askClass, more []string, err error) {
	err = filepath.WalkDir(filepath.FromSlash(dir), func(native string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read here cannot be read by the command either
		}
		if *n++; *n > maxWalk {
			return errWalkBound
		}
		if e.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		link := filepath.ToSlash(native)
		real := kernelPath("", link)
		target := p.logical(real)
		why, class = p.linkWhy(p.logical(link), target)
		if why != "" {
			return fs.SkipAll
		}
		if isDir(real) {
			more = append(more, real)
		}
		return nil
	})
	return why, class, more, err
}

// linkWhy says why a read that follows link to target needs approval.
func (p *Policy) linkWhy(link, target string) (string, askClass) {
	switch {
	case p.readProtect.match(target, "") != "":
		return "follows the symbolic link " + link + " to a protected path: " + p.readProtect.match(target, ""), askSecret
	case p.readProtect.under(target) != "":
		return "follows the symbolic link " + link + " to " + target + ", which holds a protected path: " + p.readProtect.under(target), askSecret
	case !inside(p.root, target):
		return "follows the symbolic link " + link + " out of the project root, to " + target, askSoft
	}
	return "", askSoft
}

func isDir(p string) bool {
	fi, err := os.Stat(filepath.FromSlash(p))
	return err == nil && fi.IsDir()
}
