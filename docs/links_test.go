package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repo is the repository root, from this package's folder.
const repo = ".."

// link is a Markdown inline link's target: [text](target).
var link = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// documents are the Markdown files a reader follows links in: the
// README, docs/, the changelog, security policy and contributing guide,
// and every package's README.
func documents(t *testing.T) []string {
	docs := []string{"README.md", "CHANGELOG.md", "SECURITY.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "dist"):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"),
			strings.HasPrefix(rel, "npm/") && d.Name() == "README.md":
			docs = append(docs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestRelativeLinksResolve: every relative link in the documents names a
// file inside the repository, and every #anchor a heading of its file.
func TestRelativeLinksResolve(t *testing.T) {
	abs, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range documents(t) {
		for _, l := range links(t, doc) {
			checkLink(t, abs, doc, l)
		}
	}
}

// links are the inline link targets of a Markdown file, outside code.
func links(t *testing.T, doc string) []string {
	f, err := os.Open(filepath.Join(repo, doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	defer f.Close()
	var out []string
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(line), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// withoutCode drops `code spans`, where brackets are not links.
func withoutCode(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "")
}

func checkLink(t *testing.T, root, doc, target string) {
	t.Helper()
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := filepath.Join(repo, filepath.Dir(doc), path)
	if path == "" {
		file = filepath.Join(repo, doc)
	}
	abs, err := filepath.Abs(file)
	if err != nil || !strings.HasPrefix(abs+string(filepath.Separator), root+string(filepath.Separator)) {
		t.Errorf("%s: %s leads outside the repository", doc, target)
		return
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("%s: %s does not exist", doc, target)
		return
	}
	if anchor != "" && strings.HasSuffix(file, ".md") && !hasAnchor(t, file, anchor) {
		t.Errorf("%s: %s: no heading makes the anchor #%s", doc, target, anchor)
	}
}

// hasAnchor tells whether a heading of the file has the anchor GitHub
// makes for it: lower case, punctuation dropped, spaces as hyphens.
func hasAnchor(t *testing.T, file, anchor string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") && slug(strings.TrimLeft(line, "# ")) == anchor {
			return true
		}
	}
	return false
}

var notSlug = regexp.MustCompile(`[^\p{L}\p{N} _-]`)

func slug(heading string) string {
	return strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}
