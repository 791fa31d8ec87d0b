package session

import (
	"regexp"
	"strings"
	"time"
)

// rawRead is a background command blocked reading keys in raw mode. It is
// either asking a person something (npx's "Ok to proceed? (y)", a [Y/n])
// or a server listening for its shortcuts while it serves (vite's "press
// h + enter to show help"); both look the same to the kernel.
type rawRead struct {
	line    string        // the last line the terminal shows
	printed bool          // the command printed since it began reading keys
	quiet   time.Duration // how long it has been silent, reading keys
}

// question tells a question from a shortcut listener:
//   - a line that asks (ends with "?", starts with "? ", offers a choice
//     such as "(y)" or "[Y/n]", asks for a password or for a key to
//     continue) is a question at once;
//   - a line that names keys to press for an action ("press h to show
//     help", "Hit CTRL-C to stop") belongs to a listener;
//   - a command that prints while it reads is serving, not asking;
//   - a line that ends as an input prompt does (":", ">", "$", "#") is a
//     question once the command has read keys in silence for patience;
//     a line ending in a bracket is more often a log line ("GET / (200)",
//     "[vite] hmr update") than a prompt.
func (r rawRead) question(patience time.Duration) bool {
	line := strings.TrimSpace(r.line)
	switch {
	case line == "":
		return false
	case asks(line):
		return true
	case shortcutHint.MatchString(line) && !strings.HasSuffix(line, ":"), r.printed:
		return false
	}
	return r.quiet >= patience && strings.ContainsAny(line[len(line)-1:], ":>$#")
}

var (
	// choice is a set of answers offered in brackets: (y), [Y/n],
	// (yes/no), [y,n,q,a,?].
	choice = regexp.MustCompile(`(?i)[\[(]\s*(y|yes|n|no)\s*([/,|]\s*[a-z?]+\s*)*[\])]`)
	// shortcutHint names a key and what it does.
	shortcutHint = regexp.MustCompile(`(?i)\b(press|hit|type)\s+\S+.*\b(to|for)\b`)
	// toGoOn asks for a key before the command goes on.
	toGoOn = regexp.MustCompile(`(?i)\bany key\b|\bto (continue|proceed)\b`)
)

// asks reports whether a line, trimmed, asks a person something.
func asks(line string) bool {
	lower := strings.ToLower(line)
	secret := strings.Contains(lower, "password") || strings.Contains(lower, "passphrase")
	return strings.HasSuffix(line, "?") || strings.HasPrefix(line, "? ") ||
		choice.MatchString(line) || toGoOn.MatchString(line) ||
		(secret && strings.HasSuffix(line, ":"))
}
