package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/mcp"
	"github.com/termhelper/termhelper/persist"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/protocol"
	"github.com/termhelper/termhelper/rpc"
	"github.com/termhelper/termhelper/version"
	"github.com/termhelper/termhelper/wire"
)

// persistCommand runs the background helper of --persist (see package
// persist); hosts never run it themselves.
const persistCommand = "__persist"

// relayIfPersistent relays stdio to the background helper of the root
// when --persist or the config's persist asks for one, and reports
// whether it did.
func relayIfPersistent(f flags, framing wire.Framing) (int, bool) {
	root, cfg, err := persistRoot(f)
	grace := f.persist
	if grace == 0 && err == nil && cfg.Persist > 0 {
		// From the config, which may be shared with machines that have
		// no background helper: there it is said, not refused.
		if !persist.Supported {
			fmt.Fprintln(os.Stderr, "termhelper: config persist ignored:", persist.ErrUnsupported)
			return 0, false
		}
		grace = cfg.Persist
	}
	if grace == 0 {
		return 0, false
	}
	if err != nil {
		return refuse(f, framing, err), true
	}
	f.root, f.persist = root, grace
	if f.config != "" {
		f.config, _ = filepath.Abs(f.config)
	}
	err = persist.Relay(persist.RelayOptions{Hello: helloOf(f, cfg), Start: backgroundArgs(f),
		Stdin: os.Stdin, Stdout: os.Stdout})
	if err != nil {
		return refuse(f, framing, err), true
	}
	return 0, true
}

// persistRoot is the root a background helper serves: --root, else the
// working directory (for --mcp, where it may be a project), with its
// config.
func persistRoot(f flags) (string, config.Config, error) {
	root := f.root
	switch {
	case root != "":
	case f.mcp:
		if root = workingRoot(slog.New(slog.DiscardHandler)); root == "" {
			return "", config.Config{}, fmt.Errorf("--persist needs the project: pass --root, or start termhelper in the project's folder")
		}
	default:
		root = "."
	}
	root, err := platform.RealRoot(root)
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, err := config.Load(f.config, root)
	return root, cfg, err
}

// helloOf is what must agree between a relay and its background helper.
func helloOf(f flags, cfg config.Config) persist.Hello {
	s := persist.Settings(cfg)
	s["persist"] = f.persist.String()
	if cfg.Sandbox.Mode == config.SandboxWorkspaceWrite {
		// The environment may narrow or lift that mode (engine.ModeEnv):
		// the background helper keeps the one of the relay that started it.
		s[engine.ModeEnv] = os.Getenv(engine.ModeEnv)
	}
	return persist.Hello{Version: version.String(), Root: f.root, Settings: s, MCP: f.mcp, Framing: f.framing}
}

func backgroundArgs(f flags) []string {
	return []string{persistCommand, "--root", f.root, "--config", f.config,
		"--persist", f.persist.String(), "--log-level", f.logLevel}
}

// refuse tells the host why it will not be served: on stderr, and as the
// JSON-RPC error answering its first request (MCP's initialize too).
func refuse(f flags, framing wire.Framing, err error) int {
	fmt.Fprintln(os.Stderr, "termhelper:", err)
	if f.mcp {
		framing = wire.NDJSON
	}
	st := wire.NewStream(stdio{}, framing)
	var first struct {
		ID *wire.ID `json:"id"`
	}
	read := make(chan error, 1)
	go func() { read <- st.ReadObject(&first) }()
	select {
	case <-read:
	case <-time.After(10 * time.Second): // a host that never speaks
	}
	e := &wire.Error{Code: protocol.CodeHelperRefused, Message: err.Error()}
	if ref, ok := err.(*persist.Refused); ok && ref.Setting != "" {
		e.SetData(map[string]string{"setting": ref.Setting})
	}
	st.WriteObject(map[string]any{"jsonrpc": "2.0", "id": first.ID, "error": e})
	return 2
}

// serveBackground is the background helper: one engine for the root,
// served to every connection of this user until the grace period after
// the last one ends.
func serveBackground(args []string) int {
	ready := persist.ReadyFile()
	inv, err := parseServer(args, false)
	if err == nil && inv.f.persist <= 0 {
		err = fmt.Errorf("%s needs --persist", persistCommand)
	}
	cfg, err := loadOr(inv.f, err)
	eng, log, cleanup, afterFirst, err := setupOr(inv.f, err)
	if err != nil {
		fmt.Fprintln(ready, err)
		ready.Close()
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return 2
	}
	defer cleanup()
	go afterFirst()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	dir, err := persist.Folder()
	if err == nil {
		err = persist.Serve(ctx, persist.ServeOptions{Place: persist.PlaceOf(dir, inv.f.root), Grace: inv.f.persist,
			Hello: helloOf(inv.f, cfg), Front: frontEnd(eng, cfg, log), Ready: ready, Log: log})
	}
	if err != nil {
		log.Error("background helper", "err", err)
		return 1
	}
	return 0
}

func loadOr(f flags, err error) (config.Config, error) {
	if err != nil {
		return config.Config{}, err
	}
	return config.Load(f.config, f.root)
}

func setupOr(f flags, err error) (*engine.Engine, *slog.Logger, func(), func(), error) {
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return setupErr(f)
}

// frontEnd serves one connection of the background helper with the front
// end its hello asks for, attached to the one engine.
func frontEnd(eng *engine.Engine, cfg config.Config, log *slog.Logger) func(context.Context, io.ReadWriteCloser, persist.Hello) {
	return func(ctx context.Context, c io.ReadWriteCloser, h persist.Hello) {
		if h.MCP {
			err := mcp.Serve(ctx, c, mcp.Options{Version: version.Number(), Log: log, Root: eng.Root(), Shared: true,
				Yield:     time.Duration(cfg.MCPYieldMs) * time.Millisecond,
				Heartbeat: time.Duration(cfg.HeartbeatMs) * time.Millisecond,
				Open:      func(string) (*engine.Engine, func(), error) { return eng, nil, nil }})
			log.Info("connection ended", "err", err)
			return
		}
		framing, err := wire.ParseFraming(h.Framing)
		if err != nil {
			framing = wire.Auto
		}
		rpc.New(eng, rpc.Options{Log: log, Shared: true}).Serve(ctx, c, framing)
	}
}
