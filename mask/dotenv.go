package mask

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// DotenvValues returns the values to mask of a .env file's text
// (NAME=value lines, "export " allowed, values quoted or not, # comments;
// a double-quoted value may span lines, and each of its lines is a value
// of its own, as a terminal prints it). A value is masked when a
// variable's would be (SecretValues: the name looks secret, the value has
// 8 bytes or more and is no setting word), and under any other name when
// it has 8 bytes or more and is not plain (see plain): a .env file holds
// secrets under any name (DATABASE_URL, STRIPE_SK), and also settings
// whose masking would garble output (NODE_ENV=development,
// HOST=localhost).
func DotenvValues(data []byte, names []string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		name = strings.TrimSpace(strings.TrimPrefix(name, "export "))
		if !ok || name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		for _, v := range dotenvValue(strings.TrimSpace(value), sc) {
			if secretValue(v) && (secretName(name, names) || !plain(v)) {
				out = append(out, v)
			}
		}
	}
	return out
}

// dotenvValue is the value that begins with v, reading on for a double
// quote closed on a later line; each line of a value is one entry, and
// so is each part between written \n escapes.
func dotenvValue(v string, sc *bufio.Scanner) []string {
	switch {
	case strings.HasPrefix(v, "'"):
		v, _, _ = strings.Cut(v[1:], "'")
		return []string{v}
	case strings.HasPrefix(v, `"`):
		var lines []string
		rest, found := closing(v[1:])
		for lines = append(lines, rest); !found && sc.Scan(); lines = append(lines, rest) {
			rest, found = closing(sc.Text())
		}
		var out []string
		for _, l := range lines {
			out = append(out, strings.Split(l, `\n`)...)
		}
		return out
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return []string{v}
}

// closing is s up to an unescaped double quote, and whether there was one.
func closing(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i], true
		}
	}
	return s, false
}

// plainValue matches values that are settings rather than secrets:
// words and names (development, my-app, Example Inc), numbers, addresses
// and versions (3000, 127.0.0.1, 1.2.3), a host and port
// (localhost:5432), a URL with no password in it, a path.
var plainValue = regexp.MustCompile(`^(?:[A-Za-z ._-]+|[0-9.:]+|[a-z0-9.-]+:[0-9]+|[a-z][a-z0-9+.-]*://[^@\s]*|\.{0,2}/[A-Za-z0-9._/-]*)$`)

// plain reports whether a .env value under a name that does not look
// secret is left unmasked.
func plain(v string) bool { return plainValue.MatchString(v) }
