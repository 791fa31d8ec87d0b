//go:build !linux && !darwin

package sandbox

import (
	"io/fs"
	"time"
)

// keepsPlans: without a change time to read, a path could be rewritten
// and dated back unseen: the default lists are made for each plan.
const keepsPlans = false

func fileState(fs.FileInfo) (id, times string, changed time.Time) { return "?", "", time.Now() }
