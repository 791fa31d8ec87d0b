//go:build linux && amd64

package sandbox

import _ "embed"

// stubProgram is the exec stub for this architecture, built from
// stub/stub.c by `make stub` (stub/stub.mk).
//
//go:embed stub/stub-linux-amd64
var stubProgram []byte
