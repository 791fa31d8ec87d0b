// Package policy decides whether a shell command line may run without asking
// (allow), needs a person's approval (ask), or must never run (deny).
//
// It parses the line with mvdan.cc/sh/v3/syntax, in every language the
// shell that runs it could read it in (/bin/sh may be dash or bash: both
// readings are judged, and a line they read differently is asked about),
// and judges every simple command the shell would run: in pipelines,
// lists, subshells, command and process substitutions, function bodies,
// strings handed to `sh -c`, `eval` or `watch`, and behind wrappers such as
// env, nice, timeout, nohup, xargs and find -exec. Words are judged after
// quote removal, so s”udo, \sudo and "sudo" are all sudo; a command name
// that only exists once the shell runs ($CMD, $(...)) is never allowed.
// cmd.exe and PowerShell lines, PowerShell being Windows' default shell,
// are cut into their commands more coarsely and judged by the Windows
// spellings of the same hard blocks.
//
// What an allowed command reads reaches the model, so a read of a secret
// (.env, ~/.ssh/, keys, cloud credentials, the config's protected paths, a
// secret variable's value, other processes' environments) or of a path
// outside the root is asked about too; paths are resolved link by link as
// the kernel resolves them. The request's own env is judged as
// assignments in front of the line.
//
// Judge takes whether the line runs in the sandbox: there, what the
// confinement holds needs no approval, and a line that must leave the
// sandbox to do its work (git push, npm publish, ssh, deploys) is marked
// Leaves and asked about.
//
// The package never runs anything. It also keeps the per-root list of
// entries a person approved with "always" (Store): a command's name and,
// for programs with subcommands, the subcommand, for interpreters the
// script (AlwaysName), so that approving npm install never approves npm
// publish. See docs/policy.md for the rules.
package policy
