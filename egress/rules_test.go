package egress

import (
	"strings"
	"testing"
)

func TestPatternsMatch(t *testing.T) {
	cases := []struct {
		pattern string
		host    string
		want    bool
	}{
		{"registry.npmjs.org", "registry.npmjs.org", true},
		{"registry.npmjs.org", "REGISTRY.NPMJS.ORG.", true},
		{"Registry.NPMJS.org.", "registry.npmjs.org", true},
		{"registry.npmjs.org", "npmjs.org", false},
		{"registry.npmjs.org", "evil-registry.npmjs.org", false},
		{"registry.npmjs.org", "registry.npmjs.org.evil.com", false},
		// A wildcard covers subdomains at any depth, never the apex.
		{"*.github.com", "api.github.com", true},
		{"*.github.com", "a.b.github.com", true},
		{"*.github.com", "github.com", false},
		{"*.github.com", "evilgithub.com", false},
		{"*.github.com", "github.com.evil.com", false},
		{"*.GitHub.com.", "API.github.com.", true},
		{"*", "anything.example", true},
		{"*", "192.0.2.1", true},
		// Addresses match addresses; names are never resolved to match.
		{"192.0.2.1", "192.0.2.1", true},
		{"192.0.2.1", "::ffff:192.0.2.1", true},
		{"192.0.2.1", "192.0.2.2", false},
		{"2001:db8::1", "2001:db8:0:0::1", true},
		{"[2001:db8::1]", "2001:db8::1", true},
		{"2001:db8::1", "[2001:db8::1]", true},
		{"192.0.2.0/24", "192.0.2.200", true},
		{"192.0.2.0/24", "192.0.3.1", false},
		{"2001:db8::/32", "2001:db8:ffff::1", true},
		{"::ffff:192.0.2.0/120", "192.0.2.9", true},
		{"192.0.2.1", "example.com", false},
		{"*.example.com", "192.0.2.1", false},
	}
	for _, c := range cases {
		var r rules
		if err := r.add(c.pattern); err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		h, err := normHost(c.host)
		if err != nil {
			t.Errorf("host %q: %v", c.host, err)
			continue
		}
		if got := r.match(h); got != c.want {
			t.Errorf("%q matching %q: %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}

func TestPatternsRefused(t *testing.T) {
	for _, p := range []string{
		"", " ", "https://example.com", "example.com:0", "example.com:65536", "example.com:ssh", "example.com:",
		"example.com:+443", "example.com:0443", "[2001:db8::1]:x", "example.com/path",
		"exa mple.com", "a..b", ".example.com", "-bad.example.com", "registry.*.org",
		"*example.com", "*.", "*.*.example.com", "bücher.de", "*.10.0.0.1",
		"2130706433", "0x7f.1", "127.1", "192.0.2.0/33", "fe80::1%eth0",
		strings.Repeat("a", 64) + ".com",
	} {
		if err := CheckPattern(p); err == nil {
			t.Errorf("%q: accepted", p)
		}
	}
	if _, err := New(Options{Deny: []string{"ok.example", "https://bad.example"}}); err == nil ||
		!strings.Contains(err.Error(), "network_deny") {
		t.Errorf("New with a bad deny pattern: %v, want an error naming network_deny", err)
	}
}

// The hosts a client writes, as the rules and the questions name them.
func TestNormHost(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.":        "example.com",
		"[::1]":               "::1",
		"::ffff:192.0.2.1":    "192.0.2.1",
		"[::ffff:192.0.2.1]":  "192.0.2.1",
		"2001:DB8::1":         "2001:db8::1",
		"xn--bcher-kva.de":    "xn--bcher-kva.de",
		"_service.example.io": "_service.example.io",
	} {
		got, err := normHost(in)
		if err != nil || got != want {
			t.Errorf("normHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "[example.com]", "[192.0.2.1]", "a b", "example.com..", "1.2.3.4.5", "0x10", "fe80::1%eth0"} {
		if got, err := normHost(in); err == nil {
			t.Errorf("normHost(%q) = %q, want an error", in, got)
		}
	}
}

func TestDefaultAllow(t *testing.T) {
	all := DefaultAllow()
	have := map[string]bool{}
	for _, h := range all {
		if err := CheckPattern(h); err != nil || strings.Contains(h, "*") {
			t.Errorf("%q: not an exact host (%v)", h, err)
		}
		if have[h] {
			t.Errorf("%q listed twice", h)
		}
		have[h] = true
	}
	for _, h := range []string{
		"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "crates.io", "index.crates.io",
		"static.crates.io", "proxy.golang.org", "sum.golang.org", "rubygems.org", "repo.maven.apache.org",
		"repo1.maven.org", "github.com", "codeload.github.com", "raw.githubusercontent.com",
		"objects.githubusercontent.com", "gitlab.com", "bitbucket.org",
	} {
		if !have[h] {
			t.Errorf("%s is not on the default allow list", h)
		}
	}
}

// A pattern may name a port, or every port; the proxy's rules read it.
func TestPatternsWithPorts(t *testing.T) {
	for _, p := range []string{"example.com:8443", "*.example.com:22", "10.0.0.5:5432", "[2001:db8::1]:8443",
		"10.0.0.0/8:8080", "example.com:*", "*:*", "2001:db8::1"} {
		if err := CheckPattern(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	if err := CheckPattern("example.com:99999"); err == nil || !strings.Contains(err.Error(), "1 to 65535") {
		t.Errorf("a port out of range: %v, want an error that says the range", err)
	}
}
