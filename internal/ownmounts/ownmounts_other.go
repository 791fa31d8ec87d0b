//go:build !linux

package ownmounts

import "testing"

// Run runs m's tests: mount namespaces are Linux's.
func Run(m *testing.M) int { return m.Run() }
