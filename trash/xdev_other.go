//go:build !unix

package trash

import (
	"errors"
	"syscall"
)

// ERROR_NOT_SAME_DEVICE: Windows' word for a rename across volumes.
const errNotSameDevice = syscall.Errno(17)

func isCrossDevice(err error) bool { return errors.Is(err, errNotSameDevice) }
