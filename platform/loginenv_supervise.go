package platform

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// A login shell, once started, runs its rc files to their end: they take
// locks and write state (pyenv's shim lock), and a shell cut short leaves
// them behind for every later shell of the user to wait on. So the shell
// does not run under the helper, whose end (stdin closed, SIGTERM,
// SIGKILL) would end it, but under a supervisor: the helper's own program
// run again as `PROGRAM __loginenv`, in a session of its own, without the
// helper's tag, so that neither the helper's cleanup nor the next helper's
// sweep of a dead one's leftovers reaches it. The supervisor enforces the
// shell's time limit, caches what it printed and hands it to the helper
// through a pipe; a helper that ends stops reading, nothing more.

// LoginEnvCommand is the first argument that makes the program the
// supervisor of a login shell: a program that uses LoginEnv must call
// ServeLoginEnv with the arguments after it, and exit with its result.
const LoginEnvCommand = "__loginenv"

// loginResult is what the supervisor hands to the helper.
type loginResult struct {
	Env      []string `json:"env,omitempty"`
	Err      string   `json:"err,omitempty"`
	CacheErr string   `json:"cacheErr,omitempty"`
}

// ServeLoginEnv is the supervisor: it runs the login shell (-shell) to its
// end or its time limit (-timeout), caches what the rc files set (-cache;
// the arguments left are the rc files the cache is keyed by), and writes
// the result to file descriptor 3 if the helper gave one. It returns the
// exit code.
func ServeLoginEnv(args []string) int {
	fs := flag.NewFlagSet(LoginEnvCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shell := fs.String("shell", "", "the login shell to run")
	timeout := fs.Duration("timeout", 10*time.Second, "how long the shell may run")
	cache := fs.String("cache", "", "the cache file to write")
	if err := fs.Parse(args); err != nil || *shell == "" {
		return 2
	}
	out := resultPipe()
	res := resolveLoginEnv(*shell, *timeout, *cache, statFiles(fs.Args()))
	if out != nil {
		json.NewEncoder(out).Encode(res) // the helper may be gone: nothing to do
		out.Close()
	}
	if res.Err != "" {
		return 1
	}
	return 0
}

// resolveLoginEnv reads the environment and caches it keyed by stamps,
// the rc files as they were before the shell started.
func resolveLoginEnv(shell string, timeout time.Duration, cache string, stamps []fileStamp) loginResult {
	read := time.Now()
	out, err := readLoginEnv(context.Background(), shell, timeout)
	if err != nil {
		return loginResult{Err: err.Error()}
	}
	res := loginResult{Env: setByRC(out, os.Environ())}
	if cache != "" {
		c := loginCache{Shell: shell, Home: os.Getenv("HOME"), Path: os.Getenv("PATH"),
			Files: stamps, Env: res.Env, Read: read}
		if err := writeLoginCache(cache, c); err != nil {
			res.CacheErr = err.Error()
		}
	}
	return res
}

// setByRC keeps of the shell's environment what differs from the one it
// was given (given), and PATH, which the rc files build on: what was only
// passed through belongs to the helper that ran the shell, and must not
// reach another helper through the cache.
func setByRC(env, given []string) []string {
	had := map[string]bool{}
	for _, kv := range given {
		had[kv] = true
	}
	out := []string{}
	for _, kv := range env {
		if !had[kv] || strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return out
}

// supervise starts the supervisor and waits for its result, or until ctx
// ends: then it stops waiting and leaves the supervisor to finish alone.
func (le *LoginEnv) supervise(ctx context.Context) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	args := append([]string{LoginEnvCommand, "-shell", le.shell, "-timeout", le.timeout.String(),
		"-cache", le.cache, "--"}, le.rcFiles...)
	cmd := exec.Command(exe, args...)
	cmd.Env = withoutVar(os.Environ(), TagVar)
	cmd.ExtraFiles = []*os.File{w}
	err = startDetached(cmd)
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("start the login shell's supervisor: %w", err)
	}
	res, err := awaitResult(ctx, r)
	if ctx.Err() != nil {
		leave(cmd)
		return nil, ctx.Err()
	}
	waitDetached(cmd) // it exits once it has written
	return res, err
}

// awaitResult reads the supervisor's result; ctx ending cuts the read.
func awaitResult(ctx context.Context, r *os.File) ([]string, error) {
	stop := context.AfterFunc(ctx, func() { r.SetReadDeadline(time.Now()) })
	defer stop()
	var res loginResult
	if err := json.NewDecoder(r).Decode(&res); err != nil {
		return nil, fmt.Errorf("the login shell's supervisor gave no result: %w", err)
	}
	switch {
	case res.Err != "":
		return nil, errors.New(res.Err)
	case res.CacheErr != "":
		return res.Env, fmt.Errorf("%w: %s", errNotCached, res.CacheErr)
	}
	return res.Env, nil
}

// errNotCached comes with an environment: it was read, not cached.
var errNotCached = errors.New("login environment not cached")

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
