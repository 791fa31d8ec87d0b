//go:build !unix

package persist

import (
	"context"
	"errors"
	"os"
)

// ErrUnsupported is --persist where there is no background helper yet.
var ErrUnsupported = errors.New("--persist is not available on this system: a background helper needs a socket only the user can reach (a unix socket checked with the peer's credentials); on Windows that would be a named pipe with an ACL, which termhelper does not have yet. Run without --persist")

// Folder is refused here.
func Folder() (string, error) { return "", ErrUnsupported }

// Relay is refused here.
func Relay(RelayOptions) error { return ErrUnsupported }

// Serve is refused here.
func Serve(context.Context, ServeOptions) error { return ErrUnsupported }

// ReadyFile is none here.
func ReadyFile() *os.File { return nil }
