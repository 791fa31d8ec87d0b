// Package ownmounts runs a package's tests in a mount namespace of their
// own. Footprints, spares, held namespaces and journals take any change
// of the mount table for a change, rightly: a container started on the
// machine, or another package's test that mounts, would then void them
// in the middle of a test that asserts they are used.
package ownmounts

import "os"

// Env marks a test binary that runs in a mount namespace of its own.
const Env = "TERMHELPER_TEST_OWN_MOUNTS"

// Own tells whether the tests run in a mount namespace of their own.
func Own() bool { return os.Getenv(Env) != "" }
