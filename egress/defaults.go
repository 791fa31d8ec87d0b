package egress

// DefaultAllow is the hosts a build needs, let through unasked unless the
// config denies them: the package registries of npm, PyPI, crates.io, Go
// modules, RubyGems and Maven Central, the hosts their clients really
// download from, and the common source hosts with their archive and raw
// content hosts. Each entry is an exact host (no wildcard): a wildcard
// over a shared domain would let through hosts anyone can name.
//
// Every host here accepts uploads from anyone with an account (a package
// publish, a push, an API call with a token the command brings along):
// without TLS interception the proxy sees hosts, not requests, so allowing
// a host trusts what goes to it.
func DefaultAllow() []string {
	var all []string
	for _, group := range defaultAllow {
		all = append(all, group.hosts...)
	}
	return all
}

// defaultAllow keeps, for each host, why it is there: docs/protocol.md
// lists the same groups.
var defaultAllow = []struct {
	what  string
	hosts []string
}{
	{"npm, Yarn, pnpm: the registry and its tarballs; Yarn's own mirror and release host; node-gyp's headers",
		[]string{"registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com", "nodejs.org"}},
	{"PyPI (pip, uv, Poetry): the index and the files host",
		[]string{"pypi.org", "files.pythonhosted.org"}},
	{"crates.io (cargo): the API, the sparse index, the downloads; rustup's toolchains",
		[]string{"crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org"}},
	{"Go modules: the module proxy and the checksum database",
		[]string{"proxy.golang.org", "sum.golang.org"}},
	{"RubyGems (gem, Bundler): the registry and its compact index",
		[]string{"rubygems.org", "index.rubygems.org"}},
	{"Maven Central (Maven, Gradle): the repository under both its names; Gradle's plugin portal and distributions",
		[]string{"repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "plugins-artifacts.gradle.org", "services.gradle.org", "downloads.gradle.org"}},
	{"GitHub: git over HTTPS, the API (release lookups), archives, raw files, release assets",
		[]string{"github.com", "api.github.com", "codeload.github.com", "raw.githubusercontent.com", "objects.githubusercontent.com", "release-assets.githubusercontent.com"}},
	{"GitLab and Bitbucket: git over HTTPS, archives, raw files, the API",
		[]string{"gitlab.com", "bitbucket.org", "api.bitbucket.org"}},
}
