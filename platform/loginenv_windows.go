package platform

import (
	"os"
	"os/exec"
	"syscall"
)

// There is no login shell on Windows: LoginEnv stays empty and these are
// never reached.

func detachedAttr() *syscall.SysProcAttr { return sysProcAttr(false) }

func resultPipe() *os.File { return nil }

func ownedBySelf(string, os.FileMode) bool { return false }

func startDetached(*exec.Cmd) error { return ErrUnsupported }

func waitDetached(*exec.Cmd) {}

func leave(*exec.Cmd) {}
