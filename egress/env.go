package egress

import "net/url"

// NoProxy is what goes straight to its host: loopback, which the kernel
// lets a sandboxed command reach and which the proxy could only relay.
const NoProxy = "localhost,127.0.0.1,::1"

// proxyVars are the variables whose value is the proxy's URL, and who
// reads them.
var proxyVars = []string{
	// curl, libcurl (git, cargo), Python (urllib, requests, pip, httpx,
	// uv), Go (net/http: the go command), Node with NODE_USE_ENV_PROXY,
	// Deno, Bun, Ruby, wget, gRPC. curl takes only the lower-case
	// http_proxy (the upper-case one is a CGI header's name); Go and
	// Python read either case.
	"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
	// curl and libcurl for what no scheme-specific variable covers; Python
	// (requests, httpx) and uv. An http:// URL, not socks5h://: httpx
	// builds a SOCKS transport from ALL_PROXY at start-up and fails where
	// its SOCKS extra is not installed.
	"ALL_PROXY", "all_proxy",
	// npm (and pnpm, Yarn 1): config from the environment wins over every
	// .npmrc, so a project's own proxy setting cannot take npm elsewhere.
	"npm_config_proxy", "npm_config_https_proxy",
	// Yarn 2 and later read only their own settings.
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY",
	// pip's --proxy: wins over pip.conf.
	"PIP_PROXY",
	// cargo's http.proxy: without it cargo takes git's http.proxy from the
	// user's ~/.gitconfig before the environment.
	"CARGO_HTTP_PROXY",
}

// Env is what a command needs to go through this listener: the proxy's
// URL, with the listener's credentials, in every variable the common
// clients read, NO_PROXY for loopback, and NODE_USE_ENV_PROXY=1, without
// which Node's own fetch and http (Node 24, 22.21) ignore the proxy
// variables. Git needs nothing more (libcurl reads http_proxy and
// https_proxy; a git config http.proxy would still win), nor does the go
// command (HTTPS_PROXY). Java reads none of these: a JVM build tool needs
// its own proxy settings (-Dhttps.proxyHost), which are not set here since
// JAVA_TOOL_OPTIONS would replace the user's own and print a line at
// every start.
func (l *Listener) Env() map[string]string {
	u := (&url.URL{Scheme: "http", User: url.UserPassword(user, l.token), Host: l.Addr()}).String()
	env := map[string]string{
		"NO_PROXY":           NoProxy,
		"no_proxy":           NoProxy,
		"npm_config_noproxy": NoProxy,
		"NODE_USE_ENV_PROXY": "1",
	}
	for _, k := range proxyVars {
		env[k] = u
	}
	return env
}
