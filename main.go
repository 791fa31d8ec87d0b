// Command termhelper runs shell commands for AI tools: a host spawns it and
// sends JSON-RPC 2.0 requests on its stdin; every command runs on a real
// terminal inside the project root, and its cleaned output comes back.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/termhelper/termhelper/config"
	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/policy"
	"github.com/termhelper/termhelper/rpc"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
	"github.com/termhelper/termhelper/spill"
	"github.com/termhelper/termhelper/trash"
	"github.com/termhelper/termhelper/version"
	"github.com/termhelper/termhelper/wire"
)

// versionFile is the VERSION file, the one source of the version number:
// builds without the -ldflags stamp report it.
//
//go:embed VERSION
var versionFile string

func main() {
	// The sandbox's trampoline runs before each confined command: it
	// needs none of what follows, so it starts before any of it.
	if len(os.Args) > 1 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Serve(os.Args[2:]))
	}
	version.Default(versionFile)
	// When the host is gone, a write to stdout must fail with EPIPE for the
	// server to act on (end every tree, then exit), not kill the helper by
	// SIGPIPE halfway through that cleanup. Notify, not Ignore: an ignored
	// signal would stay ignored in every command the helper starts.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == platform.LoginEnvCommand {
		return platform.ServeLoginEnv(args[1:])
	}
	if len(args) > 0 && args[0] == persistCommand {
		return serveBackground(args[1:])
	}
	inv, err := parseArgs(args)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(os.Stderr, "termhelper: %s\n\n%s", ue.msg, ue.usage)
		return 2
	}
	switch inv.mode {
	case modeHelp:
		fmt.Print(inv.usage)
		return 0
	case modeVersion:
		fmt.Println(version.String())
		return 0
	case modeRun:
		return runOnce(inv.f, inv.command)
	}
	return serveStdio(inv.f)
}

// serveStdio serves one host on stdin/stdout until it goes.
func serveStdio(f flags) int {
	framing, err := wire.ParseFraming(f.framing)
	if err != nil {
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return 2
	}
	if f.cpuprofile != "" {
		stopProfile, err := startCPUProfile(f.cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "termhelper:", err)
			return 2
		}
		defer stopProfile()
	}
	if code, relayed := relayIfPersistent(f, framing); relayed {
		return code
	}
	if f.mcp {
		return serveMCP(f)
	}
	eng, log, cleanup, afterFirst, code := setup(f)
	if eng == nil {
		return code
	}
	defer cleanup()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	ctx = platform.WatchHangup(ctx, os.Stdout)
	if err := serve(ctx, framing, eng, log, afterFirst); err != nil {
		log.Error("serve", "err", err)
	}
	return 0
}

// serve runs the native front end over the engine.
func serve(ctx context.Context, framing wire.Framing, eng *engine.Engine, log *slog.Logger, afterFirst func()) error {
	return rpc.New(eng, rpc.Options{Log: log, AfterFirst: afterFirst}).Serve(ctx, stdio{}, framing)
}

// setup loads the root and the config and builds the engine, with a
// cleanup to run after it and the work to start after the first answer;
// on failure it prints why and returns the exit code.
func setup(f flags) (*engine.Engine, *slog.Logger, func(), func(), int) {
	eng, log, cleanup, afterFirst, err := setupErr(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return nil, nil, nil, nil, 2
	}
	return eng, log, cleanup, afterFirst, 0
}

// setupErr is setup, saying why it failed.
func setupErr(f flags) (*engine.Engine, *slog.Logger, func(), func(), error) {
	log, err := newLogger(f.logLevel)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	root := f.root
	if root == "" {
		root = "."
	}
	root, err = platform.RealRoot(root)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	eng, cleanup, afterFirst, err := open(f, root, log)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return eng, log, cleanup, afterFirst, nil
}

