//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// modelCall is one call of the terminal tool whose result a model reads,
// and the facts that must reach the model in each form.
type modelCall struct {
	name  string
	args  map[string]any
	facts []*regexp.Regexp // in the text and in the structured content alike
}

// failingBuild is a C program that does not compile, built by make: the
// error line and make's exit status are what a model must read.
const failingBuild = "int main(void) { return undeclared_name; }\n"

var modelCalls = []modelCall{
	{"`echo hi`", map[string]any{"command": "echo hi"}, []*regexp.Regexp{regexp.MustCompile(`hi`)}},
	{"failing build (`make`, a C compile error)", map[string]any{"command": "make -C build"}, []*regexp.Regexp{
		regexp.MustCompile(`main\.c:1:\d+: error: .undeclared_name. undeclared`),
		regexp.MustCompile(`(exit 2\b|"exit_?[cC]ode":2\b)`)}},
	{"background start (`sleep 30`)", map[string]any{"command": "sleep 30", "background": true}, []*regexp.Regexp{
		regexp.MustCompile(`background`), regexp.MustCompile(`session_?[iI]d"?:?"?\s?\d|session \d`)}},
}

// benchModelRead counts the characters a model receives for the same
// calls in each form a host hands it: structuredContent as JSON (Claude
// Code and Codex show a model only that) and the text content (Gemini
// CLI shows only that), and checks that the key facts are in both.
func benchModelRead(e *env) (result, error) {
	var res result
	if err := writeBuild(e.root()); err != nil {
		return res, err
	}
	h, err := spawn(e, "--mcp")
	if err != nil {
		return res, err
	}
	defer h.close()
	if err := mcpHandshake(h); err != nil {
		return res, err
	}
	// The first result may carry a one-time notice on how commands are
	// confined here: it is not what every call costs.
	if _, _, err := toolCall(h, map[string]any{"command": "true"}); err != nil {
		return res, err
	}
	for _, c := range modelCalls {
		structured, text, err := toolCall(h, c.args)
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.name, err)
		}
		res.add(row{c.name + ": structuredContent (Claude Code, Codex), characters", "", fmt.Sprint(utf8.RuneCountInString(structured)), "", "", verdict(hasAll(structured, c.facts))})
		res.add(row{c.name + ": text (Gemini CLI), characters", "", fmt.Sprint(utf8.RuneCountInString(text)), "", "", verdict(hasAll(text, c.facts))})
		res.note("modelread %s: structuredContent `%s`; text %q", c.name, structured, text)
	}
	res.note("modelread: characters of each form of the same terminal tool results, after one warm-up call; met: the call's key facts (output, exit code, error line, session) are in that form.")
	return res, nil
}

func hasAll(s string, facts []*regexp.Regexp) bool {
	for _, f := range facts {
		if !f.MatchString(s) {
			return false
		}
	}
	return true
}

func writeBuild(root string) error {
	dir := filepath.Join(root, "build")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(failingBuild), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "Makefile"), []byte("main: main.c\n\tcc -o main main.c\n"), 0o644)
}

// mcpHandshake initializes an MCP session as a host does.
func mcpHandshake(h *helper) error {
	if _, _, _, err := h.call("initialize", mcpInitialize); err != nil {
		return err
	}
	return h.notify("notifications/initialized", map[string]any{})
}

// toolCall calls the terminal tool and returns its structured content as
// the server sent it and its text.
func toolCall(h *helper, args map[string]any) (string, string, error) {
	raw, _, _, err := h.call("tools/call", map[string]any{"name": "terminal", "arguments": args})
	if err != nil {
		return "", "", err
	}
	var res struct {
		Content []struct {
			Type, Text string
		}
		StructuredContent json.RawMessage
		IsError           bool
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", "", err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if res.IsError {
		return "", "", fmt.Errorf("refused: %s", text.String())
	}
	return string(res.StructuredContent), text.String(), nil
}
