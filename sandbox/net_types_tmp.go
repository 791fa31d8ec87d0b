// Package sandbox confines the commands termhelper runs.
//
// This file declares the few names the network half needs until the rest
// of the package lands beside it; the lead removes it at the merge.
package sandbox

// Network is how a confined command may reach the network.
type Network string

// The network modes.
const (
	NetProxy Network = "proxy" // loopback, and the rest through the helper's proxy
	NetOpen  Network = "open"  // no network confinement
	NetOff   Network = "off"   // loopback only
)

// Denial is something the sandbox stopped that can be named.
type Denial struct {
	Kind string // "network", "write", "read"
	Host string // network
	Port int    // network
	Path string // write, read; network: a unix socket
}
