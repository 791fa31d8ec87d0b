//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// mcpInitialize is what an MCP host sends first.
var mcpInitialize = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
	"clientInfo": map[string]string{"name": "bench", "version": "1"}}

// benchMCPStart times spawn to the answer of initialize in MCP mode
// against native mode in the same run, alternating the two so that load
// on the machine falls on both alike. The target: within 2x.
func benchMCPStart(e *env) (result, error) {
	var res result
	var native, mcp samples
	n := e.reps(60, 5)
	for range n {
		d, _, err := startOnce(e, false)
		if err != nil {
			return res, err
		}
		m, err := mcpStartOnce(e)
		if err != nil {
			return res, err
		}
		native, mcp = append(native, d), append(mcp, m)
	}
	r := ratio(mcp.median(), native.median())
	res.add(row{"MCP start to `initialize` answer, median (floor: native start)", fmtDur(native.median()),
		fmtDur(mcp.median()), fmtRatio(r), "< 2x native", verdict(r < 2)})
	res.add(row{"MCP start to `initialize` answer, p95 (floor: native start)", fmtDur(native.p95()),
		fmtDur(mcp.p95()), fmtRatio(ratio(mcp.p95(), native.p95())), "", ""})
	res.note("mcpstart: %d spawns of each mode, alternated; the floor column is native start-up (`--framing ndjson`) in the same run, the termhelper column `--mcp`.", n)
	return res, nil
}

// mcpStartOnce spawns a helper in MCP mode and times it to the answer of
// initialize, checking that the answer is MCP's.
func mcpStartOnce(e *env) (time.Duration, error) {
	h, err := spawn(e, "--mcp")
	if err != nil {
		return 0, err
	}
	defer h.close()
	raw, _, at, err := h.call("initialize", mcpInitialize)
	if err != nil {
		return 0, err
	}
	var ans struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.ProtocolVersion == "" {
		return 0, fmt.Errorf("initialize in MCP mode: not an MCP answer: %s", raw)
	}
	return at.Sub(h.started), nil
}
