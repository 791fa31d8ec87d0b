package policy

import "strings"

// longName returns the option of list (space separated) that the word t,
// --name or --name=value, stands for as GNU getopt_long reads it: the
// exact name, or an abbreviation (date --f=FILE is date --file=FILE, grep
// --only is --only-matching). "" when t names none of them. An
// abbreviation of several listed options counts as the first: the program
// refuses an ambiguous one, and the options listed are those worth asking
// about, so taking it for one of them only ever asks more.
func longName(t, list string) string {
	name, _, _ := strings.Cut(t, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") {
		return ""
	}
	abbrev := ""
	for _, o := range strings.Fields(list) {
		switch {
		case o == name:
			return o
		case abbrev == "" && strings.HasPrefix(o, name):
			abbrev = o
		}
	}
	return abbrev
}

// isLong reports whether t stands for the long option opt (see longName).
func isLong(t, opt string) bool { return longName(t, opt) != "" }

// optValue finds the value of a short option (letter, in a group: -rt
// DIR, -tDIR) or a long one (long, abbreviated: --target=DIR, --t DIR) at
// ws[i]. It returns the value and how many more words it used, or nil.
// takers are the letters whose own value takes the rest of a group.
func optValue(ws []word, i int, letter byte, takers, long string) (*word, int) {
	t := ws[i].text
	v := ws[i]
	switch {
	case long != "" && isLong(t, long) && strings.Contains(t, "="):
		_, v.text, _ = strings.Cut(t, "=")
		return &v, 0
	case long != "" && isLong(t, long), t == "-"+string(letter), groupEnds(t, letter, takers):
		if i+1 < len(ws) {
			return &ws[i+1], 1
		}
	case shortValue(t, letter, takers) != "":
		v.text = shortValue(t, letter, takers)
		return &v, 0
	}
	return nil, 0
}

// groupEnds reports a group of short options whose last letter is letter
// (-rt): its value is the next word.
func groupEnds(t string, letter byte, takers string) bool {
	return len(t) > 2 && t[len(t)-1] == letter && t[1] != '-' && t[0] == '-' &&
		!strings.ContainsAny(t[1:len(t)-1], takers)
}

// shortValue returns the value stuck to the short option letter in a
// group of short options (-iSCODE: S's value is CODE), or "" when the
// group holds no such letter with a value after it. Scanning stops at one
// of takers, letters that take the rest of the group as their own value.
func shortValue(t string, letter byte, takers string) string {
	if len(t) < 3 || t[0] != '-' || t[1] == '-' {
		return ""
	}
	for j := 1; j < len(t); j++ {
		switch {
		case t[j] == letter:
			return t[j+1:]
		case strings.IndexByte(takers, t[j]) >= 0:
			return ""
		}
	}
	return ""
}
