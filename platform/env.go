package platform

import (
	"sort"
	"strings"
)

// Defaults is the non-interactive environment every command gets unless
// the request or the config overrides a variable: nothing waits on a pager
// or a credential prompt that no person will see.
var Defaults = map[string]string{
	"PAGER":               "cat",
	"GIT_PAGER":           "cat",
	"GIT_TERMINAL_PROMPT": "0",
	"TERM":                "xterm-256color",
}

// MergeEnv overlays layers on base, in order: a nil value unsets a
// variable. foldCase compares names case-insensitively (Windows), keeping
// the spelling of the first one seen. The result is sorted by name.
func MergeEnv(base []string, foldCase bool, layers ...map[string]*string) []string {
	key := func(k string) string {
		if foldCase {
			return strings.ToUpper(k)
		}
		return k
	}
	vals := map[string]string{}
	names := map[string]string{}
	set := func(k, v string) {
		if _, ok := names[key(k)]; !ok {
			names[key(k)] = k
		}
		vals[key(k)] = v
	}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			set(k, v)
		}
	}
	for _, layer := range layers {
		for k, v := range layer {
			if v == nil {
				delete(vals, key(k))
				delete(names, key(k))
				continue
			}
			set(k, *v)
		}
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, names[k]+"="+v)
	}
	sort.Strings(out)
	return out
}

// DefaultsFor returns the defaults as a layer over base: they replace the
// helper's own values (a PAGER=less the editor was started with would
// still hang a command), and a UTF-8 locale is added only where base sets
// none.
func DefaultsFor(base []string) map[string]*string {
	have := map[string]bool{}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		have[k] = true
	}
	layer := map[string]*string{}
	for k, v := range Defaults {
		layer[k] = &v
	}
	if !have["LANG"] && !have["LC_ALL"] {
		utf8 := "C.UTF-8"
		layer["LANG"] = &utf8
	}
	return layer
}

// Overlay returns base with the layers applied in order (a nil value
// unsets). Unlike MergeEnv it keeps base's order and does no map or sort
// over base: it is for the few variables a single command adds to an
// environment prepared once.
func Overlay(base []string, foldCase bool, layers ...map[string]*string) []string {
	key := func(k string) string {
		if foldCase {
			return strings.ToUpper(k)
		}
		return k
	}
	final := map[string]*string{}
	var order []string
	for _, layer := range layers {
		for k, v := range layer {
			if _, seen := final[key(k)]; !seen {
				order = append(order, k)
			}
			final[key(k)] = v
		}
	}
	if len(final) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(final))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := final[key(k)]; !over {
			out = append(out, kv)
		}
	}
	sort.Strings(order) // a stable result whatever the maps' order
	for _, k := range order {
		if v := final[key(k)]; v != nil {
			out = append(out, k+"="+*v)
		}
	}
	return out
}
