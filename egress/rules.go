package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// errHost is every host name the proxy will not judge: judging a name that
// no resolver would read the same way is how a deny rule gets around.
var errHost = errors.New("not a host name or IP address")

// rules is a compiled list of host patterns.
type rules struct {
	any      bool                // "*"
	exact    map[string]bool     // "registry.npmjs.org"
	suffixes []string            // "*.github.com" kept as ".github.com"
	addrs    map[netip.Addr]bool // "10.0.0.5", "[2001:db8::1]"
	prefixes []netip.Prefix      // "10.0.0.0/8"
}

// CheckPattern tells whether pattern is a host pattern the proxy reads:
// a host name ("registry.npmjs.org"), a wildcard over its subdomains
// ("*.example.com": a.example.com and a.b.example.com, not example.com
// itself), every host ("*"), an IP address (IPv6 with or without brackets)
// or an address range ("10.0.0.0/8"), each optionally with a port
// ("example.com:8443", "[2001:db8::1]:8443") or ":*" for every port. An
// allow entry without a port allows 80 and 443 only; a deny entry without
// one denies every port. Case and a trailing dot do not matter; schemes
// and paths are not part of a pattern.
func CheckPattern(pattern string) error {
	var r portRules
	return r.add(pattern)
}

func (r *rules) add(pattern string) error {
	p := strings.TrimSpace(pattern)
	switch {
	case p == "*":
		r.any = true
		return nil
	case strings.HasPrefix(p, "*."):
		h, err := normName(p[2:])
		if err != nil {
			return fmt.Errorf("host pattern %q: %w", pattern, err)
		}
		r.suffixes = append(r.suffixes, "."+h)
		return nil
	case isPrefix(p):
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return fmt.Errorf("host pattern %q: not an address range: %w", pattern, err)
		}
		r.prefixes = append(r.prefixes, unmapPrefix(pre.Masked()))
		return nil
	}
	h, err := normHost(p)
	if err != nil {
		return fmt.Errorf("host pattern %q: %w (write the host alone, or host:port: example.com, *.example.com, 10.0.0.5, example.com:8443)", pattern, err)
	}
	r.put(h)
	return nil
}

func (r *rules) put(host string) {
	if a, err := netip.ParseAddr(host); err == nil {
		if r.addrs == nil {
			r.addrs = map[netip.Addr]bool{}
		}
		r.addrs[a] = true
		return
	}
	if r.exact == nil {
		r.exact = map[string]bool{}
	}
	r.exact[host] = true
}

// match reports whether a host, already normalised by normHost, is covered.
// A name is matched as a name and an address as an address: names are
// never resolved to be judged.
func (r *rules) match(host string) bool {
	if r.any {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return r.matchAddr(a)
	}
	if r.exact[host] {
		return true
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

func (r *rules) matchAddr(a netip.Addr) bool {
	if r.addrs[a] {
		return true
	}
	for _, p := range r.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// normHost is the one spelling of a host the rules and the questions use:
// lower case, no trailing dot, an IP address in its canonical form
// (IPv4-mapped IPv6 as IPv4, IPv6 without brackets).
func normHost(h string) (string, error) {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", errHost
		}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", errHost
		}
		return a.Unmap().String(), nil
	}
	return normName(h)
}

// normName checks a DNS name. A last label that reads as a number is
// refused: resolvers take "2130706433" or "0x7f.1" as addresses, which the
// rules would judge as names.
func normName(h string) (string, error) {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || len(h) > 253 {
		return "", errHost
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if !validLabel(l) {
			return "", errHost
		}
	}
	if numeric(labels[len(labels)-1]) {
		return "", errHost
	}
	return h, nil
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// numeric: decimal digits, or 0x and hex digits, as inet_aton reads them.
func numeric(l string) bool {
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		l = rest
		return strings.Trim(l, "0123456789abcdef") == ""
	}
	return strings.Trim(l, "0123456789") == ""
}

// isPrefix: an address, a slash, something: a range, or a mistake in one.
func isPrefix(p string) bool {
	addr, _, ok := strings.Cut(p, "/")
	_, err := netip.ParseAddr(addr)
	return ok && err == nil
}

func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}
