package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/mcp"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/version"
)

// serveMCP is `termhelper --mcp`: the MCP front end, whose engine is
// opened once the root is known (--root, else the client's roots, else
// the working directory where it may be a project).
func serveMCP(f flags) int {
	log, err := newLogger(f.logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return 2
	}
	root := ""
	if f.root != "" {
		if root, err = platform.RealRoot(f.root); err != nil {
			fmt.Fprintln(os.Stderr, "termhelper:", err)
			return 2
		}
	}
	cfg, err := config.Load(f.config, root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return 2
	}
	var cleanups cleanupList
	defer cleanups.run()
	opts := mcp.Options{Version: version.Number(), Log: log, Root: root, Fallback: workingRoot(log),
		Yield:     time.Duration(cfg.MCPYieldMs) * time.Millisecond,
		Heartbeat: time.Duration(cfg.HeartbeatMs) * time.Millisecond,
		Open: func(root string) (*engine.Engine, func(), error) {
			eng, cleanup, afterFirst, err := open(f, root, log)
			cleanups.add(cleanup)
			return eng, afterFirst, err
		}}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	ctx = platform.WatchHangup(ctx, os.Stdout)
	if err := mcp.Serve(ctx, stdio{}, opts); err != nil {
		log.Info("serve", "err", err)
	}
	return 0
}

// workingRoot is the working directory as the project root, unless it is
// / or the home folder: a host that starts the helper there has not said
// where the project is.
func workingRoot(log *slog.Logger) string {
	dir, err := platform.RealRoot(".")
	if err != nil {
		return ""
	}
	home, _ := os.UserHomeDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	if dir == filepath.VolumeName(dir)+string(filepath.Separator) || dir == home {
		log.Info("the working directory is not taken as the project", "dir", dir)
		return ""
	}
	return dir
}

// cleanupList runs, at the end, what the engines opened need closed.
type cleanupList struct {
	mu  sync.Mutex
	fns []func()
}

func (c *cleanupList) add(fn func()) {
	if fn == nil {
		return
	}
	c.mu.Lock()
	c.fns = append(c.fns, fn)
	c.mu.Unlock()
}

func (c *cleanupList) run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fn := range c.fns {
		fn()
	}
}
