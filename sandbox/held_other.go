//go:build !linux

package sandbox

// UseHeldNamespaces does nothing here: namespaces are Linux's.
func UseHeldNamespaces(bool) {}
