package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// geminiRequest is what this server reads of a generateContent request.
type geminiRequest struct {
	Contents []struct {
		Parts []struct {
			FunctionResponse *struct {
				Response any `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
	} `json:"tools"`
}

func (q geminiRequest) names() []string {
	var out []string
	for _, t := range q.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}

func (q geminiRequest) results() []string {
	var out []string
	for _, c := range q.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, texts(p.FunctionResponse.Response))
			}
		}
	}
	return out
}

// gemini serves POST /v1beta/models/MODEL:generateContent,
// :streamGenerateContent and :countTokens.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	call := r.PathValue("call")
	if strings.HasSuffix(call, ":countTokens") {
		countTokens(w, r)
		return
	}
	var req geminiRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badRequest(w, err)
		return
	}
	step, tool := s.turn(req.names(), req.results())
	part := map[string]any{"text": step.Text}
	if step.Call != nil {
		part = map[string]any{"functionCall": map[string]any{"name": tool, "args": step.Call}}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{part}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  strings.SplitN(call, ":", 2)[0],
	}
	if !strings.HasSuffix(call, ":streamGenerateContent") {
		writeJSON(w, resp)
		return
	}
	startSSE(w)
	sse(w, "", resp)
}
