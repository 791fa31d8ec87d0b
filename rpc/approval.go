package rpc

import (
	"context"
	"encoding/json"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/trash"
)

// approver asks the host with approval/request (PROTOCOL.md section 7).
type approver struct{ s *Server }

func (a approver) Approve(ctx context.Context, req engine.ApprovalRequest) (engine.Decision, error) {
	var answer struct {
		Decision engine.Decision `json:"decision"`
	}
	// No lifetime cap while a person decides; the host going away, or its
	// input ending, counts as deny.
	if err := peer(a).Call(ctx, "approval/request", req, &answer); err != nil {
		return engine.Deny, err
	}
	return answer.Decision, nil
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

func (s *Server) policyCheck(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		Command *string `json:"command"`
		Cwd     string  `json:"cwd"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Command == nil {
		return nil, errParams(`field "command" is required`)
	}
	v, err := s.eng.Check(*p.Command, p.Cwd)
	if err != nil {
		return nil, err
	}
	return map[string]any{"decision": v.Decision, "reasons": v.Reasons}, nil
}

func (s *Server) trashList(context.Context, *json.RawMessage) (any, error) {
	entries, err := s.eng.TrashList()
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, e := range entries {
		out = append(out, trashWire(e))
	}
	return map[string]any{"entries": out}, nil
}

func trashWire(e trash.Entry) map[string]any {
	return map[string]any{"id": e.ID, "path": e.Path, "deletedAt": e.DeletedAt,
		"size": e.Size, "command": e.Command, "isDir": e.IsDir}
}

func (s *Server) trashRestore(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		ID *string `json:"id"`
	}
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
	return trashWire(e), nil
}
