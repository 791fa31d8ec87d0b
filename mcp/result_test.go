package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// Every shape of result fits the schema derived from Result, and none
// carries a null.
func TestEveryResultFitsTheDerivedSchema(t *testing.T) {
	resolved, err := outputSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	yes, stderr := true, "warning"
	for name, r := range map[string]*Result{
		"finished": resultOf(session.Result{ID: "1", Exit: &platform.Exit{Code: 2}, Duration: time.Second, Output: "x\n"}),
		"timed out": resultOf(session.Result{Exit: &platform.Exit{Code: 143, Signal: "SIGTERM"}, TimedOut: true,
			Timeout: time.Minute, Renews: true, Truncated: true, FullOutputPath: "/tmp/x", Stderr: &stderr,
			Denied: []sandbox.Denial{{Kind: "write", Path: "/etc/x"}, {Kind: "network", Host: "a.example", Port: 443}}}),
		"waiting": resultOf(session.Result{ID: "3", Pid: 9, State: session.Waiting, Prompt: &session.Prompt{Text: "Password: ", Secret: true},
			EndsIn: time.Minute, Renews: true}),
		"server":  resultOf(session.Result{ID: "4", Pid: 9, State: session.Background, Ready: &yes, Ports: []int{5173}, Screen: true}),
		"list":    listOf([]session.Info{{ID: "4", Pid: 9, Command: "sleep 1", State: session.Exited, Exit: &platform.Exit{}}}),
		"no list": listOf(nil),
		"screen":  terminalOf(engine.Screen{Cols: 80, Rows: 24, Lines: []string{"top"}, AltScreen: true}),
		"refused": {Error: "refused: no", Notices: []string{"[session 1 ended]"}},
	} {
		data, _ := json.Marshal(r)
		if strings.Contains(string(data), "null") {
			t.Errorf("%s: a null in %s", name, data)
		}
		var v any
		json.Unmarshal(data, &v)
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: %s does not fit the schema: %v", name, data, err)
		}
	}
}

// The SDK checks a result against the tool's output schema: one that does
// not fit is not sent.
func TestTheSDKChecksResultsAgainstTheSchema(t *testing.T) {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	tool := terminalTool(time.Second)
	tool.OutputSchema.(*jsonschema.Schema).Properties["exit_code"] = &jsonschema.Schema{Type: "string"}
	sdk.AddTool(server, tool, func(context.Context, *sdk.CallToolRequest, Args) (*sdk.CallToolResult, *Result, error) {
		return nil, resultOf(session.Result{Exit: &platform.Exit{Code: 0}}), nil
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "terminal", Arguments: map[string]any{"command": "true"}})
	if err == nil || !strings.Contains(err.Error(), "validating tool output") {
		t.Fatalf("a result that does not fit the schema was sent: %v", err)
	}
}
