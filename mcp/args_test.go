package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOneShapePerCall(t *testing.T) {
	for args, want := range map[string]string{
		`{"command":"ls"}`:                                  "",
		`{"command":"ls","list":false,"kill":false}`:        "",
		`{"list":true}`:                                     "",
		`{"session_id":"1","input":""}`:                     "",
		`{"session_id":"1","input":"y\n","secret":true}`:    "",
		`{"session_id":"1","until":"stable","stable_ms":5}`: "",
		`{"session_id":"1","kill":true,"signal":"SIGINT"}`:  "",
		`{"session_id":"1","yield_ms":5}`:                   "",
		`{"session_id":"1","input":"","cursor":40}`:         "",
		`{"session_id":"1","until":"exit","cursor":0}`:      "",
		`{"session_id":"1","kill":true,"cursor":0}`:         `argument "cursor" goes with "session_id", "input" and "until", not with "kill"`,
		`{"command":"ls","list":true}`:                      `arguments "command" and "list" are different call shapes`,
		`{"command":"ls","session_id":"1"}`:                 `arguments "command" and "session_id"`,
		`{"session_id":"1","kill":true,"input":"x"}`:        `arguments "input" and "kill"`,
		`{"command":"ls","kill":true}`:                      `arguments "command" and "kill"`,
		`{"session_id":"1","cwd":"x"}`:                      `argument "cwd" goes with "command", not with "session_id"`,
		`{"session_id":"1","input":"x","signal":"SIGINT"}`:  `argument "signal" goes with "kill", not with "input"`,
		`{"cwd":"x"}`: `give "command" to run`,
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &m); err != nil {
			t.Fatal(err)
		}
		err := oneShape(m)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", args, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want %q", args, err, want)
		}
	}
}

func TestArgumentsAreCheckedInTheToolsWords(t *testing.T) {
	for args, want := range map[string]string{
		`{"command":"ls","cwd":null}`: "",
		`{"comand":"ls"}`:             `unknown argument "comand": the arguments are background, command,`,
		`{"command":["ls"]}`:          `argument "command" must be a string, not ["ls"]`,
		`{"background":"yes"}`:        `argument "background" must be a boolean`,
		`{"ready_port":70000}`:        `argument "ready_port" must be a whole number between 1 and 65535, not 70000`,
		`{"timeout_ms":-1}`:           `argument "timeout_ms" must be a whole number between 0 and 86400000, not -1`,
		`{"cursor":-1}`:               `argument "cursor" must be a whole number at least 0, not -1`,
		`{"signal":"SIGSTOP"}`:        `argument "signal" must be one of "SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"`,
		`{"env":{"A":null,"B":"b"}}`:  "",
		`{"env":{"A":1}}`:             `argument "env": the value of "A" must be a string, or null to unset it`,
		`{"env":"A=1"}`:               `argument "env" must be an object, not "A=1"`,
		`{"yield_ms":1.5}`:            `argument "yield_ms" must be a whole number between 0 and 86400000, not 1.5`,
		`{"mode":"tty"}`:              `argument "mode" must be one of "pty", "pipes", not "tty"`,
		`[1]`:                         "the arguments must be an object",
	} {
		_, err := checkArguments(json.RawMessage(args))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", args, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want %q", args, err, want)
		}
	}
}

// TestEveryArgumentIsInTheSchema: the schema the SDK derives names every
// argument with a description, and has no type arrays.
func TestEveryArgumentIsInTheSchema(t *testing.T) {
	s := inputSchema()
	for name, p := range s.Properties {
		if p.Description == "" {
			t.Errorf("argument %q has no description", name)
		}
		if len(p.Types) > 0 {
			t.Errorf("argument %q has a type array %v", name, p.Types)
		}
	}
	if len(s.Properties) != len(argNames) {
		t.Errorf("%d properties for %d arguments", len(s.Properties), len(argNames))
	}
	if !strings.Contains(toolDescription, "secret: ask the user") {
		t.Error("the description does not say what a secret prompt asks of the model")
	}
}

func TestYieldForCapsEveryWait(t *testing.T) {
	f := newFront(Options{Yield: 45000 * 1e6})
	for _, tc := range []struct {
		asked *int64
		waits bool
		want  int64 // -1: none
	}{
		{nil, true, 45000}, {nil, false, -1}, {ptr(int64(1000)), true, 1000},
		{ptr(int64(600000)), false, 45000}, {ptr(int64(0)), true, 0},
	} {
		got := f.yieldFor(tc.asked, tc.waits)
		if (got == nil) != (tc.want < 0) || got != nil && *got != tc.want {
			t.Errorf("yieldFor(%v, %v) = %v, want %d", tc.asked, tc.waits, got, tc.want)
		}
	}
}
