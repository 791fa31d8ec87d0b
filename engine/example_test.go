//go:build !windows

package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/session"
)

// askPerson stands for the host's "Run command?" dialog.
type askPerson struct{}

func (askPerson) Approve(_ context.Context, req engine.ApprovalRequest) (engine.Decision, error) {
	fmt.Printf("approve %q? yes\n", req.Command)
	return engine.Allow, nil
}

// printEvents receives what happens to sessions after their first answer.
type printEvents struct{ exited chan string }

func (p printEvents) Exited(id string, r session.Result) { p.exited <- session.Summary(r) }
func (printEvents) Waiting(string, session.Prompt)       {}
func (printEvents) Output(string, string, string)        {}

// A Go host embeds the engine in-process: the same policy, sessions and
// cleaned output as the JSON-RPC and MCP front ends, without a wire. (The
// commands are sh's: the file is not built for Windows, whose shell is
// PowerShell or cmd.)
func Example() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	root, _ := platform.RealRoot(dir)
	cfg := config.Default()
	eng := engine.New(engine.Options{Root: root, Config: cfg, Policy: policy.New(cfg, root, nil)})
	defer eng.Close()
	events := printEvents{exited: make(chan string, 1)}
	eng.SetSink(events)
	eng.SetHost(engine.Host{Trusted: true, Approver: askPerson{}})

	// A command the policy does not allow outright is asked of the
	// Approver first; its output comes back cleaned.
	r, _ := eng.Run(context.Background(), engine.RunParams{Command: "sh -c \"printf '\\033[31mred\\033[0m\\n'; exit 3\""})
	fmt.Println(strings.TrimSpace(r.Output), session.Summary(r)[:6])

	// A harmless one runs without asking.
	r, _ = eng.Run(context.Background(), engine.RunParams{Command: "pwd", Background: true})
	fmt.Println(strings.TrimSpace(r.Output) == root, r.Exit.Code)

	// A background command answers alive; its end arrives as an event.
	yield := int64(0)
	r, _ = eng.Run(context.Background(), engine.RunParams{Command: "sleep 0.2", Background: true, YieldMs: &yield})
	fmt.Println(r.State, <-events.exited != "")

	// Hard blocks are refused whatever the host says.
	_, err := eng.Run(context.Background(), engine.RunParams{Command: "sudo true"})
	fmt.Println(err)
	// Output:
	// approve "sh -c \"printf '\\033[31mred\\033[0m\\n'; exit 3\""? yes
	// red exit 3
	// true 0
	// background true
	// blocked by policy: "sudo" in "sudo true": runs as another user
}
