package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/trash"
)

// errDeclined is what a host's "deny" and a refused approval become.
var errDeclined = errors.New("user declined to run this command")

// approve decides whether command may run in dir: hard blocks are refused,
// harmless lines run, the rest is asked of a host that can answer, or
// follows the config's unattended rule. It never returns for an ask until
// the host has answered or gone.
func (s *Server) approve(ctx context.Context, command, dir string) error {
	if s.opts.Policy == nil {
		return nil
	}
	s.mu.Lock()
	trusted, canAsk, conn := s.trusted, s.approval, s.conn
	s.mu.Unlock()
	v := s.opts.Policy.CheckDir(command, dir, trusted)
	switch {
	case v.Decision == policy.Deny:
		e := &jsonrpc2.Error{Code: CodeBlocked, Message: "blocked by policy: " + first(v.Reasons)}
		e.SetError(map[string]any{"reasons": v.Reasons})
		return e
	case v.Decision == policy.Allow && trusted:
		return nil
	case canAsk && conn != nil:
		return s.ask(ctx, conn, command, dir, v.Reasons)
	case !trusted:
		return notApproved("an untrusted command needs approval, and the host cannot give it", v.Reasons)
	case s.opts.Config.Unattended == "deny":
		return notApproved("approval needed (unattended = \"deny\")", v.Reasons)
	}
	return nil // the host approves what it sends: it has its own dialog
}

func (s *Server) ask(ctx context.Context, conn *jsonrpc2.Conn, command, dir string, reasons []string) error {
	if reasons == nil {
		reasons = []string{}
	}
	var answer struct {
		Decision string `json:"decision"`
	}
	// No lifetime cap while a person decides; the host going away, or the
	// helper shutting down, counts as deny.
	err := conn.Call(s.closing(ctx), "approval/request",
		map[string]any{"command": command, "cwd": dir, "reasons": reasons}, &answer)
	if err != nil {
		s.log.Info("approval not given", "err", err)
		return notApproved(errDeclined.Error(), reasons)
	}
	switch answer.Decision {
	case "allow":
		return nil
	case "always":
		if name := policy.AlwaysName(command); name != "" && s.opts.Store != nil {
			if err := s.opts.Store.Add(name); err != nil {
				s.log.Warn("could not persist the always-allow entry", "name", name, "err", err)
			}
		}
		return nil
	}
	return notApproved(errDeclined.Error(), reasons)
}

func notApproved(msg string, reasons []string) *jsonrpc2.Error {
	e := &jsonrpc2.Error{Code: CodeNotApproved, Message: msg}
	if len(reasons) > 0 {
		e.SetError(map[string]any{"reasons": reasons})
	}
	return e
}

func first(reasons []string) string {
	if len(reasons) == 0 {
		return "refused"
	}
	return reasons[0]
}

type checkParams struct {
	Command *string `json:"command"`
	Cwd     string  `json:"cwd"`
}

func (s *Server) policyCheck(_ context.Context, raw *json.RawMessage) (any, error) {
	var p checkParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.Command == nil {
		return nil, errParams(`field "command" is required`)
	}
	dir, err := s.resolveDir(p.Cwd)
	if err != nil {
		return nil, err
	}
	if s.opts.Policy == nil {
		return map[string]any{"decision": policy.Allow, "reasons": []string{}}, nil
	}
	s.mu.Lock()
	trusted := s.trusted
	s.mu.Unlock()
	v := s.opts.Policy.CheckDir(*p.Command, dir, trusted)
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	return map[string]any{"decision": v.Decision, "reasons": v.Reasons}, nil
}

func (s *Server) trashList(context.Context, *json.RawMessage) (any, error) {
	if s.opts.TrashDir == "" {
		return map[string]any{"entries": []any{}}, nil
	}
	entries, err := trash.List(s.opts.TrashDir)
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
	return map[string]any{"id": e.ID, "originalPath": e.OriginalPath, "time": e.Time,
		"command": e.Command, "size": e.Size, "isDir": e.IsDir}
}

func (s *Server) trashRestore(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		ID *string `json:"id"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if p.ID == nil || *p.ID == "" {
		return nil, errParams(`field "id" is required`)
	}
	if s.opts.TrashDir == "" {
		return nil, errParams("no trash for this root")
	}
	e, err := trash.Restore(s.opts.TrashDir, *p.ID)
	switch {
	case errors.Is(err, trash.ErrNotFound):
		return nil, errParams("no trash entry %q", *p.ID)
	case errors.Is(err, trash.ErrExists):
		return nil, errParams("%v: restore refuses to overwrite", err)
	case err != nil:
		return nil, fmt.Errorf("restore %s: %w", *p.ID, err)
	}
	return trashWire(e), nil
}
