package persist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"time"
)

// Place is where the background helper of one root is met.
type Place struct {
	Socket string // the unix socket it listens on
	Lock   string // held to start it, or to end it, one at a time
	Log    string // its stderr
}

// ServeOptions configure the background helper.
type ServeOptions struct {
	Place Place
	// Grace is how long the sessions outlive the last connection.
	Grace time.Duration
	// Hello is the helper's own: what each connection's must agree with.
	Hello Hello
	// Front serves one connection that passed every check, with the front
	// end its hello asks for, until it ends. Several run at once.
	Front func(ctx context.Context, c io.ReadWriteCloser, h Hello)
	// Ready, if set, is told once the socket listens (a line "ready"),
	// or why it could not, and closed.
	Ready io.WriteCloser
	Log   *slog.Logger
}

// RelayOptions configure Relay.
type RelayOptions struct {
	Hello Hello
	// Start is the background helper's command line after the program:
	// run detached when no helper answers at the place.
	Start  []string
	Stdin  io.Reader
	Stdout io.Writer
}

// Refused is a connection the background helper would not serve: a
// setting that differs, or a peer it does not trust.
type Refused struct{ Welcome }

func (r *Refused) Error() string { return r.Welcome.Error }

// PlaceOf names root's place in dir from a hash of the root: the same
// root always meets the same helper, and no root's name is in the path.
func PlaceOf(dir, root string) Place {
	sum := sha256.Sum256([]byte(root))
	base := filepath.Join(dir, hex.EncodeToString(sum[:])[:24])
	return Place{Socket: base + ".sock", Lock: base + ".lock", Log: base + ".log"}
}

// ErrUnsupported is --persist where there is no background helper (see
// Supported).
var ErrUnsupported = errors.New("--persist is not available on this system: a background helper needs a socket only the user can reach (a unix socket checked with the peer's credentials); on Windows that would be a named pipe with an ACL, which termhelper does not have yet. Run without --persist")
