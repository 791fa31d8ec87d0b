//go:build !linux || (!amd64 && !arm64)

package sandbox

// No exec stub is built for this system: confined commands start through
// spares.
var stubProgram []byte
