// Package persist is termhelper's process model for --persist: sessions
// that outlive the connection that started them.
//
// The process a host spawns becomes a relay (relay.go): it copies its
// stdin and stdout to a background helper for this user and this root,
// reached at a unix socket in a folder only the user can open
// (rendezvous.go), and started on demand, detached from the host's
// session and process group (start_unix.go). The background helper
// (serve.go) serves every connection with a front end of its own over
// one engine, checks each peer's user (SO_PEERCRED, LOCAL_PEERCRED), and
// once the last connection is gone keeps the sessions for the grace
// period, then exits, ending every tree. A hello line (hello.go) opens
// each connection: the settings the relay was started with must be the
// background helper's.
//
// Windows has no background helper: --persist is refused there with the
// reason (other.go).
package persist
