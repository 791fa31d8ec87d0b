// Package fakemodel is a model server on loopback that speaks the three
// wire formats agent hosts call (Anthropic's Messages API, OpenAI's
// Responses API and Gemini's generateContent, each streamed or not). A
// Script decides each turn of the conversation that offers the terminal
// tool: the next call of that tool, or a last word; the server records
// what the host offered and every tool result it sent back.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Step is the model's next move: a call of the terminal tool with Call
// as its arguments, or, when Call is nil, Text and the end of the turn.
type Step struct {
	Call map[string]any
	Text string
}

// Script gives the next step from the tool results the conversation
// holds so far, oldest first.
type Script func(results []string) Step

// Done ends the turn.
var Done = Step{Text: "done"}

// Server is a running fake model.
type Server struct {
	URL    string
	script Script
	srv    *http.Server

	mu      sync.Mutex
	tools   []string // every tool name any request offered
	results []string // the longest list of tool results seen
	calls   int      // tool calls sent
	paths   []string // every request's method and path
}

// Start serves script on 127.0.0.1.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/messages/count_tokens", countTokens)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("/", s.other)
	s.srv = &http.Server{Handler: s.log(mux)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and every request it is serving.
func (s *Server) Close() { s.srv.Close() }

// Tools is every tool name the host offered.
func (s *Server) Tools() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools)
}

// Results is the tool results the host sent back, oldest first.
func (s *Server) Results() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.results)
}

// Calls is how many tool calls the server has sent.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Requests is every request's method and path, for a failure's message.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

func (s *Server) log(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// other answers what a host asks beside the conversation (a model list,
// a quota check) with an empty success.
func (s *Server) other(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/models") {
		io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
		return
	}
	io.WriteString(w, `{}`)
}

func countTokens(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"input_tokens":10,"totalTokens":10}`)
}

// turn records what a request of the conversation held and returns the
// script's next step; tool is the terminal tool's name as the host
// offered it ("" when the request did not offer it: a side request such
// as a title or a routing question, answered with sideText).
func (s *Server) turn(tools, results []string) (step Step, tool string) {
	tool = terminal(tools)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tools {
		if !slices.Contains(s.tools, t) {
			s.tools = append(s.tools, t)
		}
	}
	if tool == "" {
		return Step{Text: sideText}, ""
	}
	if len(results) >= len(s.results) {
		s.results = slices.Clone(results)
	}
	step = s.script(results)
	if step.Call != nil {
		s.calls++
	}
	return step, tool
}

// sideText answers a side request: JSON that reads as "the user speaks
// next" to a host that asks who does, and as a plain word to the rest.
const sideText = `{"reasoning":"the turn is over","next_speaker":"user","model_choice":"flash","complexity_reasoning":"simple","complexity_score":1}`

// terminal is the name of the offered tool that is termhelper's, "" if
// none is (hosts prefix it with the server's name: mcp__termhelper__terminal).
func terminal(tools []string) string {
	for _, t := range tools {
		if t == "terminal" || strings.HasSuffix(t, "_terminal") {
			return t
		}
	}
	return ""
}

// texts joins every string inside a decoded JSON value, depth first: a
// tool result as the host sent it, whatever its shape.
func texts(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if k == "type" {
					continue
				}
				walk(v[k])
			}
		}
	}
	walk(v)
	return b.String()
}

// sse writes one server-sent event (event may be empty) and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func badRequest(w http.ResponseWriter, err error) {
	http.Error(w, `{"error":{"message":`+fmt.Sprintf("%q", err.Error())+`}}`, http.StatusBadRequest)
}

func argsJSON(call map[string]any) string {
	b, _ := json.Marshal(call)
	return string(b)
}