// open loads the config for root and builds its engine, with a cleanup to
// run after it and the work to start after the first answer.
func open(f flags, root string, log *slog.Logger) (*engine.Engine, func(), func(), error) {
	cfg, err := config.Load(f.config, root)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	platform.Init()
	if why := platform.Containment(); why != "" {
		log.Warn(why)
	}
	sbx, closeSandbox, err := engine.OpenSandbox(cfg, root, log)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := engine.Options{Root: root, Config: cfg, Log: log, Sandbox: sbx}
	if cache, err := os.UserCacheDir(); err == nil {
		opts.StateDir = session.StateDir(cache, root)
		opts.ShimDir, opts.TrashDir = rmShim(cache, root, log)
	}
	login := &lazyLogin{}
	if cfg.LoginEnv && runtime.GOOS != "windows" {
		opts.BaseEnv = login.base
	}
	opts.Store = allowStore(root, log)
	opts.Policy = policy.New(cfg, root, opts.Store)
	afterFirst := func() {
		if cfg.LoginEnv && runtime.GOOS != "windows" {
			login.start(log)
		}
		housekeeping(opts.TrashDir, log)
	}
	eng := engine.New(opts)
	return eng, func() {
		eng.Close() // the commands first: the proxy and the temporary folder serve them
		closeSandbox()
		login.close()
	}, afterFirst, nil
}

// allowStore opens the persisted "always" list; without it, approvals
// still work but do not survive a restart.
func allowStore(root string, log *slog.Logger) *policy.Store {
	dir, err := config.UserDir()
	if err == nil {
		var st *policy.Store
		if st, err = policy.OpenStore(dir, root); err == nil {
			return st
		}
	}
	log.Warn("always-allow answers will not persist", "err", err)
	return nil
}

// rmShim installs the rm that moves files to the root's trash.
func rmShim(cache, root string, log *slog.Logger) (string, string) {
	shim, err := trash.Shim(filepath.Join(cache, "termhelper", "shim"))
	if err != nil {
		log.Info("no rm shim", "err", err)
		return "", ""
	}
	dir, err := trash.Dir(root)
	if err != nil {
		log.Warn("no trash folder: rm deletes for good", "err", err)
		return "", ""
	}
	return shim, dir
}

// housekeeping prunes spill files and trash older than a week, and the
// sandbox's temporary folders of helpers that were killed, off the
// start-up path.
func housekeeping(trashDir string, log *slog.Logger) {
	if err := spill.Prune(spill.DefaultMaxAge); err != nil {
		log.Debug("pruning spill files", "err", err)
	}
	if trashDir != "" {
		if err := trash.Prune(trashDir, trash.MaxAge); err != nil {
			log.Debug("pruning trash", "err", err)
		}
	}
	if n := engine.PruneTempDirs(); n > 0 {
		log.Info("removed the temporary folders of helpers that were killed", "folders", n)
	}
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("bad --log-level %q: want debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}

// runOnce is `termhelper run -- COMMAND`: the same engine, answered for a
// person, exiting with the command's exit code.
func runOnce(f flags, command string) int {
	eng, _, cleanup, _, code := setup(f)
	if eng == nil {
		return code
	}
	defer cleanup()
	defer eng.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	res, err := eng.Run(ctx, engine.RunParams{Command: command})
	if err != nil {
		fmt.Fprintln(os.Stderr, "termhelper:", err)
		return 125
	}
	return printResult(os.Stdout, res)
}

func printResult(w io.Writer, r session.Result) int {
	out := r.Output
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	fmt.Fprint(w, out)
	if r.Exit == nil {
		fmt.Fprintf(w, "[%s: %s] termhelper run does not answer prompts; the command was ended\n", r.State, promptText(r))
		return 1
	}
	if r.FullOutputPath != "" {
		fmt.Fprintf(w, "[full output: %s]\n", r.FullOutputPath)
	}
	fmt.Fprintln(w, session.Summary(r))
	return r.Exit.Code
}

func promptText(r session.Result) string {
	if r.Prompt != nil {
		return strings.TrimSpace(r.Prompt.Text)
	}
	return "no prompt"
}

// stdio is the host's end: requests on stdin, answers on stdout.
type stdio struct{}

// Read lets a request just handed to its own goroutine run first: a
// host's stdin is a blocking pipe or socket, and a thread blocked in its
// read keeps its processor a while, so the request waited for another
// thread to be woken to run it (about 70 µs a request on a 2-core virtual
// machine).
func (stdio) Read(p []byte) (int, error) {
	runtime.Gosched()
	return os.Stdin.Read(p)
}

func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdin.Close() }

// startCPUProfile profiles the helper until the returned stop is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
