//go:build !linux

package sandbox

// CountsProcesses: no process cap from the sandbox here.
func CountsProcesses() bool { return false }

// CapsTemp: the temporary folder is not capped here.
func CapsTemp() bool { return false }

// DiskFull is false where it is not measured.
func DiskFull(string) bool { return false }
