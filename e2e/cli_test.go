//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// cli runs the binary to its end with no input and returns what it printed.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	err := within(t, done, "termhelper "+strings.Join(args, " "))
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func TestCLIHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"run", "--help"}} {
		out, errs, code := cli(t, args...)
		if code != 0 || errs != "" || !strings.Contains(out, "usage:") || !strings.Contains(out, "--root DIR") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, errs, out)
		}
		if strings.Contains(out, "cpuprofile") || strings.Contains(out, "__") {
			t.Errorf("%q: internal flags in the help:\n%s", args, out)
		}
	}
}

func TestCLIStrayArgumentIsAnError(t *testing.T) {
	for _, args := range [][]string{{"serve"}, {"--root", t.TempDir(), "mpc"}, {"--nope"}, {"run"}} {
		out, errs, code := cli(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "usage:") {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s", args, code, out, errs)
		}
	}
}

// TestCLIMCPSubcommand: `termhelper mcp` is `termhelper --mcp`, not the
// native protocol served to an MCP host.
func TestCLIMCPSubcommand(t *testing.T) {
	cmd := exec.Command(binary, "mcp", "--root", t.TempDir())
	cmd.Env = append(cmd.Environ(), "SHELL=")
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	must(t, err)
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var answer struct {
		Result struct {
			ProtocolVersion any `json:"protocolVersion"`
			ServerInfo      struct{ Name string }
		}
	}
	must(t, json.Unmarshal([]byte(within(t, lines, "the answer to initialize")), &answer))
	if v, ok := answer.Result.ProtocolVersion.(string); !ok || v == "" || answer.Result.ServerInfo.Name != "termhelper" {
		t.Fatalf("not an MCP initialize answer: %+v", answer)
	}
}
