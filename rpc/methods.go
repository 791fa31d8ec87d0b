package rpc

import (
	"context"
	"encoding/json"
	"time"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/version"
	"github.com/termhelper/termhelper/wire"
)

func (s *Server) initialize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.InitializeParams
	if err := decodeParams(raw, &p, false); err != nil {
		return nil, err
	}
	period, err := heartbeatPeriod(p.HeartbeatMs)
	if err != nil {
		return nil, err
	}
	h := engine.Host{Trusted: p.Trusted == nil || *p.Trusted, StreamOutput: p.Capabilities.OutputStream}
	if p.Capabilities.Approval {
		h.Approver = approver{s}
	}
	if s.att != nil {
		s.att.SetHost(h)
	} else {
		s.eng.SetHost(h)
	}
	if p.ClientInfo != nil {
		s.log.Info("host", "name", p.ClientInfo.Name, "version", p.ClientInfo.Version)
	}
	if period > 0 {
		s.startHeartbeat(period)
	}
	l, pl := s.eng.Limits(), s.eng.Platform()
	return protocol.InitializeResult{
		ServerInfo:      protocol.ServerInfo{Name: "termhelper", Version: version.Number()},
		ProtocolVersion: protocol.Version,
		Platform:        protocol.Platform{OS: pl.OS, Arch: pl.Arch, Shell: pl.Shell, PTY: pl.PTY},
		Root:            s.eng.Root(),
		Restored:        protocol.Rows(s.restored()),
		Limits:          protocol.Limits{TimeoutMs: l.TimeoutMs, MaxStreamChars: l.MaxStreamChars, MaxLineChars: l.MaxLineChars},
		Sandbox:         protocol.SandboxStatusOf(s.eng.Sandbox(), s.eng.SandboxLimits()),
		Warnings:        s.eng.Warnings(),
	}, nil
}

// restored is what this connection finds from before: the sessions a
// shared engine held when it attached; none over an engine of its own.
func (s *Server) restored() []session.Info {
	if s.att == nil {
		return []session.Info{}
	}
	return s.att.Restored()
}

func (s *Server) shutdownMethod(context.Context, *json.RawMessage) (any, error) {
	s.life.advance(shutDown)
	if s.att == nil {
		s.eng.Close()
	}
	return nil, nil
}

// heartbeatPeriod is initialize's heartbeatMs; 0 is none.
func heartbeatPeriod(ms *int64) (time.Duration, error) {
	if ms == nil || *ms == 0 {
		return 0, nil
	}
	d := time.Duration(*ms) * time.Millisecond
	if d < wire.MinHeartbeat || d > wire.MaxHeartbeat {
		return 0, errParams(`field "heartbeatMs" must be 0 (none) or between %d and %d, not %d`,
			wire.MinHeartbeat.Milliseconds(), wire.MaxHeartbeat.Milliseconds(), *ms)
	}
	return d, nil
}

// ping is $/ping: the host is there. What keeps the heartbeat is the
// bytes of the message, read before any method runs.
func ping(context.Context, *json.RawMessage) (any, error) { return nil, nil }

func (s *Server) exitMethod(context.Context, *json.RawMessage) (any, error) {
	s.life.advance(exiting)
	return nil, nil
}

func (s *Server) execRun(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.RunParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	if s.life.at() >= shutDown {
		return nil, session.ErrClosed
	}
	r, err := s.eng.Run(ctx, runParams(p))
	if err != nil {
		return nil, err
	}
	return protocol.Answer(r), nil
}

func runParams(p protocol.RunParams) engine.RunParams {
	return engine.RunParams{Command: p.Command, Cwd: p.Cwd, Env: p.Env, Mode: p.Mode,
		Background: p.Background, TimeoutMs: p.TimeoutMs, YieldMs: p.YieldMs, Stderr: p.Stderr,
		Stdin: p.Stdin, Cols: p.Cols, Rows: p.Rows, ReadyPattern: p.ReadyPattern, ReadyPort: p.ReadyPort,
		Sandbox: p.Sandbox}
}

// sessionID is the session a method names; it is required.
func sessionID(p protocol.SessionParams) (string, error) {
	if p.SessionID == nil {
		return "", errParams(`field "sessionId" is required`)
	}
	return *p.SessionID, nil
}

func (s *Server) sessionWrite(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.WriteParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := sessionID(p.SessionParams)
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
	var p protocol.ReadParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := sessionID(p.SessionParams)
	if err != nil {
		return nil, err
	}
	r, err := s.eng.Read(ctx, engine.ReadParams{SessionID: id, YieldMs: p.YieldMs, Until: p.Until, StableMs: p.StableMs,
		Cursor: p.Cursor})
	return answer(r, err)
}

func (s *Server) sessionScreen(_ context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.SessionParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := sessionID(p)
	if err != nil {
		return nil, err
	}
	sc, err := s.eng.Screen(id)
	if err != nil {
		return nil, err
	}
	return protocol.ScreenOf(sc), nil
}

func (s *Server) sessionKill(ctx context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.KillParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := sessionID(p.SessionParams)
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
	return protocol.Answer(r), nil
}

func (s *Server) sessionList(context.Context, *json.RawMessage) (any, error) {
	return protocol.List{Sessions: protocol.Rows(s.eng.List())}, nil
}

func (s *Server) sessionResize(_ context.Context, raw *json.RawMessage) (any, error) {
	var p protocol.ResizeParams
	if err := decodeParams(raw, &p, true); err != nil {
		return nil, err
	}
	id, err := sessionID(p.SessionParams)
	if err != nil {
		return nil, err
	}
	return nil, s.eng.Resize(id, p.Cols, p.Rows)
}
