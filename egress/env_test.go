package egress

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	l := listen(t, newProxy(t, Options{}), nil)
	env := l.Env()
	u, err := url.Parse(env["HTTP_PROXY"])
	if err != nil {
		t.Fatal(err)
	}
	if pass, _ := u.User.Password(); u.Scheme != "http" || u.Host != l.Addr() || pass != l.token || u.User.Username() != user {
		t.Errorf("proxy URL %q for listener %s", env["HTTP_PROXY"], l.Addr())
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
		"npm_config_proxy", "npm_config_https_proxy", "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY", "CARGO_HTTP_PROXY"} {
		if env[k] != u.String() {
			t.Errorf("%s=%q, want %q", k, env[k], u.String())
		}
	}
	for k, want := range map[string]string{"NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1",
		"npm_config_noproxy": "localhost,127.0.0.1,::1", "NODE_USE_ENV_PROXY": "1"} {
		if env[k] != want {
			t.Errorf("%s=%q, want %q", k, env[k], want)
		}
	}
	if other := listen(t, newProxy(t, Options{}), nil); other.Env()["HTTP_PROXY"] == env["HTTP_PROXY"] {
		t.Error("two listeners share a URL")
	}
}

// Real clients, given nothing but Env, reach hosts whose names resolve
// nowhere: only through the proxy can they succeed. git authenticates
// only when challenged (libcurl's anyauth), so it also proves the 407
// exchange.
func TestRealClientsUseEnv(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "tls ok\n")
	}))
	t.Cleanup(tlsSrv.Close)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/left-pad":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"name":"left-pad","dist-tags":{"latest":"1.3.0"},"versions":{"1.3.0":{"name":"left-pad","version":"1.3.0"}}}`)
		default:
			io.WriteString(w, "plain ok\n")
		}
	}))
	t.Cleanup(web.Close)
	repo := gitRepo(t)
	gitSrv := httptest.NewServer(http.FileServer(http.Dir(repo)))
	t.Cleanup(gitSrv.Close)

	p := newProxy(t, Options{
		Allow: []string{"plain.test", "secure.test", "git.test", "registry.test"},
		Dial: hosts(map[string]string{"plain.test": web.Listener.Addr().String(), "registry.test": web.Listener.Addr().String(),
			"secure.test": tlsSrv.Listener.Addr().String(), "git.test": gitSrv.Listener.Addr().String()}),
	})
	l := listen(t, p, nil)
	home := t.TempDir()
	for _, c := range []struct {
		name string
		argv []string
		want string
	}{
		{"curl-http", []string{"curl", "-sS", "http://plain.test/"}, "plain ok"},
		{"curl-https", []string{"curl", "-sS", "-k", "https://secure.test/"}, "tls ok"},
		{"curl-anyauth", []string{"curl", "-sS", "--proxy-anyauth", "-k", "https://secure.test/"}, "tls ok"},
		{"git", []string{"git", "ls-remote", "http://git.test/repo.git"}, "refs/heads/main"},
		{"python3", []string{"python3", "-c", "import urllib.request as u; print(u.urlopen('http://plain.test/').read().decode())"}, "plain ok"},
		{"npm", []string{"npm", "view", "left-pad", "version", "--registry", "http://registry.test/"}, "1.3.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.argv[0]); err != nil {
				t.Skipf("%s is not installed here", c.argv[0])
			}
			out, err := runWith(t, l, home, c.argv)
			if err != nil || !strings.Contains(out, c.want) {
				t.Fatalf("%v: %v\n%s", c.argv, err, out)
			}
		})
	}
	if d := l.Denied(); len(d) != 0 {
		t.Errorf("Denied: %v", d)
	}
}

// runWith runs argv with a bare environment: PATH, a scratch HOME, and Env.
func runWith(t *testing.T, l *Listener, home string, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"npm_config_cache=" + filepath.Join(home, "npm-cache"), "npm_config_update_notifier=false"}
	for k, v := range l.Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// gitRepo makes a bare repository with one commit on main, served as
// files (git's dumb HTTP protocol).
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return t.TempDir()
	}
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "repo.git")
	for _, argv := range [][]string{
		{"git", "init", "-q", "-b", "main", work},
		{"git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"},
		{"git", "clone", "-q", "--bare", work, bare},
		{"git", "-C", bare, "update-server-info"},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	return dir
}
