//go:build !unix

package platform

import (
	"context"
	"errors"
	"os"
)

// ErrHangup is the cause of a context ended by WatchHangup.
var ErrHangup = errors.New("the reader of the output is gone")

// WatchHangup returns ctx: where the OS gives no cheap way to see the
// reader of f go away, a failed write is how the helper learns it.
func WatchHangup(ctx context.Context, f *os.File) context.Context { return ctx }
