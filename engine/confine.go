package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/termhelper/termhelper/egress"
	"github.com/termhelper/termhelper/platform"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

// confinement is how one command is to run: the mode in force for it (Off:
// unconfined) and its network, and what approval it needs for that.
type confinement struct {
	mode    sandbox.Mode
	network sandbox.Network
	// config is the mode in force for the config; widens marks a request
	// for a wider mode, which needs approval.
	config sandbox.Mode
	widens bool
}

// confined reports whether the command will run in a sandbox.
func (c confinement) confined() bool { return c.mode != sandbox.Off }

// leave runs the command unconfined: an approved line that must leave
// the sandbox to do what it says.
func (c *confinement) leave() { c.mode = sandbox.Off }

// wideningReason is the reason given for a request's wider mode.
func (c confinement) wideningReason() string {
	return fmt.Sprintf("the request asks for sandbox %q, wider than %q in force", c.mode, c.config)
}

// confinementFor is how a command asking for mode requested ("": the
// config's) runs here. With the sandbox required and missing it is a
// SandboxError.
func (e *Engine) confinementFor(requested string) (confinement, error) {
	st := e.Sandbox()
	c := confinement{mode: st.Mode, network: st.Network, config: st.Mode}
	if st.Mode == sandbox.Off && e.opts.Config.Sandbox.Required && e.asked() != sandbox.Off {
		return c, &SandboxError{Reason: st.Reason}
	}
	if requested == "" || st.Mode == sandbox.Off {
		return c, nil
	}
	m := sandbox.Mode(requested) // checked by checkRun
	c.widens = m.Wider(st.Mode)
	c.mode = m
	return c, nil
}

// confine applies c to spec: the plan, TMPDIR, placeholders for the
// masked variables (see WithheldPrefix), and a watcher that gives the
// command its egress listener and reads its refusals.
func (e *Engine) confine(spec *session.Spec, c confinement, p RunParams, ask egress.Asker) {
	if !c.confined() {
		return
	}
	e.planted.Ran(e.opts.Root)
	base, _ := e.preparedEnv()
	home, getenv := homeOf(base)
	plan := e.plan(c, home, getenv)
	spec.Confine = plan.Confiner()
	tmp := map[string]*string{}
	if _, set := p.Env["TMPDIR"]; !set && plan.TempDir != "" {
		tmp["TMPDIR"] = &plan.TempDir
	}
	spec.Env = platform.Overlay(spec.Env, platform.FoldEnvCase, tmp, e.withheld(p.Env))
	proxy := e.opts.Sandbox.Proxy
	if c.network != sandbox.NetworkProxy {
		proxy = nil
	}
	spec.Watch = func(id string, ps *platform.Spec) (session.Watcher, error) {
		return e.watch(id, ps, p.Command, plan, home, proxy, ask)
	}
}

// shellMissing is the error of a shell that is not there. Unconfined,
// starting it fails at once; confined, the trampoline would start and
// fail later, as an exit status: the same answer for both is -32005.
func shellMissing(spec session.Spec) error {
	if spec.Confine == nil || len(spec.Argv) == 0 || !filepath.IsAbs(spec.Argv[0]) {
		return nil
	}
	if _, err := os.Stat(spec.Argv[0]); err != nil {
		return fmt.Errorf("%w: %v", session.ErrStart, err)
	}
	return nil
}

// plan is a command's confinement: the default lists, the trash folder,
// and the config's lists, resolved for this user.
func (e *Engine) plan(c confinement, home string, getenv func(string) string) sandbox.Plan {
	root, sc := e.opts.Root, e.opts.Config.Sandbox
	p := sandbox.Defaults(root, home, getenv)
	p.Mode, p.Network, p.TempDir, p.Log = c.mode, c.network, e.opts.Sandbox.TempDir, e.log
	p.MaxProcs, p.TempBytes = e.limits()
	if e.opts.TrashDir != "" {
		p.Writable = append(p.Writable, e.opts.TrashDir)
	}
	p.Writable = append(p.Writable, resolvePaths(sc.Writable, root, home)...)
	p.Protect = append(p.Protect, resolvePaths(sc.Protect, root, home)...)
	if p.TempDir != "" {
		// The owner file says whether this helper is gone: a command
		// rewriting it would have a later helper remove the live folder.
		p.Protect = append(p.Protect, filepath.Join(p.TempDir, ownerFile))
	}
	p.Hide = append(p.Hide, resolvePaths(sc.Hide, root, home)...)
	return p
}

// homeOf is the home folder and the lookup of the helper's own
// environment (with the login shell's): the places the tools use come
// from it, never from a request's env, which could otherwise name any
// folder as a cache to write.
func homeOf(env []string) (string, func(string) string) {
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	home := vars["HOME"]
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return home, func(k string) string { return vars[k] }
}
