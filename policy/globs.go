package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// maxGlob bounds how many existing paths a glob is expanded to when it is
// judged: enough for any folder a person reads with one pattern.
const maxGlob = 1000

// globMatches lists the existing paths the glob abs (absolute, with
// forward slashes) matches as the shell expands it: one path element at a
// time, a folder reached through a symbolic link listed where the link
// points, and a name with a leading dot matched only by a pattern element
// with one. more reports that there were more than maxGlob.
func globMatches(abs string) (matches []string, more bool) {
	paths := []string{""}
	for _, part := range strings.Split(strings.TrimPrefix(abs, "/"), "/") {
		if !strings.ContainsAny(part, "*?[") {
			for i := range paths {
				paths[i] += "/" + part
			}
			continue
		}
		re, err := regexp.Compile(globElem(part))
		if err != nil {
			return nil, false
		}
		var next []string
		for _, dir := range paths {
			next = append(next, matchingNames(dir, part, re)...)
			if len(next) > maxGlob {
				return next[:maxGlob], true
			}
		}
		paths = next
	}
	return paths, false
}

// globElem is the regular expression of one element of a glob.
func globElem(part string) string {
	expr, err := pattern.Regexp(part, pattern.Filenames|pattern.EntireString|pattern.ExtendedOperators)
	if err != nil {
		return "^" + regexp.QuoteMeta(part) + "$"
	}
	return expr
}

// matchingNames are the paths in dir whose name the pattern element part
// matches.
func matchingNames(dir, part string, re *regexp.Regexp) []string {
	list := dir
	if list == "" {
		list = "/"
	}
	entries, err := os.ReadDir(filepath.FromSlash(list))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(part, ".") || !re.MatchString(name) {
			continue
		}
		out = append(out, dir+"/"+name)
	}
	return out
}

// globWhy says why reading what the glob abs matches now needs approval:
// a match that is, or leads through a symbolic link to, a protected path
// or a path outside the root (cat */credentials, with awslink -> ~/.aws in
// the root; cat s* with server.pem there). What the pattern's text could
// match was judged already.
func (a *analyzer) globWhy(abs string) (string, askClass) {
	matches, more := globMatches(abs)
	for _, m := range matches {
		real := a.p.logical(kernelPath("", m))
		if pat := a.p.readProtect.match(real, ""); pat != "" {
			return "reads a protected path: " + pat + " (the pattern matches " + m + ")", askSecret
		}
		if !inside(a.p.root, real) {
			return "reads a path outside the project root: " + real + " (the pattern matches " + m + ")", askSoft
		}
	}
	if more {
		return "the pattern " + abs + " matches too many files to judge them", askSoft
	}
	return "", askSoft
}
