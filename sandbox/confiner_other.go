//go:build !linux

package sandbox

import "github.com/termhelper/termhelper/platform"

// No spares here: the sandbox is Seatbelt's sandbox-exec, or none, with
// no costly start of its own to take ahead.
func newConfiner(p Plan) platform.Confiner { return confiner{p} }
