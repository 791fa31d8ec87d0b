//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	dbPassword = "pg-" + "Zq81vX0mL2kP"
	stripeKey  = "sk_live_" + "51HxYzE2eQ"
)

// dotenvRoot is a confined helper whose root has a .env and a
// .env.local, and a script that prints a file past the policy's reading
// of the line.
func dotenvRoot(t *testing.T) confined {
	s := startConfined(t, "ndjson")
	must(t, os.WriteFile(filepath.Join(s.root, ".env"),
		[]byte("NODE_ENV=development\nHOST=localhost\nDB_PASSWORD="+dbPassword+"\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(s.root, ".env.local"), []byte("STRIPE=\""+stripeKey+"\"\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(s.root, "show.py"),
		[]byte("import sys, time\nfor f in sys.argv[1:]:\n  t = open(f).read()\n  h = len(t)//2\n  sys.stdout.write(t[:h]); sys.stdout.flush(); time.sleep(0.05)\n  sys.stdout.write(t[h:]); sys.stdout.flush()\n"), 0o644))
	return s
}

// TestDotenvValuesAreMaskedAndReported: a script the policy cannot read
// into prints the project's .env files, in two writes that cut the
// values: the values arrive as ********, the settings beside them as
// they are, and the answer's summary names the files read and those
// whose values it masked; a command that reads one and prints nothing
// of it is reported too, one that only lists them is not. Masking is all
// there is: a command that prints a value transformed is not caught (the
// command reads the file itself; docs/protocol.md section 6 says so).
func TestDotenvValuesAreMaskedAndReported(t *testing.T) {
	s := dotenvRoot(t)
	for _, mode := range []string{"pty", "pipes"} {
		r := s.c.exec(map[string]any{"command": python + " show.py .env .env.local", "mode": mode})
		if strings.Contains(r.Output, dbPassword) || strings.Contains(r.Output, stripeKey) {
			t.Errorf("%s: a .env value reached the host: %q", mode, r.Output)
		}
		for _, want := range []string{"DB_PASSWORD=********", "STRIPE=\"********\"", "NODE_ENV=development", "HOST=localhost"} {
			if !strings.Contains(r.Output, want) {
				t.Errorf("%s: output %q lacks %q", mode, r.Output, want)
			}
		}
		if !strings.HasSuffix(r.Summary, " · read .env, .env.local · the output held values of .env, .env.local, masked") {
			t.Errorf("%s: summary %q does not name the files", mode, r.Summary)
		}
	}
	r := s.c.exec(map[string]any{"command": python + ` -c "print(len(open('.env.local').read()))"`})
	if !strings.HasSuffix(r.Summary, " · read .env.local") {
		t.Errorf("a command that read .env.local and printed no value: summary %q", r.Summary)
	}
	r = s.c.exec(map[string]any{"command": "ls -a; stat .env > /dev/null; echo quiet"})
	if strings.Contains(r.Summary, ".env") {
		t.Errorf("a command that read no .env file: summary %q", r.Summary)
	}
}

// TestDevServerReadsDotenv: a dev server that reads .env starts confined
// and serves, and what it serves is masked in what the host receives.
func TestDevServerReadsDotenv(t *testing.T) {
	s := dotenvRoot(t)
	port := freePort(t)
	server := fmt.Sprintf(`import http.server
env = dict(l.split("=", 1) for l in open(".env").read().split())
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers()
        self.wfile.write(("db password has %%d characters" %% len(env["DB_PASSWORD"])).encode())
print("db password is", env["DB_PASSWORD"], flush=True)
http.server.HTTPServer(("127.0.0.1", %d), H).serve_forever()
`, port)
	must(t, os.WriteFile(filepath.Join(s.root, "server.py"), []byte(server), 0o644))
	r := s.c.exec(map[string]any{"command": python + " server.py", "background": true, "readyPort": port})
	t.Cleanup(func() { s.c.run("session/kill", map[string]any{"sessionId": r.SessionID}) })
	if r.Ready == nil || !*r.Ready {
		t.Fatalf("the server did not start: %s", describe(r))
	}
	if strings.Contains(r.Output, dbPassword) || !strings.Contains(r.Output, "db password is ********") {
		t.Errorf("the server's output: %q", r.Output)
	}
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("db password has %d characters", len(dbPassword)); string(body) != want {
		t.Errorf("served %q, want %q", body, want)
	}
}

// TestMCPDotenvFactsInBothForms: through MCP, the .env files a command
// read and those whose values it masked are in the structured content
// (which Claude Code and Codex show a model alone) as in the text (which
// Gemini CLI shows alone).
func TestMCPDotenvFactsInBothForms(t *testing.T) {
	startConfined(t, "ndjson") // skips where there is no sandbox
	h := startMCP(t, mcpOpts{})
	must(t, os.WriteFile(filepath.Join(h.root, ".env"), []byte("DB_PASSWORD="+dbPassword+"\n"), 0o600))
	res := h.call(map[string]any{"command": python + ` -c "print(open('.env').read())"`})
	var got struct {
		Read   []string `json:"env_files_read"`
		Masked []string `json:"env_values_masked"`
		Output string   `json:"output"`
	}
	raw, err := json.Marshal(res.StructuredContent)
	must(t, err)
	must(t, json.Unmarshal(raw, &got))
	if strings.Contains(string(raw)+text(res), dbPassword) {
		t.Fatalf("a .env value reached the host: %s %q", raw, text(res))
	}
	if fmt.Sprint(got.Masked) != "[.env]" || !strings.Contains(text(res), "the output held values of .env, masked") {
		t.Errorf("the masking is not named in both forms: %s / %q", raw, text(res))
	}
	if fmt.Sprint(got.Read) != "[.env]" || !strings.Contains(text(res), "read .env") {
		t.Errorf("the read is not named in both forms: %s / %q", raw, text(res))
	}
}
