package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// messagesRequest is what this server reads of a Messages API request.
type messagesRequest struct {
	Model    string                  `json:"model"`
	Stream   bool                    `json:"stream"`
	Tools    []struct{ Name string } `json:"tools"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// results are the tool_result blocks of the conversation, in order.
func (m messagesRequest) results() []string {
	var out []string
	for _, msg := range m.Messages {
		var blocks []struct {
			Type    string `json:"type"`
			Content any    `json:"content"`
		}
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue // a plain string: the user's words
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, texts(b.Content))
			}
		}
	}
	return out
}

// anthropic serves POST /v1/messages.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var req messagesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badRequest(w, err)
		return
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	results := req.results()
	step, tool := s.turn(names, results)
	id := fmt.Sprintf("toolu_%02d", len(results))
	block := map[string]any{"type": "text", "text": step.Text}
	stop := "end_turn"
	if step.Call != nil {
		block = map[string]any{"type": "tool_use", "id": id, "name": tool, "input": step.Call}
		stop = "tool_use"
	}
	msg := map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	if !req.Stream {
		writeJSON(w, msg)
		return
	}
	streamMessage(w, msg, block, stop)
}

// streamMessage writes msg as the Messages API's event stream: the
// message without its content, the one block (its input or text as a
// delta), then the stop.
func streamMessage(w http.ResponseWriter, msg, block map[string]any, stop string) {
	startSSE(w)
	head := map[string]any{}
	for k, v := range msg {
		head[k] = v
	}
	head["content"], head["stop_reason"] = []any{}, nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": head})
	open := map[string]any{}
	for k, v := range block {
		open[k] = v
	}
	delta := map[string]any{"type": "text_delta", "text": block["text"]}
	if block["type"] == "tool_use" {
		open["input"] = map[string]any{}
		delta = map[string]any{"type": "input_json_delta", "partial_json": argsJSON(block["input"].(map[string]any))}
	} else {
		open["text"] = ""
	}
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": open})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
