package rpc

import (
	"context"
	"encoding/json"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/version"
)

type initializeParams struct {
	ClientInfo   *struct{ Name, Version string } `json:"clientInfo"`
	Capabilities struct {
		Approval     bool `json:"approval"`
		OutputStream bool `json:"outputStream"`
	} `json:"capabilities"`
	Trusted *bool `json:"trusted"`
}

func (s *Server) initialize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p, false); err != nil {
		return nil, err
	}
	h := engine.Host{Trusted: p.Trusted == nil || *p.Trusted, StreamOutput: p.Capabilities.OutputStream}
	if p.Capabilities.Approval {
		h.Approver = approver{s}
	}
	s.eng.SetHost(h)
	if p.ClientInfo != nil {
		s.log.Info("host", "name", p.ClientInfo.Name, "version", p.ClientInfo.Version)
	}
	return map[string]any{
		"serverInfo":      map[string]string{"name": "termhelper", "version": version.Number()},
		"protocolVersion": 1,
		"platform":        s.eng.Platform(),
		"root":            s.eng.Root(),
		"limits":          s.eng.Limits(),
	}, nil
}

func (s *Server) shutdownMethod(context.Context, *json.RawMessage) (any, error) {
	s.life.advance(shutDown)
	s.eng.Close()
	return nil, nil
}

func (s *Server) exitMethod(context.Context, *json.RawMessage) (any, error) {
	s.life.advance(exiting)
	return nil, nil
}

func (s *Server) execRun(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p engine.RunParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if s.life.at() >= shutDown {
		return nil, session.ErrClosed
	}
	r, err := s.eng.Run(ctx, p)
	if err != nil {
		return nil, err
	}
	return engine.Answer(r), nil
}

// sessionParams are the fields every session method has.
type sessionParams struct {
	SessionID *string `json:"sessionId"`
}

func (p sessionParams) id() (string, error) {
	if p.SessionID == nil {
		return "", errParams(`field "sessionId" is required`)
	}
	return *p.SessionID, nil
}

func (s *Server) sessionWrite(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		sessionParams
		Input   *string `json:"input"`
		Secret  bool    `json:"secret"`
		YieldMs *int64  `json:"yieldMs"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := p.id()
	if err != nil {
		return nil, err
	}
	if p.Input == nil {
		return nil, errParams(`field "input" is required`)
	}
	r, err := s.eng.Write(ctx, engine.WriteParams{SessionID: id, Input: *p.Input, Secret: p.Secret, YieldMs: p.YieldMs})
	return answer(r, err)
}

func (s *Server) sessionRead(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		sessionParams
		YieldMs  *int64 `json:"yieldMs"`
		Until    string `json:"until"`
		StableMs *int64 `json:"stableMs"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := p.id()
	if err != nil {
		return nil, err
	}
	r, err := s.eng.Read(ctx, engine.ReadParams{SessionID: id, YieldMs: p.YieldMs, Until: p.Until, StableMs: p.StableMs})
	return answer(r, err)
}

func (s *Server) sessionScreen(_ context.Context, raw *json.RawMessage) (any, error) {
	var p sessionParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := p.id()
	if err != nil {
		return nil, err
	}
	return s.eng.Screen(id)
}

func (s *Server) sessionKill(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		sessionParams
		Signal  string `json:"signal"`
		GraceMs *int64 `json:"graceMs"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := p.id()
	if err != nil {
		return nil, err
	}
	r, err := s.eng.Kill(ctx, engine.KillParams{SessionID: id, Signal: p.Signal, GraceMs: p.GraceMs})
	return answer(r, err)
}

func answer(r session.Result, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return engine.Answer(r), nil
}

func (s *Server) sessionList(context.Context, *json.RawMessage) (any, error) {
	return map[string]any{"sessions": engine.Rows(s.eng.List())}, nil
}

func (s *Server) sessionResize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p struct {
		sessionParams
		Cols int `json:"cols"`
		Rows int `json:"rows"`
	}
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := p.id()
	if err != nil {
		return nil, err
	}
	return nil, s.eng.Resize(id, p.Cols, p.Rows)
}
