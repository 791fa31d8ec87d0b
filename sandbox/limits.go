package sandbox

import "fmt"

// TempLimitDenial is what an answer says of a command that filled its
// temporary folder.
func TempLimitDenial(bytes int64) Denial {
	return Denial{Kind: "limit", Reason: fmt.Sprintf("temporary folder limit %d MiB reached: no space left on device", bytes>>20)}
}
