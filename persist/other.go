//go:build !unix

package persist

import (
	"context"
	"os"
)

// Supported is false: there is no background helper here.
const Supported = false

// Folder is refused here.
func Folder() (string, error) { return "", ErrUnsupported }

// Relay is refused here.
func Relay(RelayOptions) error { return ErrUnsupported }

// Serve is refused here.
func Serve(context.Context, ServeOptions) error { return ErrUnsupported }

// ReadyFile is none here.
func ReadyFile() *os.File { return nil }
