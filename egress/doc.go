// Package egress is the helper's HTTP(S) egress proxy: the one way out of
// the machine for a sandboxed command, whose direct connections the kernel
// refuses (loopback aside). It lets through the hosts the rules allow,
// refuses the ones they deny, and asks a person about the rest at the
// moment of the attempt.
//
// One Proxy per helper holds the rules; New opens no socket. Each
// sandboxed session gets its own Listener on 127.0.0.1 (Listen), whose
// URL carries credentials only that session's command is given (Env), so
// every connection is known to come from that command and questions name
// it.
//
// What it speaks: HTTP CONNECT (a byte tunnel, no TLS interception) and
// plain HTTP requests in absolute form (GET http://host/path), each
// request on a keep-alive connection judged on its own host, hop-by-hop
// headers removed, the Host header taken from the URL. Bodies stream
// through bounded buffers (splice between TCP connections for tunnels),
// never whole in memory.
//
// No SOCKS5. Every client the proxy serves speaks HTTP CONNECT, and the
// ones that read ALL_PROXY take an http:// URL (a socks5h:// one breaks
// Python's httpx where its SOCKS extra is missing). What SOCKS would add
// is raw TCP for clients that ignore the proxy variables, chiefly ssh
// (git over ssh): but a sandboxed command cannot read ~/.ssh, so ssh is
// a command that leaves the sandbox, which the policy asks about and runs
// unconfined. SOCKS with local name resolution (socks5://) would fail
// anyway, since the kernel refuses a sandboxed command's DNS, and UDP
// ASSOCIATE would reopen the UDP the kernel closes.
//
// Judging a host, in order: the deny list refuses; the allow list, the
// hosts remembered as always allowed, and loopback let through; then what
// this session was already told about the host; then, with an Asker, a
// question (one per host and session: every connection to the host waits
// for that one answer); without one, a refusal. Names are judged as the
// client wrote them (lower-cased, without a trailing dot), never
// resolved first: a name that does not resolve is asked about, and named
// when refused. Names resolve only in the proxy, when it dials a host it
// has allowed. An answer holds for the rest of the session (allow and
// deny alike; a session is one command), "always" also for every later
// session of the root. A refused CONNECT gets 403 with one line naming
// the host and why; Listener.Denied lists what was refused.
//
// A name is judged, not the address it resolves to, and the inside of a
// tunnel is not seen: an allowed host receives whatever a command sends
// it, so allowing a host is trusting it.
package egress
