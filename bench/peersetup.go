//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// peerFiles are what the peers section writes to its cache folder: the
// pinned node-pty, its lock file, and the node side of the measure.
//
//go:embed peers/package.json peers/package-lock.json peers/runner.js
var peerFiles embed.FS

// installTimeout bounds npm ci, which fetches node-pty and compiles it.
const installTimeout = 5 * time.Minute

// stampFile, in the cache folder, holds the hash of the lock file that the
// last successful npm ci installed.
const stampFile = "installed"

// peerSetup makes the cache folder ready for the peers section: the files
// written and node-pty installed, by npm ci, only when -only names the
// section. It returns the folder, or why the section is skipped.
func peerSetup() (dir, why string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not on PATH; install Node.js and npm (e.g. `apt-get install nodejs npm`), then run `go run ./bench -bin bin/termhelper -only peers`"
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Sprintf("no cache folder for node-pty (%v); set XDG_CACHE_HOME", err)
	}
	dir = filepath.Join(cache, "termhelper-bench", "peers")
	lock := lockHash()
	if !installed(dir, lock) && !named("peers") {
		return "", fmt.Sprintf("node-pty is not installed in %s; `go run ./bench -bin bin/termhelper -only peers` installs it (npm ci of bench/peers/package-lock.json)", dir)
	}
	if err := writePeerFiles(dir); err != nil {
		return "", fmt.Sprintf("cannot write %s: %v", dir, err)
	}
	if installed(dir, lock) {
		return dir, ""
	}
	if err := npmCI(dir, lock); err != nil {
		return "", fmt.Sprintf("installing node-pty failed: %v; to try again: `go run ./bench -bin bin/termhelper -only peers` (npm's whole output: `cd %s && npm ci`)", err, dir)
	}
	return dir, ""
}

// lockHash is the hash of the embedded lock file, which names what an
// install in the cache folder installed.
func lockHash() string {
	b, _ := peerFiles.ReadFile("peers/package-lock.json") // embedded: it is there
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// writePeerFiles writes the embedded files to dir.
func writePeerFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"package.json", "package-lock.json", "runner.js"} {
		b, err := peerFiles.ReadFile(path.Join("peers", name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// installed tells whether the last npm ci in dir installed this lock.
func installed(dir, lock string) bool {
	b, err := os.ReadFile(filepath.Join(dir, stampFile))
	return err == nil && strings.TrimSpace(string(b)) == lock
}

// npmCI installs the locked node-pty in dir and stamps the folder.
func npmCI(dir, lock string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm is not on PATH (e.g. `apt-get install npm`)")
	}
	os.Remove(filepath.Join(dir, stampFile))
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	fmt.Fprintf(os.Stderr, "bench: peers: npm ci in %s...\n", dir)
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	var out bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci: %v: %s", err, tail(out.String(), 400))
	}
	return os.WriteFile(filepath.Join(dir, stampFile), []byte(lock+"\n"), 0o644)
}

// named tells whether the run's -only flag names the section.
func named(section string) bool {
	f := flag.Lookup("only")
	return f != nil && inList(f.Value.String(), section)
}

// tail is the last n bytes of s, on one line: where npm says what failed.
func tail(s string, n int) string {
	s = oneLine(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// head is the first n bytes of s, on one line: where node says what failed.
func head(s string, n int) string {
	s = oneLine(s)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
