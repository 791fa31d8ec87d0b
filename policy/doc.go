// Package policy decides whether a shell command line may run without asking
// (allow), needs a person's approval (ask), or must never run (deny).
//
// It parses the line with mvdan.cc/sh/v3/syntax and judges every simple
// command the shell would run: in pipelines, lists, subshells, command and
// process substitutions, function bodies, strings handed to `sh -c`, `eval`
// or `watch`, and behind wrappers such as env, nice, timeout, nohup, xargs
// and find -exec. Words are judged after quote removal, so s”udo, \sudo and
// "sudo" are all sudo; a command name that only exists once the shell runs
// ($CMD, $(...)) is never allowed.
//
// What an allowed command reads reaches the model, so a read of a secret
// (.env, ~/.ssh/, keys, cloud credentials, the config's protected paths)
// or of a path outside the root is asked about too.
//
// The package never runs anything. It also keeps the per-root list of
// entries a person approved with "always" (Store): a command's name and,
// for programs with subcommands, the subcommand (AlwaysName), so that
// approving npm install never approves npm publish. See docs/policy.md for
// the rules.
package policy
