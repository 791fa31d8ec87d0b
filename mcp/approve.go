package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/rpc"
)

// elicitor asks the person through the client's elicitation/create.
type elicitor struct{ peer rpc.Peer }

var approvalSchema = schema{
	"type": "object",
	"properties": schema{
		"always": schema{"type": "boolean", "title": "Always allow this command here",
			"description": "Remember the command's name (and subcommand) for this project.", "default": false},
	},
}

func (e elicitor) Approve(ctx context.Context, req engine.ApprovalRequest) (engine.Decision, error) {
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	params := map[string]any{"message": approvalMessage(req), "requestedSchema": approvalSchema}
	if err := e.peer.Call(ctx, "elicitation/create", params, &res); err != nil {
		return engine.Deny, err
	}
	if res.Action != "accept" {
		return engine.Deny, nil
	}
	if always, _ := res.Content["always"].(bool); always {
		return engine.Always, nil
	}
	return engine.Allow, nil
}

func approvalMessage(req engine.ApprovalRequest) string {
	msg := fmt.Sprintf("Run this command in %s?\n\n%s", req.Cwd, req.Command)
	if len(req.Reasons) > 0 {
		msg += "\n\nWhy you are asked: " + strings.Join(req.Reasons, "; ")
	}
	return msg
}
