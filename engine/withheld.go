package engine

import (
	"strings"

	"github.com/termhelper/termhelper/platform"
)

// WithheldPrefix begins the value a confined command finds in place of
// each masked variable of the helper's own environment: the prefix, then
// the variable's name (termhelper-masked:OPENAI_API_KEY). Masking output
// catches a value printed as it is, not one printed reversed or encoded;
// a command that never had the value cannot print it at all. The real
// value reaches only a line that runs unconfined (an approved line that
// leaves the sandbox, or any line with the sandbox off).
const WithheldPrefix = "termhelper-masked:"

// withheld is the layer of placeholders for a confined command: every
// masked variable of the base environment the request does not set
// itself (a request's own value was chosen by the host, and is masked
// in output as before).
func (e *Engine) withheld(set map[string]*string) map[string]*string {
	e.preparedEnv()
	c := &e.env
	c.mu.Lock()
	names := c.names
	c.mu.Unlock()
	out := make(map[string]*string, len(names))
	for _, name := range names {
		if !setsVar(set, name) {
			v := WithheldPrefix + name
			out[name] = &v
		}
	}
	return out
}

// setsVar reports whether the request's env names the variable.
func setsVar(set map[string]*string, name string) bool {
	if _, ok := set[name]; ok {
		return true
	}
	if !platform.FoldEnvCase {
		return false
	}
	for k := range set {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
