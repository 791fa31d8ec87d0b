package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/termhelper/termhelper/engine"
)

// revision2026 is the first MCP revision whose server asks the client
// through multi round-trip requests (an input-required result the client
// answers by calling again) instead of requests of its own.
const revision2026 = "2026-07-28"

var (
	// errAsk stops a call whose command needs an approval not yet given:
	// the call answers with the question, and the client calls again.
	errAsk = errors.New("approval needed: asked the client")
	// errDismissed is an approval question the client closed without
	// an answer (elicitation's "cancel", which some clients send for
	// every question), told apart from a "decline".
	errDismissed = engine.ErrDismissed
)

// asker asks the person behind the client whether a command may run:
// through elicitation/create on clients before 2026-07-28, through a
// multi round-trip request on 2026-07-28 and later. Each call has its own.
type asker struct {
	f   *front
	req *sdk.CallToolRequest
	// multi: the question travels in the result; asked is it, once the
	// engine has asked.
	multi bool
	asked *engine.ApprovalRequest
}

// asker is the call's approver; nil where the client cannot be asked (no
// elicitation capability): the client's own tool-call confirmation then
// stands for the approval.
func (f *front) asker(req *sdk.CallToolRequest) *asker {
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return nil
	}
	return &asker{f: f, req: req, multi: ip.ProtocolVersion >= revision2026}
}

const approvalKey = "approval"

func (a *asker) Approve(ctx context.Context, r engine.ApprovalRequest) (engine.Decision, error) {
	if r.Kind == engine.KindNetwork {
		return a.approveHost(ctx, r)
	}
	if !a.multi {
		ctx, cancel := a.f.asking(ctx)
		defer cancel()
		res, err := a.req.Session.Elicit(ctx, approvalParams(r))
		if err != nil {
			return engine.Deny, err
		}
		return decision(res)
	}
	res, ok := a.req.Params.InputResponses[approvalKey].(*sdk.ElicitResult)
	if !ok || !a.f.asks.answer(a.req.Params.RequestState, r) {
		a.asked = &r
		return engine.Deny, errAsk
	}
	return decision(res)
}

// errNoMidCallQuestion refuses a host on clients of 2026-07-28 and later:
// their questions travel in a call's result, and a host is tried in the
// middle of a command, when no result can ask.
var errNoMidCallQuestion = errors.New("this client can be asked only at the start of a call: the host is not on the allow list")

// approveHost asks about a host a running command tries to reach: through
// elicitation, which a client may answer at any time; a client that asks
// through results cannot be asked then, and the allow list alone decides.
func (a *asker) approveHost(ctx context.Context, r engine.ApprovalRequest) (engine.Decision, error) {
	if a.multi {
		return engine.Deny, errNoMidCallQuestion
	}
	ctx, cancel := a.f.asking(ctx)
	defer cancel()
	msg := fmt.Sprintf("Let this command reach %s (port %d)?\n\n%s", r.Host, r.Port, r.Command)
	if len(r.Reasons) > 0 {
		msg += "\n\nWhy you are asked: " + strings.Join(r.Reasons, "; ")
	}
	res, err := a.req.Session.Elicit(ctx, &sdk.ElicitParams{Message: msg, RequestedSchema: &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"always": {Type: "boolean", Title: "Always allow this host here",
			Description: "Remember the host for this project.", Default: []byte("false")}}}})
	if err != nil {
		return engine.Deny, err
	}
	return decision(res)
}

// question is the input-required result that asks the client: it calls
// again with the person's answer and the state that binds it to this
// command.
func (a *asker) question() *sdk.CallToolResult {
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{approvalKey: approvalParams(*a.asked)},
		RequestState: a.f.asks.ask(*a.asked)}
}

func decision(res *sdk.ElicitResult) (engine.Decision, error) {
	switch res.Action {
	case "accept":
		if always, _ := res.Content["always"].(bool); always {
			return engine.Always, nil
		}
		return engine.Allow, nil
	case "cancel":
		return engine.Deny, errDismissed
	}
	return engine.Deny, nil
}

func approvalParams(r engine.ApprovalRequest) *sdk.ElicitParams {
	msg := fmt.Sprintf("Run this command in %s?\n\n%s", r.Cwd, r.Command)
	if len(r.Reasons) > 0 {
		msg += "\n\nWhy you are asked: " + strings.Join(r.Reasons, "; ")
	}
	return &sdk.ElicitParams{Message: msg, RequestedSchema: &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"always": {Type: "boolean", Title: "Always allow this command here",
			Description: "Remember the command's name (and subcommand) for this project.", Default: []byte("false")}}}}
}

// questions are the approval questions put in results and not yet
// answered: an answer counts only with the state of a question asked
// about the same command in the same folder.
type questions struct {
	mu   sync.Mutex
	open map[string]engine.ApprovalRequest
}

func newQuestions() *questions { return &questions{open: map[string]engine.ApprovalRequest{}} }

// maxOpenQuestions bounds the questions kept for answers that never come.
const maxOpenQuestions = 256

func (q *questions) ask(r engine.ApprovalRequest) string {
	b := make([]byte, 16)
	rand.Read(b)
	state := hex.EncodeToString(b)
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.open) >= maxOpenQuestions {
		clear(q.open)
	}
	q.open[state] = r
	return state
}

// answer reports whether state names an open question about r, and
// closes it.
func (q *questions) answer(state string, r engine.ApprovalRequest) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	asked, ok := q.open[state]
	delete(q.open, state)
	return ok && asked.Command == r.Command && asked.Cwd == r.Cwd
}
