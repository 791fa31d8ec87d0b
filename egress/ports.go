package egress

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// portRules are host patterns by the ports they name. A pattern may end
// in a port ("host:8443", "[2001:db8::1]:8443") or in ":*" (every port);
// one without names the list's default ports: 80 and 443 to allow, every
// port to deny.
type portRules struct {
	plain   rules         // no port named
	anyPort rules         // ":*"
	ports   map[int]rules // ":8443"
}

// webPorts are the ports an allowed host gets when its entry names none:
// the proxy carries HTTP and HTTPS, and a host allowed for those must
// not be reached on another service (CONNECT github.com:22).
func webPorts(port int) bool { return port == 80 || port == 443 }

// everyPort is a deny entry's default: a denied host is denied whole.
func everyPort(int) bool { return true }

// compilePorts reads every pattern; the first that cannot be read is an
// error, since a deny rule dropped in silence would widen what gets out.
func compilePorts(patterns []string) (portRules, error) {
	var pr portRules
	for _, p := range patterns {
		if err := pr.add(p); err != nil {
			return portRules{}, err
		}
	}
	return pr, nil
}

// compilePortsLoose reads what it can: for lists that only widen (hosts
// remembered as always allowed), where a bad entry is skipped.
func compilePortsLoose(patterns []string) portRules {
	var pr portRules
	for _, p := range patterns {
		_ = pr.add(p)
	}
	return pr
}

func (pr *portRules) add(pattern string) error {
	host, port, err := splitPort(strings.TrimSpace(pattern))
	if err != nil {
		return fmt.Errorf("host pattern %q: %w", pattern, err)
	}
	switch port {
	case 0:
		return pr.plain.add(host)
	case -1:
		return pr.anyPort.add(host)
	}
	r := pr.ports[port]
	if err := r.add(host); err != nil {
		return err
	}
	if pr.ports == nil {
		pr.ports = map[int]rules{}
	}
	pr.ports[port] = r
	return nil
}

// match reports whether host on port is covered; plain says which ports
// a pattern without one stands for.
func (pr *portRules) match(host string, port int, plain func(int) bool) bool {
	if plain(port) && pr.plain.match(host) || pr.anyPort.match(host) {
		return true
	}
	r, ok := pr.ports[port]
	return ok && r.match(host)
}

// splitPort parts a pattern from the port it names: 0 for none, -1 for
// "*". An IPv6 address takes a port only in brackets.
func splitPort(p string) (host string, port int, err error) {
	if strings.Contains(p, "://") {
		return "", 0, fmt.Errorf("%w (write the host alone, or host:port: example.com, example.com:8443)", errHost)
	}
	h, ps, ok := cutPort(p)
	if !ok {
		return p, 0, nil
	}
	if ps == "*" {
		return h, -1, nil
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 || ps[0] == '0' || ps[0] == '+' {
		return "", 0, fmt.Errorf("the port %q is not a number from 1 to 65535, nor * (every port)", ps)
	}
	return h, n, nil
}

// cutPort is host and port of "host:port" or "[v6]:port"; a bare IPv6
// address (two colons or more) names none.
func cutPort(p string) (host, port string, ok bool) {
	if strings.HasPrefix(p, "[") {
		end := strings.Index(p, "]")
		if end < 0 || !strings.HasPrefix(p[end+1:], ":") {
			return "", "", false
		}
		return p[:end+1], p[end+2:], true
	}
	if strings.Count(p, ":") != 1 {
		return "", "", false
	}
	return strings.Cut(p, ":")
}

// ruleKey is the key of a host on a port: the host alone on a web port,
// where an entry without a port covers it, else host:port.
func ruleKey(host string, port int) string {
	if webPorts(port) {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
