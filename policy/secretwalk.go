package policy

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// fileFilter is what a recursive reader's own options say it skips: grep
// --include/--exclude/--exclude-dir, rg -g, and hidden files, which rg
// and ag pass over unless told otherwise.
type fileFilter struct {
	rules      []fileRule // --include and --exclude, in order
	excludeDir []string   // globs of base names
	skipHidden bool
}

// fileRule keeps to (include) or skips the files whose base name glob
// matches.
type fileRule struct {
	glob    string
	include bool
}

// reads reports whether a reader with this filter reads the file name:
// as grep decides, the last rule that matches wins, and a name no rule
// matches is read unless the first rule is an include (rg, which keeps
// to its includes whatever their place, is then judged as reading more).
func (f fileFilter) reads(name string) bool {
	if f.skipHidden && strings.HasPrefix(name, ".") {
		return false
	}
	for i := len(f.rules) - 1; i >= 0; i-- {
		if ok, _ := path.Match(f.rules[i].glob, name); ok {
			return f.rules[i].include
		}
	}
	return len(f.rules) == 0 || !f.rules[0].include
}

// enters reports whether a reader with this filter goes into the folder
// name.
func (f fileFilter) enters(name string) bool {
	return !(f.skipHidden && strings.HasPrefix(name, ".") || matchAny(f.excludeDir, name))
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// notSecretDirs hold what tools put there, never a secret a person keeps:
// git's store, and packages, whose test keys would otherwise make every
// search of a JavaScript project ask.
var notSecretDirs = map[string]bool{".git": true, "node_modules": true}

// secretInside looks through the folder dir (absolute, as the policy
// names it) for a protected file a recursive reader with filter f would
// read and print (grep -r TOKEN . prints .env), or a repository config
// holding a credential (gitCredentials), and says why reading dir needs
// approval, or "". Links are not followed: a reader that follows them is
// judged by linksOut. A folder too large to look through is asked about.
func (p *Policy) secretInside(dir string, f fileFilter) (string, askClass) {
	n, found := 0, ""
	base := filepath.ToSlash(kernelPath("", dir))
	err := filepath.WalkDir(filepath.FromSlash(base), func(native string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read here cannot be read by the command either
		}
		if n++; n > maxWalk {
			return errWalkBound
		}
		here := dir + strings.TrimPrefix(filepath.ToSlash(native), base)
		switch {
		case e.IsDir() && n > 1 && !f.enters(e.Name()):
			return fs.SkipDir
		case e.IsDir() && n > 1 && notSecretDirs[e.Name()]:
			if e.Name() == ".git" && gitCredentials(filepath.Join(native, "config")) {
				found = here + "/config"
				return fs.SkipAll
			}
			return fs.SkipDir
		case !e.IsDir() && f.reads(e.Name()) && p.readProtect.match(here, "") != "":
			found = here
			return fs.SkipAll
		}
		return nil
	})
	switch {
	case found != "" && isGitConfig(found):
		return "reads everything in " + dir + ", which holds " + found + ", a repository config with a credential" +
			" (--exclude-dir=.git keeps it out)", askSecret
	case found != "":
		return "reads everything in " + dir + ", which holds " + found + ", a protected path: " +
			p.readProtect.match(found, "") + " (excluding it, as grep --exclude does, or naming the folders to read keeps it out)", askSecret
	case errors.Is(err, errWalkBound):
		return "reads everything in " + dir + ", which holds too many files to look for secrets among them", askSoft
	}
	return "", askSoft
}
