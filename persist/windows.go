//go:build !unix

package persist

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"
)

// ErrUnsupported is --persist where there is no background helper yet.
var ErrUnsupported = errors.New("--persist is not available on this system: a background helper needs a socket only the user can reach (a unix socket checked with the peer's credentials); on Windows that would be a named pipe with an ACL, which termhelper does not have yet. Run without --persist")

// Place is where the background helper of one root is met.
type Place struct{ Socket, Lock, Log string }

// Refused is a connection the background helper would not serve.
type Refused struct{ Welcome }

func (r *Refused) Error() string { return r.Welcome.Error }

// RelayOptions configure Relay.
type RelayOptions struct {
	Hello  Hello
	Start  []string
	Stdin  io.Reader
	Stdout io.Writer
}

// ServeOptions configure Serve.
type ServeOptions struct {
	Place Place
	Grace time.Duration
	Hello Hello
	Front func(ctx context.Context, c io.ReadWriteCloser, h Hello)
	Ready io.WriteCloser
	Log   *slog.Logger
}

// Folder is refused here.
func Folder() (string, error) { return "", ErrUnsupported }

// PlaceOf has no place here.
func PlaceOf(dir, root string) Place { return Place{} }

// Relay is refused here.
func Relay(RelayOptions) error { return ErrUnsupported }

// Serve is refused here.
func Serve(context.Context, ServeOptions) error { return ErrUnsupported }

// ReadyFile is none here.
func ReadyFile() *os.File { return nil }
