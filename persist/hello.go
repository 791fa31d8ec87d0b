package persist

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// Hello opens every connection: who the relay is and what it was started
// with.
type Hello struct {
	Version string `json:"version"` // termhelper's: the background helper's must be the same
	Root    string `json:"root"`
	// Settings must all agree with the background helper's: --persist,
	// --config and every value of the merged config (see Settings).
	Settings map[string]string `json:"settings"`
	MCP      bool              `json:"mcp"`     // this connection's front end
	Framing  string            `json:"framing"` // the native front end's --framing
}

// Welcome answers a Hello: Error empty, the connection is the front
// end's; else why it is refused, and the setting that differs if one does.
type Welcome struct {
	Error   string `json:"error,omitempty"`
	Setting string `json:"setting,omitempty"`
}

// helloWait bounds each side's wait for the other's line: a peer that
// connects and says nothing is not served.
const helloWait = 30 * time.Second

// Settings flattens v's JSON to "Key.Sub" = value text, the form in which
// two helpers' settings are compared and a difference named.
func Settings(v any) map[string]string {
	out := map[string]string{}
	b, err := json.Marshal(v)
	if err != nil {
		return out
	}
	var tree any
	if json.Unmarshal(b, &tree) == nil {
		flatten("", tree, out)
	}
	return out
}

func flatten(key string, v any, out map[string]string) {
	m, ok := v.(map[string]any)
	if !ok {
		b, _ := json.Marshal(v)
		out[key] = string(b)
		return
	}
	for k, sub := range m {
		if key != "" {
			k = key + "." + k
		}
		flatten(k, sub, out)
	}
}

// agree is the refusal of a connection whose hello does not match the
// background helper's own, or nil.
func agree(own, h Hello) *Welcome {
	if h.Version != own.Version {
		return &Welcome{Setting: "version", Error: fmt.Sprintf(
			"the background helper for %s runs %s, this is %s: let it exit (its sessions end after the persist grace) or start the same version",
			own.Root, own.Version, h.Version)}
	}
	keys := slices.Sorted(maps.Keys(own.Settings))
	for k := range h.Settings {
		if _, ok := own.Settings[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if a, b := own.Settings[k], h.Settings[k]; a != b {
			return &Welcome{Setting: k, Error: fmt.Sprintf(
				"the background helper for %s runs with another %s (%s there, %s here): start this one with the same settings, or end that helper's sessions and let it exit",
				own.Root, k, shown(a), shown(b))}
		}
	}
	return nil
}

func shown(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// writeLine sends v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// readLine reads one JSON line into v, no longer than 1 MiB.
func readLine(r *bufio.Reader, v any) error {
	var line []byte
	for {
		part, more, err := r.ReadLine()
		if err != nil {
			return err
		}
		line = append(line, part...)
		if len(line) > 1<<20 {
			return fmt.Errorf("a hello line over 1 MiB")
		}
		if !more {
			return json.Unmarshal(line, v)
		}
	}
}
