package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// responsesRequest is what this server reads of a Responses API request.
type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
	Input  []struct {
		Type   string `json:"type"`
		Output any    `json:"output"`
	} `json:"input"`
}

// names are the offered function tools' names; a namespace's tools (the
// form Codex offers an MCP server's tools in) as namespace__name.
func (q responsesRequest) names() []string {
	var out []string
	for _, raw := range q.Tools {
		var t struct {
			Type  string            `json:"type"`
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(raw, &t)
		if t.Type != "namespace" {
			out = append(out, t.Name)
			continue
		}
		for _, name := range (responsesRequest{Tools: t.Tools}).names() {
			out = append(out, t.Name+"__"+name)
		}
	}
	return out
}

// call is a function_call item for tool, in its namespace if it has one.
func call(id, tool string, args map[string]any) map[string]any {
	item := map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id,
		"name": tool, "arguments": argsJSON(args), "status": "completed"}
	if ns, name, ok := strings.Cut(tool, "__terminal"); ok && name == "" && ns != "" {
		item["namespace"], item["name"] = ns, "terminal"
	}
	return item
}

func (q responsesRequest) results() []string {
	var out []string
	for _, in := range q.Input {
		if in.Type == "function_call_output" || in.Type == "custom_tool_call_output" || in.Type == "mcp_tool_call_output" {
			out = append(out, texts(in.Output))
		}
	}
	return out
}

// responses serves POST /v1/responses.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badRequest(w, err)
		return
	}
	results := req.results()
	step, tool := s.turn(req.names(), results)
	id := fmt.Sprintf("%02d", len(results))
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}}
	if step.Call != nil {
		item = call(id, tool, step.Call)
	}
	usage := map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	resp := map[string]any{"id": "resp_" + id, "object": "response", "status": "completed", "model": req.Model,
		"output": []any{item}, "usage": usage}
	if !req.Stream {
		writeJSON(w, resp)
		return
	}
	startSSE(w)
	sse(w, "response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": "resp_" + id, "status": "in_progress"}})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": resp})
}
