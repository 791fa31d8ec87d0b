//go:build linux && arm64

package sandbox

import _ "embed"

// stubProgram is the exec stub for this architecture, built from
// stub/stub.c by `make stub` (stub/stub.mk).
//
//go:embed stub/stub-linux-arm64
var stubProgram []byte
