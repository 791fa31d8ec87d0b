package cleaner

import (
	"strconv"
	"strings"
)

// cutMarker ends a line that was cut; n is the number of characters cut.
func cutMarker(n int) string { return "...[" + strconv.Itoa(n) + " chars]" }

// capLine cuts text, which is followed by extra characters not held, to at
// most limit characters including the cut marker.
func capLine(text string, chars, extra, limit int) (string, int, bool) {
	total := chars + extra
	if total <= limit {
		return text, chars, false
	}
	keep := min(limit, chars)
	for keep > 0 && keep+len(cutMarker(total-keep)) > limit {
		keep--
	}
	kept := prefixChars(text, keep)
	m := cutMarker(total - keep)
	return kept + m, keep + len(m), true
}

// prefixChars returns the first n characters of s.
func prefixChars(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// errorStart marks the bytes that can begin a word looksLikeError looks
// for, so its scan skips every other byte with one lookup.
var errorStart = [256]bool{'e': true, 'E': true, 'F': true, 'p': true, 'T': true, 'w': true, 'W': true}

// looksLikeError reports whether a line reads like an error (it contains
// error, Error, ERROR, FAIL, panic, Traceback, exception or Exception), or
// like a compiler warning that points at a file and line. It runs on every
// line that falls out of a long output's tail, hence one pass.
func looksLikeError(s string) bool {
	warning := false
	for i := 0; i+4 <= len(s); i++ {
		if !errorStart[s[i]] {
			continue
		}
		switch rest := s[i:]; rest[0] {
		case 'e':
			if strings.HasPrefix(rest, "error") || strings.HasPrefix(rest, "exception") {
				return true
			}
		case 'E':
			if strings.HasPrefix(rest, "Error") || strings.HasPrefix(rest, "ERROR") || strings.HasPrefix(rest, "Exception") {
				return true
			}
		case 'F':
			if strings.HasPrefix(rest, "FAIL") {
				return true
			}
		case 'p':
			if strings.HasPrefix(rest, "panic") {
				return true
			}
		case 'T':
			if strings.HasPrefix(rest, "Traceback") {
				return true
			}
		default:
			warning = warning || strings.HasPrefix(rest, "warning") || strings.HasPrefix(rest, "Warning") || strings.HasPrefix(rest, "WARNING")
		}
	}
	return warning && hasFileLine(s)
}

// hasFileLine reports whether s contains something like "name.ext:12".
func hasFileLine(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] != ':' || s[i+1] < '0' || s[i+1] > '9' {
			continue
		}
		for j := i - 1; j > 0 && s[j] != ' ' && s[j] != '\t' && s[j] != ':'; j-- {
			if s[j] == '.' && isWordByte(s[j-1]) && isWordByte(s[j+1]) {
				return true
			}
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
