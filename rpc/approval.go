package rpc

import (
	"context"
	"encoding/json"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/wire"
)

// approver asks the host with approval/request (PROTOCOL.md section 7).
type approver struct{ s *Server }

func (a approver) Approve(ctx context.Context, req engine.ApprovalRequest) (engine.Decision, error) {
	var answer protocol.ApprovalResult
	params := protocol.ApprovalParams{Kind: req.Kind, Command: req.Command, ExactCommand: req.ExactCommand,
		Cwd: req.Cwd, Host: req.Host, Port: req.Port, Reasons: req.Reasons, Planted: req.Planted}
	// No lifetime cap while a person decides; the host going away, or its
	// input ending, counts as deny.
	var id wire.ID
	err := a.s.call(ctx, protocol.MethodApproval, params, &answer, func(sent wire.ID) { id = sent })
	if ctx.Err() != nil {
		// The request that asked was cancelled: the host's dialog is
		// withdrawn, not left open for an answer nobody waits for.
		a.s.notify(protocol.MethodCancel, protocol.CancelParams{ID: id})
	}
	if err != nil {
		return engine.Deny, err
	}
	return engine.Decision(answer.Decision), nil
}

// closing returns a context that also ends once no answer can come from
// the host any more: its input has ended, or the helper is stopping.
func (s *Server) closing(parent context.Context) context.Context {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		defer cancel()
		select {
		case <-s.life.noAnswers:
		case <-ctx.Done():
		}
	}()
	return ctx
}

func (s *Server) policyCheck(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.CheckParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Command == nil {
		return nil, errParams(`field "command" is required`)
	}
	v, err := s.eng.Check(ctx, *p.Command, p.Cwd, p.Sandbox)
	if err != nil {
		return nil, err
	}
	return protocol.CheckResult{Decision: string(v.Decision), Reasons: v.Reasons, Sandbox: string(v.Sandbox)}, nil
}

func (s *Server) trashList(context.Context, *json.RawMessage) (any, error) {
	entries, err := s.eng.TrashList()
	if err != nil {
		return nil, err
	}
	out := protocol.TrashList{Entries: []protocol.TrashEntry{}}
	for _, e := range entries {
		out.Entries = append(out.Entries, protocol.TrashEntryOf(e))
	}
	return out, nil
}

func (s *Server) trashRestore(_ context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.RestoreParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.ID == nil {
		return nil, errParams(`field "id" is required`)
	}
	e, err := s.eng.TrashRestore(*p.ID)
	if err != nil {
		return nil, err
	}
	return protocol.TrashEntryOf(e), nil
}
