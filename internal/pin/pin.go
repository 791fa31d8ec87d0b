//go:build pin

// Package pin keeps the chosen dependencies in go.mod while the packages
// that use them are being written.
package pin

import (
	_ "github.com/UserExistsError/conpty"
	_ "github.com/charmbracelet/x/ansi"
	_ "github.com/creack/pty"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/sourcegraph/jsonrpc2"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/encoding/htmlindex"
	_ "mvdan.cc/sh/v3/syntax"
)
